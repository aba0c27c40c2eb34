"""Detection ops: RoiAlign (opset 10 and 16) and NonMaxSuppression."""
from __future__ import annotations

import numpy as np

from ..registry import kernel


def _axis_samples(start, bin_size, pooled, grid, limit):
    """Sample positions along one axis of a roi and their bilinear taps.

    Returns (low, high, w_low, w_high, valid), each (pooled * grid,)."""
    k = np.arange(pooled * grid)
    pos = start + (k // grid) * bin_size + ((k % grid) + 0.5) * bin_size / grid
    valid = (pos >= -1.0) & (pos <= limit)
    pos = np.maximum(pos, 0.0)
    low = np.floor(pos).astype(np.int64)
    at_end = low >= limit - 1
    low = np.where(at_end, limit - 1, low)
    high = np.where(at_end, limit - 1, low + 1)
    pos = np.where(at_end, low, pos)
    frac = pos - low
    return low, high, (1.0 - frac) * valid, frac * valid, valid


def _roi_align(x, rois, batch_indices, mode, out_h, out_w, sampling_ratio, spatial_scale, half_pixel):
    n_rois = rois.shape[0]
    c, h, w = x.shape[1:]
    y = np.zeros((n_rois, c, out_h, out_w), dtype=np.float64)
    offset = 0.5 if half_pixel else 0.0
    # one python iteration per roi; bins, samples and channels are vectorised
    for r in range(n_rois):
        x1, y1, x2, y2 = (float(v) * spatial_scale - offset for v in rois[r])
        rw, rh = x2 - x1, y2 - y1
        if not half_pixel:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = int(sampling_ratio) if sampling_ratio > 0 else int(np.ceil(rh / out_h))
        gw = int(sampling_ratio) if sampling_ratio > 0 else int(np.ceil(rw / out_w))
        if gh <= 0 or gw <= 0:
            continue
        ylo, yhi, wylo, wyhi, _ = _axis_samples(y1, rh / out_h, out_h, gh, h)
        xlo, xhi, wxlo, wxhi, _ = _axis_samples(x1, rw / out_w, out_w, gw, w)
        img = x[int(batch_indices[r])].astype(np.float64)
        corners = [(img[:, ylo][:, :, xlo], wylo[:, None] * wxlo[None, :]),
                   (img[:, ylo][:, :, xhi], wylo[:, None] * wxhi[None, :]),
                   (img[:, yhi][:, :, xlo], wyhi[:, None] * wxlo[None, :]),
                   (img[:, yhi][:, :, xhi], wyhi[:, None] * wxhi[None, :])]
        if mode == "avg":
            s = sum(v * wt for v, wt in corners)
            y[r] = s.reshape(c, out_h, gh, out_w, gw).sum(axis=(2, 4)) / max(gh * gw, 1)
        else:   # "max" keeps the largest weighted corner of the largest sample
            m = np.maximum.reduce([v * wt for v, wt in corners])
            y[r] = m.reshape(c, out_h, gh, out_w, gw).max(axis=(2, 4))
    return y.astype(x.dtype)


@kernel("RoiAlign", since=10)
def roi_align_v10(x, rois, batch_indices, *, mode="avg", output_height=1, output_width=1,
                  sampling_ratio=0, spatial_scale=1.0):
    return _roi_align(x, rois, batch_indices, mode, output_height, output_width, sampling_ratio,
                      spatial_scale, half_pixel=False)


@kernel("RoiAlign", since=16)
def roi_align(x, rois, batch_indices, *, coordinate_transformation_mode="half_pixel", mode="avg",
              output_height=1, output_width=1, sampling_ratio=0, spatial_scale=1.0):
    return _roi_align(x, rois, batch_indices, mode, output_height, output_width, sampling_ratio,
                      spatial_scale, half_pixel=coordinate_transformation_mode == "half_pixel")


def _corners(boxes, center_point_box):
    b = boxes.astype(np.float64)
    if center_point_box:
        xc, yc, bw, bh = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
        return yc - bh / 2, xc - bw / 2, yc + bh / 2, xc + bw / 2
    # corners may come in either order
    return (np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3]),
            np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3]))


def _scalar(v, default):
    if v is None or np.asarray(v).size == 0:
        return default
    return np.asarray(v).reshape(-1)[0]


@kernel("NonMaxSuppression", since=10)
def non_max_suppression(boxes, scores, max_output_boxes_per_class=None, iou_threshold=None,
                        score_threshold=None, *, center_point_box=0):
    limit = max(int(_scalar(max_output_boxes_per_class, 0)), 0)
    iou_thr = float(_scalar(iou_threshold, 0.0))
    score_thr = None if score_threshold is None or np.asarray(score_threshold).size == 0 \
        else float(_scalar(score_threshold, 0.0))
    picked = []
    for b in range(boxes.shape[0]):
        y1, x1, y2, x2 = _corners(boxes[b], center_point_box)
        area = (y2 - y1) * (x2 - x1)
        for c in range(scores.shape[1]):
            s = scores[b, c]
            cand = np.arange(s.shape[0]) if score_thr is None else np.nonzero(s > score_thr)[0]
            # highest score first, ties by lower box index
            cand = cand[np.lexsort((cand, -s[cand]))]
            kept = 0
            while cand.size and kept < limit:
                top, rest = cand[0], cand[1:]
                picked.append((b, c, top))
                kept += 1
                ih = np.minimum(y2[top], y2[rest]) - np.maximum(y1[top], y1[rest])
                iw = np.minimum(x2[top], x2[rest]) - np.maximum(x1[top], x1[rest])
                inter = np.where((ih > 0) & (iw > 0), ih * iw, 0.0)
                union = area[top] + area[rest] - inter
                ok = (inter > 0) & (area[top] > 0) & (area[rest] > 0) & (union > 0)
                iou = np.where(ok, inter / np.where(union > 0, union, 1.0), 0.0)
                cand = rest[~(ok & (iou > iou_thr))]
    return np.asarray(picked, dtype=np.int64).reshape(-1, 3)
