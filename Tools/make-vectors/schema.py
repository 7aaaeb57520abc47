"""Constants of the webarc 2.1 format shared by the writer and the reader.

Section numbers refer to Spec/webarc-format.md.
"""

LEAD_MAGIC = b"\x89WEBARC\n"                 # §4.1
TRAILER_MAGIC = b"\x89WEBARCT"               # §4.2
END_MAGIC = b"\nTCRABEW"                     # §4.2 endMagic
APPENDIX_MAGIC = b"\nGISCRAW"                # §12.1
MAJOR = 2
LEAD_SIZE = 16
TRAILER_SIZE = 256
TRAILER_CHECK = 240                          # offset of trailerCheck in the trailer

# §4.4 feature bits
FEATURE_LAYER = 1 << 0
FEATURE_DICTIONARY = 1 << 1
FEATURE_DELTA = 1 << 2                       # since 2.1
FEATURE_GROUPED = 1 << 3                     # since 2.4: slices (§6.3) and codec 4 (§6.2)
SUPPORTED_FEATURES = FEATURE_LAYER | FEATURE_DICTIONARY | FEATURE_DELTA | FEATURE_GROUPED

# §5 pages
PAGE_REF_SIZE = 56
INTERIOR, RECORD_LEAF, BODY_LEAF, METADATA = 1, 2, 3, 4
RECORD_TREE, BODY_TREE = 1, 2
PAGE_TARGET = 65_536                         # Appendix C packing rule

# §6
CHUNK_ENTRY_SIZE = 56
BODY_ENTRY_HEAD = 68                         # md5 16, variant 4, flags 4, length 8, sha256 32, chunkCount 4
RAW, LZ4, LZ4_DICT, DELTA, ZSTD = 0, 1, 2, 3, 4     # codec 4 since 2.4
MAX_CHUNK = 262_144
MAX_GROUP = 2_097_152                        # a slice's chunk (§6.3), since 2.4
SLICE = 1                                    # body entry flags bit 0 (§6.3), since 2.4
DICTIONARY_SIZE = 65_536
EMPTY_MD5 = bytes.fromhex("d41d8cd98f00b204e9800998ecf8427e")
EMPTY_SHA256 = bytes.fromhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

# §10 bounds
MAX_PAGE = 4_194_304
MAX_COUNT = 1 << 40
MAX_BODY = 1 << 40
MAX_BODY_CHUNKS = 1 << 22
MAX_HEIGHT = 8
MAX_NESTING = 4
MAX_APPENDIX = 1_048_576
MAX_RATIO = 255

# §12
SIGNATURE_BLOCK = 1
SIGNATURE_BLOCK_LENGTH = 120
SIGNATURE_DOMAIN = b"webarc-signature-2\0".ljust(32, b"\0")

# §7.1 field types
UINT, INT, BOOL, STRING, OBJECT, BYTES, STRING_LIST, DATE, BODY_REF, OBJECT_LIST = range(1, 11)
FIXED_LENGTH = {UINT: 8, INT: 8, BOOL: 1, DATE: 8, BODY_REF: 20}

# §7.3 classes: field key -> (type, required), in table order (the writer's field order).
CLASSES = {
    "Archive": {
        "created": (DATE, False),
        "creator": (STRING, False),
        "startURL": (STRING, False),
        "baseURL": (STRING, False),
        "metadata": (STRING_LIST, False),
        "bases": (OBJECT_LIST, False),
        "writer": (OBJECT, False),
        "target": (OBJECT, False),
        "search": (BYTES, False),                  # since 2.2 (§17)
        "searchIndex": (BYTES, False),             # since 2.3 (§17: index version 2)
        "searchIndex3": (BYTES, False),            # since 2.5 (§17: index version 3)
        "searchIndex4": (BYTES, False),            # since 2.6 (§17: index version 4)
        "totals": (OBJECT, False),                 # since 2.2.2
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
    "Tombstone": {
        "request": (OBJECT, True),
        "captureDate": (DATE, False),
    },
    "Writer": {
        "level": (UINT, True),
        "dictionaryInterval": (UINT, True),
        "order": (BYTES, False),
        "zstdLevel": (UINT, False),
        "anchors": (UINT, False),
        "search": (UINT, False),                   # since 2.2 (§17.1)
        "dictionaryPlacement": (UINT, False),
    },
    "Target": {
        "digest": (BYTES, True),
        "archiveLength": (UINT, True),
        "archive": (OBJECT, True),
        "appendix": (BYTES, False),
        "bodyData": (BYTES, False),
    },
    "Totals": {                                    # since 2.2.2
        "responses": (UINT, True),
        "redirects": (UINT, True),
        "tombstones": (UINT, True),
        "responseBytes": (UINT, True),
        "bodyBytes": (UINT, True),
        "chunks": (UINT, True),
        "originCount": (UINT, True),
        "origins": (STRING_LIST, False),
        "baseBodyResponses": (UINT, False),
    },
    "Base": {
        "digest": (BYTES, True),
        "archiveLength": (UINT, True),
        "name": (STRING, False),
    },
}
# The class a nested object field must have.
NESTED_CLASS = {"request": "Request", "bases": "Base", "writer": "Writer", "target": "Target", "archive": "Archive",
                "totals": "Totals"}
LISTED_ORIGINS = 32                          # §7.3 Totals.origins: the first 32 origins


def key_origin(key: str) -> str | None:
    """§7.3 Totals: a record key's origin, its URL (after the first space) up to the first `/`
    after `://`; None without `://`."""
    url = key.split(" ", 1)[1] if " " in key else key
    at = url.find("://")
    if at < 0:
        return None
    end = url.find("/", at + 3)
    return url if end < 0 else url[:end]


def saturating(total: int) -> int:
    """§7.3 Totals: a sum that does not fit 64 bits is 2^64 - 1."""
    return min(total, (1 << 64) - 1)
RECORD_CLASSES = ("Response", "Redirect", "Tombstone")
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
