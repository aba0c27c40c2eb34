"""Baseline (sequential, Huffman, 8-bit) JPEG decoding with numpy, giving the
same pixels as libjpeg-turbo's defaults (what Pillow uses): the accurate
integer IDCT (Loeffler-Ligtenberg-Moschytz, 13-bit constants, 2 extra bits
between passes), triangle-filter ("fancy") chroma upsampling and 16-bit
fixed-point YCbCr->RGB. Progressive and arithmetic-coded files are refused."""
from __future__ import annotations

import struct

import numpy as np

from ._codec import NeedsCodec

# Position in the 8x8 block (row-major) of the k-th coefficient in file order.
ZIGZAG = np.array([
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27,
    20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58,
    59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63])

CONST_BITS, PASS1_BITS = 13, 2


def _fix(x):
    return int(round(x * (1 << CONST_BITS)))


def _huffman_lut(counts, symbols):
    """16-bit lookahead table: code prefix -> (symbol, code length)."""
    sym = np.zeros(1 << 16, np.int32)
    length = np.zeros(1 << 16, np.int32)
    code, k = 0, 0
    for n in range(1, 17):
        for _ in range(counts[n - 1]):
            lo = code << (16 - n)
            hi = (code + 1) << (16 - n)
            sym[lo:hi], length[lo:hi] = symbols[k], n
            code, k = code + 1, k + 1
        code <<= 1
    return sym.tolist(), length.tolist()


class _Bits:
    def __init__(self, data: bytes):
        self.data = data + b"\0\0\0\0"
        self.pos = 0                      # in bits

    def peek16(self):
        i, off = self.pos >> 3, self.pos & 7
        d = self.data
        return (((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]) >> (8 - off)) & 0xFFFF

    def take(self, n):
        if n == 0:
            return 0
        v = self.peek16() >> (16 - n)
        self.pos += n
        # A value whose top bit is 0 is negative (JPEG's "extend").
        return v if v >= 1 << (n - 1) else v - (1 << n) + 1

    def symbol(self, lut):
        p = self.peek16()
        self.pos += lut[1][p]
        return lut[0][p]


def _segments(buf, pos):
    """Entropy-coded data from pos: byte stuffing removed, split at RST markers;
    returns (segments, position of the next marker)."""
    out, segments, i = bytearray(), [], pos
    while True:
        j = buf.index(b"\xff", i)
        out += buf[i:j]
        nxt = buf[j + 1]
        if nxt == 0:
            out.append(0xFF)
            i = j + 2
        elif 0xD0 <= nxt <= 0xD7:
            segments.append(bytes(out))
            out, i = bytearray(), j + 2
        elif nxt == 0xFF:
            i = j + 1
        else:
            segments.append(bytes(out))
            return segments, j


def _idct_islow(blocks):
    """blocks: int64 [n, 8, 8] dequantized coefficients -> uint8 samples."""
    def one_pass(c, shift, axis):
        v = [np.take(c, i, axis=axis) for i in range(8)]
        z1 = (v[2] + v[6]) * _fix(0.541196100)
        tmp2 = z1 + v[6] * -_fix(1.847759065)
        tmp3 = z1 + v[2] * _fix(0.765366865)
        tmp0 = (v[0] + v[4]) << CONST_BITS
        tmp1 = (v[0] - v[4]) << CONST_BITS
        t10, t13, t11, t12 = tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2
        o0, o1, o2, o3 = v[7], v[5], v[3], v[1]
        z1, z2, z3, z4 = o0 + o3, o1 + o2, o0 + o2, o1 + o3
        z5 = (z3 + z4) * _fix(1.175875602)
        o0, o1, o2, o3 = (o0 * _fix(0.298631336), o1 * _fix(2.053119869),
                          o2 * _fix(3.072711026), o3 * _fix(1.501321110))
        z1, z2 = z1 * -_fix(0.899976223), z2 * -_fix(2.562915447)
        z3, z4 = z3 * -_fix(1.961570560) + z5, z4 * -_fix(0.390180644) + z5
        o0, o1, o2, o3 = o0 + z1 + z3, o1 + z2 + z4, o2 + z2 + z3, o3 + z1 + z4
        rnd = 1 << (shift - 1)
        outs = [t10 + o3, t11 + o2, t12 + o1, t13 + o0, t13 - o0, t12 - o1, t11 - o2, t10 - o3]
        return np.stack([(o + rnd) >> shift for o in outs], axis=axis)
    cols = one_pass(blocks, CONST_BITS - PASS1_BITS, 1)          # down each column
    rows = one_pass(cols, CONST_BITS + PASS1_BITS + 3, 2)        # along each row
    return np.clip(rows + 128, 0, 255).astype(np.uint8)


