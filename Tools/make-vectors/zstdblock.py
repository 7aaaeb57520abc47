"""Zstandard frames with a raw-content dictionary through the system libzstd (ctypes).

The Swift library's `CZstd` module links the same `libzstd.so.1` and makes the same calls, so
`compress_with_dict` here yields the very frames the Swift writer stores for a delta chunk
(codec 3, §6.2; Appendix C step 14: `ZSTD_compress_usingDict` at level 9 on a fresh context:
content size declared, no checksum, no dictionary ID; step 15: the same at the writer's Zstandard
level), and `decode` accepts and refuses the frames the Swift reader does.
"""

import ctypes
import struct

_lib = ctypes.CDLL("libzstd.so.1")
_size = ctypes.c_size_t
_lib.ZSTD_createCCtx.restype = ctypes.c_void_p
_lib.ZSTD_freeCCtx.argtypes = [ctypes.c_void_p]
_lib.ZSTD_createDCtx.restype = ctypes.c_void_p
_lib.ZSTD_freeDCtx.argtypes = [ctypes.c_void_p]
_lib.ZSTD_compressBound.argtypes = [_size]
_lib.ZSTD_compressBound.restype = _size
_lib.ZSTD_compress_usingDict.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _size, ctypes.c_char_p, _size,
                                         ctypes.c_char_p, _size, ctypes.c_int]
_lib.ZSTD_compress_usingDict.restype = _size
_lib.ZSTD_decompress_usingDict.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _size, ctypes.c_char_p, _size,
                                           ctypes.c_char_p, _size]
_lib.ZSTD_decompress_usingDict.restype = _size
_lib.ZSTD_isError.argtypes = [_size]
_lib.ZSTD_isError.restype = ctypes.c_uint
_lib.ZSTD_getFrameContentSize.argtypes = [ctypes.c_char_p, _size]
_lib.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
_lib.ZSTD_findFrameCompressedSize.argtypes = [ctypes.c_char_p, _size]
_lib.ZSTD_findFrameCompressedSize.restype = _size
_lib.ZSTD_getDictID_fromFrame.argtypes = [ctypes.c_char_p, _size]
_lib.ZSTD_getDictID_fromFrame.restype = ctypes.c_uint
# The advanced API that compact updates use (a raw-content prefix, parameters; compact.py).
_lib.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
_lib.ZSTD_CCtx_setParameter.restype = _size
_lib.ZSTD_CCtx_refPrefix.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _size]
_lib.ZSTD_CCtx_refPrefix.restype = _size
_lib.ZSTD_compress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _size, ctypes.c_char_p, _size]
_lib.ZSTD_compress2.restype = _size
_lib.ZSTD_DCtx_refPrefix.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _size]
_lib.ZSTD_DCtx_refPrefix.restype = _size
_lib.ZSTD_DCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
_lib.ZSTD_DCtx_setParameter.restype = _size
_lib.ZSTD_decompressDCtx.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _size, ctypes.c_char_p, _size]
_lib.ZSTD_decompressDCtx.restype = _size

libzstd = _lib                               # the declared library, shared with compact.py

FRAME_MAGIC = 0xFD2FB528                     # RFC 8878 §3.1.1, little-endian at the frame's start
DICTIONARY_MAGIC = b"\x37\xa4\x30\xec"       # a Zstandard dictionary starts with these bytes
DELTA_LEVEL = 9                              # Appendix C step 14


def compress_with_dict(data: bytes, dictionary: bytes, level: int = DELTA_LEVEL) -> bytes:
    """One frame of `data` with `dictionary` as raw content (ZSTD_compress_usingDict on a fresh context)."""
    assert not dictionary.startswith(DICTIONARY_MAGIC), "would be loaded as a Zstandard dictionary"
    capacity = _lib.ZSTD_compressBound(len(data))
    out = ctypes.create_string_buffer(capacity)
    cctx = _lib.ZSTD_createCCtx()
    try:
        written = _lib.ZSTD_compress_usingDict(cctx, out, capacity, data, len(data), dictionary, len(dictionary), level)
    finally:
        _lib.ZSTD_freeCCtx(cctx)
    if _lib.ZSTD_isError(written):
        raise RuntimeError("ZSTD_compress_usingDict failed")
    return out.raw[:written]


def frame_problem(frame: bytes, raw_length: int) -> str | None:
    """§6.2 codec 3: why `frame` is not exactly one Zstandard frame declaring `raw_length` bytes and
    no dictionary ID (None when it is)."""
    if len(frame) < 4 or struct.unpack_from("<I", frame)[0] != FRAME_MAGIC:
        return "not a Zstandard frame (magic number)"
    size = _lib.ZSTD_findFrameCompressedSize(frame, len(frame))
    if _lib.ZSTD_isError(size):
        return "the frame is cut short or malformed"
    if size != len(frame):
        return f"{len(frame) - size} bytes after the frame"
    content = _lib.ZSTD_getFrameContentSize(frame, len(frame))
    if content >= (1 << 64) - 2:
        return "the frame does not declare its content size"
    if content != raw_length:
        return f"the frame declares {content} bytes, not rawLength {raw_length}"
    if _lib.ZSTD_getDictID_fromFrame(frame, len(frame)) != 0:
        return "the frame declares a dictionary ID"
    return None


def decode(frame: bytes, raw_length: int, dictionary: bytes) -> bytes | None:
    """The frame decoded in one call into a `raw_length` buffer with `dictionary` as history; None
    when it is not exactly `raw_length` bytes."""
    out = ctypes.create_string_buffer(max(raw_length, 1))
    dctx = _lib.ZSTD_createDCtx()
    try:
        produced = _lib.ZSTD_decompress_usingDict(dctx, out, raw_length, frame, len(frame), dictionary, len(dictionary))
    finally:
        _lib.ZSTD_freeDCtx(dctx)
    if _lib.ZSTD_isError(produced) or produced != raw_length:
        return None
    return out.raw[:raw_length]


def frame_header(frame: bytes) -> tuple[int, int, int, int]:
    """(descriptor position, position of the dictionary ID field, position of the content size field,
    its size) of a frame (RFC 8878 §3.1.1.1), for crafting invalid frames."""
    descriptor = frame[4]
    fcs_flag, single, did_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    at = 5 + (0 if single else 1)
    did_at = at
    at += (0, 1, 2, 4)[did_flag]
    fcs_size = (1 if single else 0, 2, 4, 8)[fcs_flag]
    return 4, did_at, at, fcs_size


def with_window(frame: bytes, exponent: int, mantissa: int) -> bytes:
    """`frame` with its header declaring Window_Descriptor (exponent, mantissa), RFC 8878 §3.1.1.1.2:
    Window_Log = 10 + exponent; a Single_Segment frame loses that flag and gains the descriptor byte.
    The blocks are unchanged (for the window vectors: a reader decodes in one call, whatever the window)."""
    descriptor = frame[4]
    assert descriptor >> 6 >= 1, "a content size of 2 bytes or more (a 1-byte one exists only in a single segment)"
    window = bytes([(exponent << 3) | mantissa])
    if (descriptor >> 5) & 1:
        return frame[:4] + bytes([descriptor & ~0x20]) + window + frame[5:]
    return frame[:5] + window + frame[6:]
