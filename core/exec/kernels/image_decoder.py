"""ImageDecoder (opset 20) with numpy and the standard library only.

Decoded: PNG (every colour type and bit depth, Adam7 interlacing), BMP
(1/4/8-bit palettes, 16/24/32-bit, bit fields), PNM (P1-P6) and TIFF
(uncompressed, PackBits, LZW or Deflate strips; grey, palette, RGB), and
baseline JPEG through `_jpeg`. Progressive JPEG, JPEG 2000, WebP, GIF,
JPEG-compressed TIFF and other variants those decoders do not implement go
to Pillow when it is installed (`_codec`), else fail with an error naming
the format and what to install.

The output is always 8-bit: 16-bit samples keep their high byte (Pillow,
the ONNX reference, clips them to 255 instead, which loses the image);
alpha is dropped. Images Pillow decodes follow Pillow's conversion to RGB.
Grayscale uses ITU-R 601 luma in Pillow's fixed point.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

from ..registry import kernel
from ._codec import NeedsCodec, decode_with_pillow
from ._jpeg import decode_jpeg

# -- PNG ---------------------------------------------------------------------


def _unfilter(data, pos, height, stride, bpp):
    """Undo PNG's per-row filters; returns ((height, stride) uint8, next pos)."""
    rows = np.frombuffer(data, np.uint8, count=height * (stride + 1), offset=pos).reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        kind, raw = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            line = raw
        elif kind == 2:
            line = (raw + prev) & 0xFF
        elif kind == 1:   # running sum per byte position: vectorised
            line = (np.cumsum(raw.reshape(-1, bpp), axis=0) & 0xFF).reshape(-1)
        elif kind in (3, 4):
            line = _predicted_row(raw.tolist(), prev.tolist(), bpp, kind == 4)
        else:
            raise ValueError(f"PNG: unknown row filter {kind}")
        out[y] = line
        prev = out[y].astype(np.int32)
    return out, pos + height * (stride + 1)


def _predicted_row(raw, prev, bpp, paeth):
    # Average and Paeth predict from the byte just decoded: a Python loop,
    # paid only by the rows that use these filters.
    out = raw
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        if paeth:
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        else:
            pred = (a + prev[i]) >> 1
        out[i] = (out[i] + pred) & 0xFF
    return np.array(out, np.int32)


def _samples(rows, width, depth, channels, big_endian=True):
    """Unpack (h, stride) bytes into (h, width, channels) samples (uint16 for 16 bits)."""
    h = rows.shape[0]
    if depth == 16:
        raw = np.ascontiguousarray(rows[:, :width * channels * 2])
        return raw.view(">u2" if big_endian else "<u2").reshape(h, width, channels).astype(np.uint16)
    if depth == 8:
        return rows[:, :width * channels].reshape(h, width, channels)
    if depth not in (1, 2, 4):
        raise ValueError(f"{depth}-bit samples are not supported")
    bits = np.unpackbits(rows, axis=1).reshape(h, -1, depth)[:, :width * channels]
    values = (bits * (1 << np.arange(depth - 1, -1, -1, dtype=np.uint8))).sum(-1, dtype=np.uint8)
    return values.reshape(h, width, channels)


_ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def _png(buf):
    pos, idat, palette = 8, [], None
    while pos + 8 <= len(buf):
        length, kind = struct.unpack(">I4s", buf[pos:pos + 8])
        body = buf[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits = depth * channels
    data = zlib.decompress(b"".join(idat))
    img = np.zeros((height, width, channels), np.uint16 if depth == 16 else np.uint8)
    passes = _ADAM7 if interlace else [(0, 0, 1, 1)]
    pos = 0
    for x0, y0, dx, dy in passes:
        w, h = -(-(width - x0) // dx), -(-(height - y0) // dy)
        if w <= 0 or h <= 0:
            continue    # an empty pass stores no rows at all
        rows, pos = _unfilter(data, pos, h, (w * bits + 7) // 8, max(bits // 8, 1))
        img[y0::dy, x0::dx] = _samples(rows, w, depth, channels)
    if ctype == 3:
        return palette[img[..., 0]]
    img = _to_8bit(img, depth)
    return img[..., :3] if ctype in (2, 6) else np.repeat(img[..., :1], 3, axis=2)   # alpha dropped


def _to_8bit(samples, depth):
    if depth == 16:
        return (samples >> 8).astype(np.uint8)
    if depth < 8:    # stretch grey levels 0..2^d-1 over 0..255
        return (samples.astype(np.uint16) * 255 // ((1 << depth) - 1)).astype(np.uint8)
    return samples.astype(np.uint8)


# -- BMP ---------------------------------------------------------------------


def _bmp(buf):
    offset, header = struct.unpack("<I", buf[10:14])[0], struct.unpack("<I", buf[14:18])[0]
    if header == 12:   # OS/2 1.x: 16-bit sizes, 3-byte palette entries
        width, height, _, bits = struct.unpack("<HHHH", buf[18:26])
        compression, colors, entry = 0, 0, 3
    else:
        width, height, _, bits, compression = struct.unpack("<iiHHI", buf[18:34])
        colors, entry = struct.unpack("<I", buf[46:50])[0], 4
    if compression not in (0, 3, 6):
        kind = {1: "RLE8", 2: "RLE4", 4: "JPEG", 5: "PNG"}.get(compression, f"type {compression}")
        raise NeedsCodec(f"a {kind}-compressed BMP image")
    rows = abs(height)
    stride = ((width * bits + 31) // 32) * 4
    data = np.frombuffer(buf, np.uint8, count=stride * rows, offset=offset).reshape(rows, stride)
    if bits <= 8:
        table = np.frombuffer(buf, np.uint8, count=(colors or 1 << bits) * entry,
                              offset=14 + header).reshape(-1, entry)
        img = table[_samples(data, width, bits, 1)[..., 0]][:, :, 2::-1]
    elif bits == 24:
        img = data[:, :width * 3].reshape(rows, width, 3)[:, :, ::-1]
    elif bits in (16, 32):
        img = _bit_fields(buf, data, width, bits, header, compression)
    else:
        raise NeedsCodec(f"a {bits}-bit BMP image")
    # A positive height means the rows are stored bottom-up.
    return img[::-1] if height > 0 else img


def _bit_fields(buf, data, width, bits, header, compression):
    if compression in (3, 6):   # masks inside a V4/V5 header or right after the 40-byte one
        masks = struct.unpack("<III", buf[54:66])
    else:
        masks = (0x7C00, 0x03E0, 0x001F) if bits == 16 else (0xFF0000, 0xFF00, 0xFF)
    words = np.ascontiguousarray(data[:, :width * bits // 8]).view("<u2" if bits == 16 else "<u4")
    words = words.astype(np.uint64)
    channels = []
    for mask in masks:
        shift = (mask & -mask).bit_length() - 1
        top = mask >> shift
        channels.append((words >> shift & top) * 255 // max(top, 1))
    return np.stack(channels, axis=-1).astype(np.uint8)


# -- PNM ---------------------------------------------------------------------


def _pnm(buf):
    kind = buf[1] - ord("0")
    count = 2 if kind in (1, 4) else 3
    tokens, pos = [], 2
    while len(tokens) < count:
        while buf[pos:pos + 1].isspace():
            pos += 1
        if buf[pos:pos + 1] == b"#":
            pos = buf.index(b"\n", pos) + 1
            continue
        end = pos
        while buf[end:end + 1] and not buf[end:end + 1].isspace():
            end += 1
        tokens.append(int(buf[pos:end]))
        pos = end
    width, height = tokens[:2]
    maxval = tokens[2] if count == 3 else 1
    channels = 3 if kind in (3, 6) else 1
    n = width * height * channels
    if kind == 4:
        rows = np.frombuffer(buf, np.uint8, count=height * ((width + 7) // 8), offset=pos + 1)
        values = _samples(rows.reshape(height, -1), width, 1, 1)
    elif kind == 1:   # plain bitmap: the digits need not be separated
        digits = [c - 48 for c in buf[pos:] if c in b"01"]
        values = np.array(digits[:n], np.uint8)
    elif kind in (2, 3):
        values = np.array(buf[pos:].split()[:n], dtype=np.uint32)
    else:
        values = np.frombuffer(buf, np.uint8 if maxval < 256 else ">u2", count=n, offset=pos + 1)
    values = values.reshape(height, width, channels)
    if kind in (1, 4):    # in a bitmap 1 is black
        return np.repeat(np.where(values == 1, 0, 255).astype(np.uint8), 3, axis=2)
    if maxval == 65535:
        values = _to_8bit(values, 16)
    elif maxval != 255:
        values = values.astype(np.uint32) * 255 // maxval
    values = values.astype(np.uint8)
    return values if channels == 3 else np.repeat(values, 3, axis=2)


# -- TIFF --------------------------------------------------------------------


def _packbits(data):
    out, i = bytearray(), 0
    while i < len(data):
        n = data[i] - 256 if data[i] > 127 else data[i]
        if n >= 0:
            out += data[i + 1:i + 2 + n]
            i += n + 2
        else:
            if n != -128:
                out += data[i + 1:i + 2] * (1 - n)
            i += 2
    return bytes(out)


def _lzw(data):
    """TIFF LZW: MSB-first codes of 9 to 12 bits, widened one code early."""
    out, table, prev = bytearray(), [], None
    width, acc, held, i = 9, 0, 0, 0
    while True:
        while held < width and i < len(data):
            acc, held, i = (acc << 8) | data[i], held + 8, i + 1
        if held < width:
            break
        held -= width
        code = (acc >> held) & ((1 << width) - 1)
        acc &= (1 << held) - 1
        if code == 256:
            table, prev, width = [bytes([c]) for c in range(256)] + [b"", b""], None, 9
            continue
        if code == 257:
            break
        if prev is None:
            entry = table[code]
        else:
            entry = table[code] if code < len(table) else prev + prev[:1]
            table.append(prev + entry[:1])
        out += entry
        prev = entry
        if len(table) + 1 >= 1 << width and width < 12:
            width += 1
    return bytes(out)


_TIFF_CODECS = {1: lambda d: d, 5: _lzw, 8: zlib.decompress, 32946: zlib.decompress, 32773: _packbits}
_TIFF_NAMES = {2: "CCITT", 3: "CCITT G3", 4: "CCITT G4", 6: "old-style JPEG", 7: "JPEG", 34712: "JPEG 2000",
               50001: "WebP", 34887: "LERC", 50000: "ZSTD", 34925: "LZMA"}


def _tiff_tags(buf, order):
    ifd = struct.unpack(order + "I", buf[4:8])[0]
    count = struct.unpack(order + "H", buf[ifd:ifd + 2])[0]
    tags, sizes = {}, {1: ("B", 1), 3: ("H", 2), 4: ("I", 4)}
    for i in range(count):
        tag, typ, n, raw = struct.unpack(order + "HHI4s", buf[ifd + 2 + 12 * i:ifd + 14 + 12 * i])
        fmt, size = sizes.get(typ, ("I", 4))
        where = raw if n * size <= 4 else buf[struct.unpack(order + "I", raw)[0]:][:n * size]
        tags[tag] = list(struct.unpack(order + fmt * n, where[:n * size]))
    return tags


def _tiff(buf):
    order = "<" if buf[:2] == b"II" else ">"
    tags = _tiff_tags(buf, order)
    compression = tags.get(259, [1])[0]
    if compression not in _TIFF_CODECS:
        name = _TIFF_NAMES.get(compression, f"type {compression}")
        raise NeedsCodec(f"a {name}-compressed TIFF image")
    if 322 in tags or tags.get(284, [1])[0] != 1:
        raise NeedsCodec("a tiled or planar TIFF image")
    width, height = tags[256][0], tags[257][0]
    channels, depth = tags.get(277, [1])[0], tags.get(258, [1])[0]
    photometric = tags.get(262, [1])[0]
    if photometric not in (0, 1, 2, 3):
        raise NeedsCodec(f"a TIFF image with photometric interpretation {photometric} (CMYK, YCbCr, ...)")
    decode = _TIFF_CODECS[compression]
    data = b"".join(decode(buf[o:o + c]) for o, c in zip(tags[273], tags[279]))
    stride = (width * channels * depth + 7) // 8
    rows = np.frombuffer(data, np.uint8, count=stride * height).reshape(height, stride)
    img = _samples(rows, width, depth, channels, big_endian=order == ">")
    if tags.get(317, [1])[0] == 2:    # horizontal differencing, modulo the sample size
        img = np.cumsum(img, axis=1, dtype=img.dtype)
    if photometric == 3:
        cmap = np.array(tags[320], np.uint16).reshape(3, -1).T
        return (cmap[img[..., 0]] >> 8).astype(np.uint8)
    if photometric == 0:   # WhiteIsZero
        img = ((1 << depth) - 1 - img.astype(np.uint32)).astype(img.dtype)
    img = _to_8bit(img, depth)
    return img[..., :3] if photometric == 2 else np.repeat(img[..., :1], 3, axis=2)


# -- dispatch ----------------------------------------------------------------

_NEEDS_CODEC = [(b"\xffO\xffQ", "JPEG 2000"), (b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
                (b"GIF8", "GIF")]


_DECODERS = [
    ("PNG", lambda b: b[:8] == b"\x89PNG\r\n\x1a\n", _png),
    ("BMP", lambda b: b[:2] == b"BM", _bmp),
    ("PNM", lambda b: len(b) > 2 and b[:1] == b"P" and b[1:2] in b"123456", _pnm),
    ("TIFF", lambda b: b[:4] in (b"II*\x00", b"MM\x00*"), _tiff),
    ("JPEG", lambda b: b[:2] == b"\xff\xd8", decode_jpeg),
]


def _decode_rgb(buf):
    for name, matches, decode in _DECODERS:
        if not matches(buf):
            continue
        try:
            return decode(buf)
        except NeedsCodec as e:
            return decode_with_pillow(buf, e.what)
        except (ValueError, IndexError, KeyError, struct.error, zlib.error) as e:
            if str(e).startswith("ImageDecoder:"):
                raise
            # Truncated or corrupted files fail deep inside a decoder; say
            # which format was being read instead of a bare numpy message.
            raise ValueError(f"ImageDecoder: cannot decode this {name} image, it is truncated, corrupted "
                             f"or uses an unsupported variant ({type(e).__name__}: {e})") from e
    name = next((n for magic, n in _NEEDS_CODEC if buf.startswith(magic)), None)
    if buf[:4] == b"RIFF" and buf[8:12] == b"WEBP":
        name = "WebP"
    return decode_with_pillow(buf, f"a {name} image" if name else "image data in an unrecognised format")


def _to_format(rgb, pixel_format):
    if pixel_format == "RGB":
        return rgb
    if pixel_format == "BGR":
        return np.ascontiguousarray(rgb[..., ::-1])
    if pixel_format == "Grayscale":
        r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
        return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)[..., None]
    raise ValueError(f"pixel_format must be 'RGB', 'BGR' or 'Grayscale', got {pixel_format!r}")


@kernel("ImageDecoder", since=20)
def image_decoder(encoded_stream, pixel_format="RGB"):
    if pixel_format not in ("RGB", "BGR", "Grayscale"):
        raise ValueError(f"pixel_format must be 'RGB', 'BGR' or 'Grayscale', got {pixel_format!r}")
    buf = np.asarray(encoded_stream, dtype=np.uint8).tobytes()
    rgb = _decode_rgb(buf)
    return _to_format(np.ascontiguousarray(rgb, dtype=np.uint8), pixel_format)