def _fancy_h2v2(p):
    """Double a chroma plane both ways with libjpeg's triangle filter."""
    p = p.astype(np.int32)
    up = np.vstack([p[:1], p[:-1]])          # the row above (edge repeated)
    down = np.vstack([p[1:], p[-1:]])
    rows = np.empty((2 * p.shape[0], p.shape[1]), np.int32)
    rows[0::2], rows[1::2] = 3 * p + up, 3 * p + down
    left = np.hstack([rows[:, :1], rows[:, :-1]])
    right = np.hstack([rows[:, 1:], rows[:, -1:]])
    out = np.empty((rows.shape[0], 2 * rows.shape[1]), np.int32)
    out[:, 0::2] = (3 * rows + left + 8) >> 4
    out[:, 1::2] = (3 * rows + right + 7) >> 4
    out[:, 0] = (4 * rows[:, 0] + 8) >> 4
    out[:, -1] = (4 * rows[:, -1] + 7) >> 4
    return out


def _fancy_h2v1(p):
    p = p.astype(np.int32)
    left = np.hstack([p[:, :1], p[:, :-1]])
    right = np.hstack([p[:, 1:], p[:, -1:]])
    out = np.empty((p.shape[0], 2 * p.shape[1]), np.int32)
    out[:, 0::2] = (3 * p + left + 1) >> 2
    out[:, 1::2] = (3 * p + right + 2) >> 2
    out[:, 0], out[:, -1] = p[:, 0], p[:, -1]
    return out


def _ycc_to_rgb(y, cb, cr):
    y = y.astype(np.int32)
    cb, cr = cb.astype(np.int32) - 128, cr.astype(np.int32) - 128
    half, bits = 1 << 15, 16
    r = y + ((int(round(1.40200 * 65536)) * cr + half) >> bits)
    b = y + ((int(round(1.77200 * 65536)) * cb + half) >> bits)
    g = y + ((-int(round(0.34414 * 65536)) * cb + half - int(round(0.71414 * 65536)) * cr) >> bits)
    return np.clip(np.stack([r, g, b], axis=-1), 0, 255).astype(np.uint8)


