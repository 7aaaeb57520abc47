"""Constants of the webarc 1.0 format shared by the writer and the reader.

Section numbers refer to Spec/webarc-format.md.
"""

MAGIC = b"\x89WEBARC\n"                      # §4
HEADER_SIZE = 128
HEADER_CHECK_OFFSET = 120
SECTION_ENTRY_SIZE = 24                      # §5.1 (1.0 writes 24)
REQUIRED = 1                                 # §5.1 section flag bit 0
MAX_CHUNK = 262_144                          # §5.4
KNOWN_SECTIONS = ("BDAT", "BTAB", "CTAB", "STRS", "OBJS", "LKUP")   # §5.1, also the writer's order
BTAB_ENTRY_SIZE = 48                         # §5.3
CTAB_ENTRY_SIZE = 24                         # §5.4
LKUP_ENTRY_SIZE = 8                          # §7.2
EMPTY_MD5 = bytes.fromhex("d41d8cd98f00b204e9800998ecf8427e")

# §6.2 field types: name -> (code, fixed value length or None for "any", or "x4" for lists of u32)
UINT, INT, BOOL, STRING, OBJECT, BYTES, STRING_LIST, DATE, BODY_REF, OBJECT_LIST = range(1, 11)
FIXED_LENGTH = {UINT: 8, INT: 8, BOOL: 1, STRING: 4, OBJECT: 4, DATE: 8, BODY_REF: 20}
LIST_TYPES = (STRING_LIST, OBJECT_LIST)      # 4 × n bytes

# §6.3 record classes: field key -> (type, required), in table order (the writer's field order).
CLASSES = {
    "Archive": {
        "created": (DATE, False),
        "creator": (STRING, False),
        "startURL": (STRING, False),
        "baseURL": (STRING, False),
        "metadata": (STRING_LIST, False),
    },
    "Request": {
        "method": (STRING, True),
        "url": (STRING, True),
        "headers": (STRING_LIST, False),
    },
    "Response": {
        "request": (OBJECT, True),
        "status": (UINT, True),
        "reason": (STRING, False),
        "headers": (STRING_LIST, False),
        "mimeType": (STRING, False),
        "textEncoding": (STRING, False),
        "body": (BODY_REF, True),
        "bodyLength": (UINT, True),
        "captureDate": (DATE, False),
    },
    "Redirect": {
        "request": (OBJECT, True),
        "status": (UINT, True),
        "target": (STRING, True),
        "headers": (STRING_LIST, False),
        "captureDate": (DATE, False),
    },
}
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
