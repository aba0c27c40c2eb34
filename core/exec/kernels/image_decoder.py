"""ImageDecoder with numpy and the standard library only: PNG (zlib), BMP,
PNM and uncompressed TIFF. JPEG, JPEG 2000 and WebP need real codecs and are
refused with a clear error."""
from __future__ import annotations

import struct
import zlib

import numpy as np

from ..registry import kernel


def _paeth_row(raw, prev, bpp):
    # Paeth and Average depend on the pixel just decoded: a byte loop, but
    # only for rows using those filters.
    out, prev = bytearray(raw), prev.tolist()    # Python ints: no uint8 overflow
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        out[i] = (out[i] + pred) & 0xFF
    return np.frombuffer(bytes(out), np.uint8)


def _average_row(raw, prev, bpp):
    out, prev = bytearray(raw), prev.tolist()
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + ((a + prev[i]) >> 1)) & 0xFF
    return np.frombuffer(bytes(out), np.uint8)


def _sub_row(raw, bpp):
    # Running sum per byte position modulo 256, vectorised.
    cols = raw.reshape(-1, bpp).astype(np.uint32)
    return (np.cumsum(cols, axis=0) & 0xFF).astype(np.uint8).reshape(-1)


def _unfilter(data, height, stride, bpp):
    rows = np.frombuffer(data, np.uint8)[:height * (stride + 1)].reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.uint8)
    for y in range(height):
        kind, raw = rows[y, 0], rows[y, 1:]
        if kind == 0:
            line = raw
        elif kind == 1:
            line = _sub_row(raw, bpp)
        elif kind == 2:
            line = raw + prev
        elif kind == 3:
            line = _average_row(raw, prev, bpp)
        elif kind == 4:
            line = _paeth_row(raw, prev, bpp)
        else:
            raise ValueError(f"PNG: unknown filter {kind}")
        out[y] = line
        prev = out[y]
    return out