def decode_jpeg(buf: bytes) -> np.ndarray:
    """RGB (or, for one component, gray repeated) uint8 [H, W, 3]."""
    qt, dc_tables, ac_tables, restart = {}, {}, {}, 0
    comps, planes, pos = [], {}, 2
    while pos < len(buf):
        if buf[pos] != 0xFF:
            raise ValueError("JPEG: marker expected")
        marker = buf[pos + 1]
        if marker == 0xD9:
            break
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        length = struct.unpack(">H", buf[pos + 2:pos + 4])[0]
        seg = buf[pos + 4:pos + 2 + length]
        if marker == 0xDB:
            i = 0
            while i < len(seg):
                wide, tid = seg[i] >> 4, seg[i] & 15
                n = 128 if wide else 64
                table = np.frombuffer(seg[i + 1:i + 1 + n], ">u2" if wide else np.uint8).astype(np.int64)
                qt[tid] = np.zeros(64, np.int64)
                qt[tid][ZIGZAG] = table
                i += 1 + n
        elif marker == 0xC4:
            i = 0
            while i < len(seg):
                cls, tid = seg[i] >> 4, seg[i] & 15
                counts = list(seg[i + 1:i + 17])
                symbols = list(seg[i + 17:i + 17 + sum(counts)])
                (ac_tables if cls else dc_tables)[tid] = _huffman_lut(counts, symbols)
                i += 17 + sum(counts)
        elif marker == 0xDD:
            restart = struct.unpack(">H", seg[:2])[0]
        elif marker in (0xC0, 0xC1):
            precision, height, width, n = struct.unpack(">BHHB", seg[:6])
            if precision != 8:
                raise NeedsCodec(f"a {precision}-bit JPEG image")
            comps = [dict(id=seg[6 + 3 * k], h=seg[7 + 3 * k] >> 4, v=seg[7 + 3 * k] & 15, q=seg[8 + 3 * k])
                     for k in range(n)]
            hmax, vmax = max(c["h"] for c in comps), max(c["v"] for c in comps)
            mcux, mcuy = -(-width // (8 * hmax)), -(-height // (8 * vmax))
            for c in comps:
                c["bw"], c["bh"] = mcux * c["h"], mcuy * c["v"]
                c["coef"] = np.zeros((c["bh"], c["bw"], 64), np.int64)
        elif 0xC2 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            raise NeedsCodec("a progressive or arithmetic-coded JPEG image")
        elif marker == 0xDA:
            pos = _scan(buf, pos + 2 + length, seg, comps, dc_tables, ac_tables, restart,
                        (width, height, hmax, vmax))
            continue
        pos += 2 + length
    for c in comps:
        blocks = c["coef"].reshape(-1, 64) * qt[c["q"]]
        pixels = _idct_islow(blocks.reshape(-1, 8, 8))
        plane = pixels.reshape(c["bh"], c["bw"], 8, 8).transpose(0, 2, 1, 3).reshape(c["bh"] * 8, c["bw"] * 8)
        # The component's own size; what lies beyond is block padding.
        cw, ch = -(-width * c["h"] // hmax), -(-height * c["v"] // vmax)
        planes[c["id"]] = (plane[:ch, :cw], hmax // c["h"], vmax // c["v"])
    if len(comps) == 1:
        gray = planes[comps[0]["id"]][0]
        return np.repeat(gray[:height, :width, None], 3, axis=2)
    full = []
    for c in comps[:3]:
        plane, fx, fy = planes[c["id"]]
        if (fx, fy) == (2, 2):
            plane = _fancy_h2v2(plane)
        elif (fx, fy) == (2, 1):
            plane = _fancy_h2v1(plane)
        elif (fx, fy) != (1, 1):
            plane = np.repeat(np.repeat(plane, fy, axis=0), fx, axis=1)
        full.append(plane[:height, :width])
    return _ycc_to_rgb(*full)


def _scan(buf, pos, header, comps, dc_tables, ac_tables, restart, frame):
    width, height, hmax, vmax = frame
    ns = header[0]
    by_id = {c["id"]: c for c in comps}
    members = []
    for k in range(ns):
        c = by_id[header[1 + 2 * k]]
        sel = header[2 + 2 * k]
        members.append((c, dc_tables[sel >> 4], ac_tables[sel & 15]))
    if ns == 1:
        # A single-component scan walks that component's own block grid.
        c = members[0][0]
        cols = -(-(-(-width * c["h"] // hmax)) // 8)
        rows = -(-(-(-height * c["v"] // vmax)) // 8)
        units = [[(c, dc, ac, r, q) for (c, dc, ac) in members] for r in range(rows) for q in range(cols)]
    else:
        mcux, mcuy = comps[0]["bw"] // comps[0]["h"], comps[0]["bh"] // comps[0]["v"]
        units = [[(c, dc, ac, my * c["v"] + v, mx * c["h"] + h) for (c, dc, ac) in members
                  for v in range(c["v"]) for h in range(c["h"])]
                 for my in range(mcuy) for mx in range(mcux)]
    segments, end = _segments(buf, pos)
    per_segment = restart or len(units)
    for s, data in enumerate(segments):
        bits = _Bits(data)
        pred = {}
        for unit in units[s * per_segment:(s + 1) * per_segment]:
            for c, dc, ac, r, q in unit:
                coef = c["coef"][r, q]
                size = bits.symbol(dc)
                pred[c["id"]] = pred.get(c["id"], 0) + bits.take(size)
                coef[0] = pred[c["id"]]
                k = 1
                while k < 64:
                    rs = bits.symbol(ac)
                    run, size = rs >> 4, rs & 15
                    if size == 0:
                        if run != 15:
                            break
                        k += 16
                        continue
                    k += run
                    coef[ZIGZAG[k]] = bits.take(size)
                    k += 1
    return end
