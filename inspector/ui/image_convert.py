"""NumPy image arrays to ``QImage`` (the UI side of stimulus decoding)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage


def to_uint8(arr: np.ndarray) -> np.ndarray:
    """Scale an image array to uint8.

    uint8 passes through; bool maps to 0/255; floats in [0, 1] are multiplied
    by 255, other floats and integers are min/max scaled; NaN becomes 0.
    """
    a = np.asarray(arr)
    if a.dtype == np.uint8:
        return a
    if a.dtype == np.bool_:
        return a.astype(np.uint8) * 255
    f = a.astype(np.float64)
    f = np.where(np.isfinite(f), f, 0.0)
    lo, hi = (float(f.min()), float(f.max())) if f.size else (0.0, 1.0)
    if a.dtype.kind == "f" and lo >= 0.0 and hi <= 1.0:
        f = f * 255.0
    elif hi > lo and not (lo >= 0 and hi <= 255):
        f = (f - lo) * (255.0 / (hi - lo))
    return np.clip(np.rint(f), 0, 255).astype(np.uint8)


def array_to_qimage(arr: np.ndarray) -> QImage:
    """An ``(H, W)``, ``(H, W, 1)``, ``(H, W, 3)`` or ``(H, W, 4)`` array as a deep-copied QImage.

    Raises ValueError for other shapes.
    """
    a = to_uint8(arr)
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim == 2:
        fmt = QImage.Format.Format_Grayscale8
    elif a.ndim == 3 and a.shape[2] == 3:
        fmt = QImage.Format.Format_RGB888
    elif a.ndim == 3 and a.shape[2] == 4:
        fmt = QImage.Format.Format_RGBA8888
    else:
        raise ValueError(f"not an image array: shape {a.shape}")
    a = np.ascontiguousarray(a)
    h, w = a.shape[:2]
    img = QImage(a.data, w, h, a.strides[0], fmt)
    return img.copy()


def thumbnail(arr: np.ndarray, size: int) -> QImage:
    """A QImage of ``arr`` fitted in ``size`` x ``size`` (nearest-neighbour when enlarging)."""
    img = array_to_qimage(arr)
    mode = (Qt.TransformationMode.FastTransformation
            if img.width() < size and img.height() < size
            else Qt.TransformationMode.SmoothTransformation)
    return img.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio, mode)


@dataclass(frozen=True)
class Unloadable:
    """A stimulus whose ``load`` (or conversion to pixels) failed, with the reason in words.

    Returned by image jobs instead of raising, so that the reason is shown as it
    is rather than as a bug report naming the exception type.
    """

    reason: str