def _png(buf):
    pos, idat, palette, trns = 8, [], None, None
    while pos < len(buf):
        length, kind = struct.unpack(">I4s", buf[pos:pos + 8])
        body = buf[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if interlace:
        raise ValueError("ImageDecoder: interlaced PNG is not supported")
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits = depth * channels
    stride = (width * bits + 7) // 8
    pixels = _unfilter(zlib.decompress(b"".join(idat)), height, stride, max(bits // 8, 1))
    if depth == 16:
        # Keep the high byte, as 8-bit decoders do.
        img = pixels.reshape(height, width, channels * 2)[:, :, 0::2]
    elif depth < 8:
        img = np.unpackbits(pixels, axis=1).reshape(height, -1, depth)[:, :width]
        img = (img * (1 << np.arange(depth - 1, -1, -1))).sum(-1).astype(np.uint8)[..., None]
        if ctype == 0:
            img = (img.astype(np.uint16) * 255 // ((1 << depth) - 1)).astype(np.uint8)
    else:
        img = pixels.reshape(height, width, channels)
    if ctype == 3:
        return palette[img[..., 0]]
    if ctype in (4, 6):
        img = img[..., :-1]           # drop alpha: the output has no alpha
    return img if ctype != 0 and ctype != 4 else np.repeat(img, 3, axis=2)


def _bmp(buf):
    offset = struct.unpack("<I", buf[10:14])[0]
    width, height, _, bits, compression = struct.unpack("<iiHHI", buf[18:34])
    if compression not in (0, 3):
        raise ValueError("ImageDecoder: compressed BMP is not supported")
    rows = abs(height)
    stride = ((width * bits + 31) // 32) * 4
    data = np.frombuffer(buf, np.uint8, count=stride * rows, offset=offset).reshape(rows, stride)
    if bits in (24, 32):
        img = data[:, :width * bits // 8].reshape(rows, width, bits // 8)[:, :, 2::-1]
    elif bits == 8:
        header = struct.unpack("<I", buf[14:18])[0]
        colors = struct.unpack("<I", buf[46:50])[0] or 256
        table = np.frombuffer(buf, np.uint8, count=colors * 4, offset=14 + header).reshape(-1, 4)
        img = table[data[:, :width]][:, :, 2::-1]
    else:
        raise ValueError(f"ImageDecoder: {bits}-bit BMP is not supported")
    # Positive height means the rows are stored bottom-up.
    return np.ascontiguousarray(img[::-1] if height > 0 else img)


def _pnm(buf):
    tokens, pos = [], 2
    while len(tokens) < 3:
        while buf[pos:pos + 1].isspace():
            pos += 1
        if buf[pos:pos + 1] == b"#":
            pos = buf.index(b"\n", pos) + 1
            continue
        end = pos
        while not buf[end:end + 1].isspace():
            end += 1
        tokens.append(int(buf[pos:end]))
        pos = end
    width, height, maxval = tokens
    channels = 3 if buf[:2] == b"P6" else 1
    data = np.frombuffer(buf, np.uint8 if maxval < 256 else ">u2", count=width * height * channels,
                         offset=pos + 1).reshape(height, width, channels)
    if maxval != 255:
        data = (data.astype(np.uint32) * 255 // maxval).astype(np.uint8)
    return data if channels == 3 else np.repeat(data, 3, axis=2)


def _tiff(buf):
    order = "<" if buf[:2] == b"II" else ">"
    ifd = struct.unpack(order + "I", buf[4:8])[0]
    count = struct.unpack(order + "H", buf[ifd:ifd + 2])[0]
    tags = {}
    sizes = {3: ("H", 2), 4: ("I", 4)}
    for i in range(count):
        tag, typ, n, raw = struct.unpack(order + "HHI4s", buf[ifd + 2 + 12 * i:ifd + 14 + 12 * i])
        fmt, size = sizes.get(typ, ("I", 4))
        where = raw if n * size <= 4 else buf[struct.unpack(order + "I", raw)[0]:][:n * size]
        tags[tag] = list(struct.unpack(order + fmt * n, where[:n * size]))
    if tags.get(259, [1])[0] != 1 or tags.get(284, [1])[0] != 1:
        raise ValueError("ImageDecoder: only uncompressed, chunky TIFF is supported")
    width, height = tags[256][0], tags[257][0]
    channels = tags.get(277, [1])[0]
    data = b"".join(buf[o:o + c] for o, c in zip(tags[273], tags[279]))
    img = np.frombuffer(data, np.uint8, count=width * height * channels).reshape(height, width, channels)
    return img[..., :3] if channels >= 3 else np.repeat(img, 3, axis=2)


def _to_format(rgb, pixel_format):
    if pixel_format == "RGB":
        return rgb
    if pixel_format == "BGR":
        return np.ascontiguousarray(rgb[..., ::-1])
    if pixel_format == "Grayscale":
        # ITU-R 601-2 luma in 16-bit fixed point with rounding.
        r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
        return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)[..., None]
    raise ValueError(f"unknown pixel_format {pixel_format!r}")


@kernel("ImageDecoder", since=20)
def image_decoder(encoded_stream, pixel_format="RGB"):
    buf = np.asarray(encoded_stream, dtype=np.uint8).tobytes()
    if buf[:8] == b"\x89PNG\r\n\x1a\n":
        rgb = _png(buf)
    elif buf[:2] == b"BM":
        rgb = _bmp(buf)
    elif buf[:2] in (b"P5", b"P6"):
        rgb = _pnm(buf)
    elif buf[:4] in (b"II*\x00", b"MM\x00*"):
        rgb = _tiff(buf)
    else:
        raise ValueError("ImageDecoder: only PNG, BMP, PNM and uncompressed TIFF can be decoded "
                         "without an image codec (JPEG, JPEG 2000 and WebP cannot)")
    return _to_format(np.ascontiguousarray(rgb, dtype=np.uint8), pixel_format)
