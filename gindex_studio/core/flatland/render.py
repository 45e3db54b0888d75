"""Draw a trace into a 128×128 image and compare images.

``rasterise`` returns a boolean numpy array ``[row, column]`` (row 0 at the top: world y up, as the
reference's canvas), True where the one-pixel pen drew. World (x, y) falls in pixel column
floor(x) and row 127 − floor(y); segments are clipped by the canvas, not wrapped.
``image_similarity`` is the reference's: 1 − mean |â − b̂| over min-max normalised images.
"""
from __future__ import annotations

import numpy as np

SIZE = 128
_FAR = 1e6  # a segment with a coordinate beyond this is first cut to the canvas (see rasterise)


def rasterise(segments, size: int = SIZE, scale: float = 1.0) -> np.ndarray:
    """A boolean image of the segments; ``scale`` pixels per world unit (the image is size×size).

    Each segment is sampled at ``steps`` points at most half a pixel apart (at most 4·size + 1),
    point k at x0 + (x1 − x0)·k/(steps − 1). Segments with the same number of points are sampled
    together as one (segments × steps) array. A segment reaching further than ``_FAR`` from the
    origin (a move of up to 1e9 units) is first cut to the canvas, then sampled the same way."""
    img = np.zeros((size, size), dtype=bool)
    if not len(segments):
        return img
    seg = np.asarray(segments, dtype=np.float64).reshape(-1, 4) * scale
    if not np.isfinite(seg).all():
        raise ValueError("a segment has a coordinate that is not finite")
    far = (np.abs(seg) > _FAR).any(axis=1)
    if far.any():  # sampled as they are, their points would not fit the integer cast
        seg = np.concatenate([seg[~far], _clip(seg[far], -2.0, size + 2.0)])
    x0, y0, x1, y1 = seg.T
    dx, dy = x1 - x0, y1 - y0
    steps = np.minimum(np.ceil(np.hypot(dx, dy) * 2.0).astype(np.int64), 4 * size) + 1  # ≤ half a pixel apart
    counts = np.bincount(steps)
    for n in np.flatnonzero(counts):
        pick = np.flatnonzero(steps == n) if counts[n] < len(steps) else slice(None)
        t = np.arange(n) / max(n - 1, 1)
        px = x0[pick, None] + dx[pick, None] * t
        py = y0[pick, None] + dy[pick, None] * t
        col = np.floor(px).astype(np.int64)
        row = size - 1 - np.floor(py).astype(np.int64)
        keep = (col >= 0) & (col < size) & (row >= 0) & (row < size)
        img[row[keep], col[keep]] = True
    return img


def _clip(seg: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Segments cut to the square [lo, hi]² (Liang-Barsky); those outside it dropped. A segment
    inside is kept bit for bit."""
    x0, y0, x1, y1 = seg.T
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = np.zeros(len(seg)), np.ones(len(seg))
    keep = np.ones(len(seg), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - lo), (dx, hi - x0), (-dy, y0 - lo), (dy, hi - y0)):
            keep &= ~((p == 0) & (q < 0))
            r = q / np.where(p == 0, 1.0, p)
            t0 = np.where(p < 0, np.maximum(t0, r), t0)
            t1 = np.where(p > 0, np.minimum(t1, r), t1)
    keep &= t0 <= t1
    if keep.all() and not (t0 > 0).any() and not (t1 < 1).any():
        return seg
    out = np.stack([np.where(t0 > 0, x0 + t0 * dx, x0), np.where(t0 > 0, y0 + t0 * dy, y0),
                    np.where(t1 < 1, x0 + t1 * dx, x1), np.where(t1 < 1, y0 + t1 * dy, y1)], axis=1)
    return out[keep]


def _normalise(img: np.ndarray) -> np.ndarray:
    a = np.asarray(img, dtype=np.float64)
    lo, hi = a.min(), a.max()
    if hi == lo:
        return np.zeros_like(a)
    return (a - lo) / (hi - lo)


def image_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """1 − mean |â − b̂| over pixels of the min-max normalised images (the reference's measure;
    a constant image normalises to all zeros here, where the reference divides by zero).

    >>> x = np.zeros((2, 2)); y = x.copy(); y[0, 0] = 1
    >>> image_similarity(x, y)
    0.75
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise ValueError(f"images differ in size: {a.shape} and {b.shape}")
    return float(1.0 - np.mean(np.abs(_normalise(a) - _normalise(b))))


def ink_agreement(a: np.ndarray, b: np.ndarray, tolerance: int = 1) -> tuple[float, float]:
    """(share of a's ink within ``tolerance`` pixels of b's ink, the same for b against a)."""
    def dilate(m):
        out = m.copy()
        for dy in range(-tolerance, tolerance + 1):
            for dx in range(-tolerance, tolerance + 1):
                out |= np.roll(np.roll(m, dy, 0), dx, 1) & _valid(m.shape, dy, dx)
        return out

    def share(p, q):
        n = int(p.sum())
        return 1.0 if n == 0 else float((p & dilate(q)).sum()) / n

    a, b = np.asarray(a, bool), np.asarray(b, bool)
    return share(a, b), share(b, a)


def _valid(shape, dy, dx) -> np.ndarray:
    """Mask of pixels whose rolled source did not wrap around the edge."""
    m = np.ones(shape, dtype=bool)
    if dy > 0:
        m[:dy, :] = False
    elif dy < 0:
        m[dy:, :] = False
    if dx > 0:
        m[:, :dx] = False
    elif dx < 0:
        m[:, dx:] = False
    return m


def to_png_bytes(img: np.ndarray) -> bytes:
    """A boolean image as PNG bytes, black ink on white, without Qt or Pillow (zlib + struct)."""
    import struct
    import zlib

    a = np.where(np.asarray(img, bool), 0, 255).astype(np.uint8)
    h, w = a.shape
    raw = b"".join(b"\x00" + a[r].tobytes() for r in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def to_pbm(img: np.ndarray) -> str:
    """A boolean image as plain PBM text (P1; 1 = ink), e.g. for test data."""
    a = np.asarray(img, bool)
    rows = ["".join("1" if v else "0" for v in r) for r in a]
    return f"P1\n{a.shape[1]} {a.shape[0]}\n" + "\n".join(rows) + "\n"


def from_pbm(text: str) -> np.ndarray:
    """The inverse of ``to_pbm`` (plain PBM, P1)."""
    parts = text.split()
    if not parts or parts[0] != "P1":
        raise ValueError("not a plain PBM (P1) image")
    w, h = int(parts[1]), int(parts[2])
    bits = "".join(parts[3:])
    return np.array([c == "1" for c in bits[: w * h]], dtype=bool).reshape(h, w)
