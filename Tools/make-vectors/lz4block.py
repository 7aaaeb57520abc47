"""LZ4 blocks through the system liblz4 (ctypes).

The Swift library links the same `liblz4.so.1`, so `compress` here yields the
very bytes the Swift writer stores (Appendix C: `LZ4_compress_default`,
acceleration 1, for chunks and pages).
"""

import ctypes

_lib = ctypes.CDLL("liblz4.so.1")
_lib.LZ4_compressBound.argtypes = [ctypes.c_int]
_lib.LZ4_compressBound.restype = ctypes.c_int
_lib.LZ4_compress_default.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
_lib.LZ4_compress_default.restype = ctypes.c_int
_lib.LZ4_decompress_safe.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
_lib.LZ4_decompress_safe.restype = ctypes.c_int
_lib.LZ4_decompress_safe_usingDict.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                               ctypes.c_char_p, ctypes.c_int]
_lib.LZ4_decompress_safe_usingDict.restype = ctypes.c_int
_lib.LZ4_createStream.restype = ctypes.c_void_p
_lib.LZ4_freeStream.argtypes = [ctypes.c_void_p]
_lib.LZ4_loadDict.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
_lib.LZ4_loadDict.restype = ctypes.c_int
_lib.LZ4_compress_fast_continue.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                            ctypes.c_int, ctypes.c_int]
_lib.LZ4_compress_fast_continue.restype = ctypes.c_int


def compress_bound(raw_length: int) -> int:
    """LZ4_compressBound: the largest block LZ4 can produce for `raw_length` bytes."""
    return _lib.LZ4_compressBound(raw_length)


def compress(data: bytes) -> bytes:
    """One LZ4 block of `data` (LZ4_compress_default, acceleration 1)."""
    capacity = compress_bound(len(data))
    out = ctypes.create_string_buffer(capacity)
    written = _lib.LZ4_compress_default(data, out, len(data), capacity)
    if written <= 0:
        raise RuntimeError("LZ4_compress_default failed")
    return out.raw[:written]


def compress_with_dict(data: bytes, dictionary: bytes, prefix: bool = False) -> bytes:
    """One LZ4 block of `data` that refers to `dictionary` (LZ4_loadDict + LZ4_compress_fast_continue,
    acceleration 1). `prefix` (`Writer.dictionaryPlacement` 1, since 2.1.8): the dictionary's bytes lie
    right before `data`'s in one buffer, so liblz4 compresses in its prefix mode; otherwise (absent or 0)
    apart, its external-dictionary mode. The two give the same block for most inputs, not all."""
    capacity = compress_bound(len(data))
    out = ctypes.create_string_buffer(capacity)
    if prefix:
        buffer = ctypes.create_string_buffer(dictionary + data, len(dictionary) + len(data))   # must outlive the call
        dict_at, data_at = ctypes.addressof(buffer), ctypes.addressof(buffer) + len(dictionary)
    else:
        dict_buffer = ctypes.create_string_buffer(dictionary, len(dictionary))
        data_buffer = ctypes.create_string_buffer(data, len(data))
        dict_at, data_at = ctypes.addressof(dict_buffer), ctypes.addressof(data_buffer)
    stream = _lib.LZ4_createStream()
    try:
        _lib.LZ4_loadDict(stream, dict_at, len(dictionary))
        written = _lib.LZ4_compress_fast_continue(stream, data_at, out, len(data), capacity, 1)
    finally:
        _lib.LZ4_freeStream(stream)
    if written <= 0:
        raise RuntimeError("LZ4_compress_fast_continue failed")
    return out.raw[:written]


def decompress(block: bytes, raw_length: int, dictionary: bytes | None = None) -> bytes | None:
    """Decode one LZ4 block that must expand to exactly `raw_length` bytes; None if it does not."""
    out = ctypes.create_string_buffer(max(raw_length, 1))
    if dictionary is None:
        produced = _lib.LZ4_decompress_safe(block, out, len(block), raw_length)
    else:
        produced = _lib.LZ4_decompress_safe_usingDict(block, out, len(block), raw_length, dictionary, len(dictionary))
    if produced != raw_length:
        return None
    return out.raw[:raw_length]
