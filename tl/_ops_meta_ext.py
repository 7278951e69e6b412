"""Shape metadata as tensors (ONNX Shape and Size; torch ``x.shape`` / ``x.numel()``): no kernel
runs, the values come from the array's header.
"""
from __future__ import annotations

import numpy as np


def shape(x, start: int = 0, end: int | None = None):
    """The dimensions ``x.shape[start:end]`` as a 1-D int64 array (ONNX Shape: negative
    ``start``/``end`` count from the back, out-of-range values clip). TypeError for non-int
    ``start``/``end``."""
    for n, v in (("start", start), ("end", end)):
        if v is not None and not isinstance(v, (int, np.integer)):
            raise TypeError(f"tl.ops.shape: argument '{n}' must be an int, got {type(v).__name__}")
    return np.asarray(np.shape(x)[start:end], np.int64).reshape(-1)


def size(x):
    """The number of elements of ``x`` as a 0-d int64 array (ONNX Size, torch numel)."""
    return np.asarray(int(np.prod(np.shape(x), dtype=np.int64)), np.int64)


__all__ = ["shape", "size"]
