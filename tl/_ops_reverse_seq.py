"""reverse_sequence (ONNX ReverseSequence; tf.reverse_sequence): per batch entry, reverse the
first ``sequence_lens[b]`` steps along the time axis. The per-element source index is built from
the lengths (metadata) and the data moves through the gather_elements kernel (take_cols).
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o


def reverse_sequence(x, sequence_lens, batch_axis: int = 1, time_axis: int = 0, out=None):
    """x (at least 2-D, any tl.ops dtype) with ``x[t, b]`` replaced by ``x[lens[b] - 1 - t, b]``
    for t < lens[b] (other steps unchanged). ``sequence_lens``: int32/int64 of shape
    (x.shape[batch_axis],), each in [0, x.shape[time_axis]] (0 and 1 leave the entry as is).
    ``out``: None or a writable NumPy array of x's shape and dtype. Errors: ValueError for equal
    or out-of-range axes, a wrong lens shape, a length out of range or an ``out`` of the wrong
    shape; TypeError for non-integer lens, an unsupported x dtype or an ``out`` of the wrong
    type / dtype."""
    x = _o._np(x, "x", "reverse_sequence")
    if x.dtype not in _o._NAMES:
        raise TypeError(f"tl.ops.reverse_sequence: argument 'x' has dtype {x.dtype}; expected one of "
                        f"{', '.join(_o._BY_NAME)}")
    lens = np.asarray(sequence_lens)
    if x.ndim < 2:
        raise ValueError(f"tl.ops.reverse_sequence: argument 'x' must be at least 2-D, got shape {x.shape}")
    ba, ta = (_o._norm_axis(a, x.ndim, "reverse_sequence") for a in (batch_axis, time_axis))
    if ba == ta:
        raise ValueError("tl.ops.reverse_sequence: batch_axis and time_axis must differ")
    if lens.dtype.kind not in "iu":
        raise TypeError(f"tl.ops.reverse_sequence: argument 'sequence_lens' has dtype {lens.dtype}; expected int32/int64")
    if lens.shape != (x.shape[ba],):
        raise ValueError(f"tl.ops.reverse_sequence: argument 'sequence_lens' has shape {lens.shape}, "
                         f"expected ({x.shape[ba]},)")
    if lens.size and (lens.min() < 0 or lens.max() > x.shape[ta]):
        raise ValueError(f"tl.ops.reverse_sequence: argument 'sequence_lens' must lie in [0, {x.shape[ta]}]")
    if out is not None:
        out = _o._out(out, x.shape, _o._NAMES[x.dtype], "reverse_sequence")
    t = np.arange(x.shape[ta], dtype=np.int64)[:, None]
    ln = lens.astype(np.int64)[None, :]
    src = np.where(t < ln, ln - 1 - t, t)                 # (T, B)
    shp = [1] * x.ndim
    shp[ta], shp[ba] = x.shape[ta], x.shape[ba]
    src = src if ta < ba else src.T
    idx = np.broadcast_to(src.reshape(shp), x.shape)
    return _o.gather_elements(x, idx, ta, out=out)


__all__ = ["reverse_sequence"]
