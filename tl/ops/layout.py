"""Layout ops composed from the copy kernels: depth_to_space / space_to_depth (ONNX
DepthToSpace / SpaceToDepth, DCR and CRD modes; torch pixel_shuffle = CRD depth_to_space) and
eye (ONNX EyeLike, numpy.eye).

x: (N, C, H, W), any dtype the copy kernels take. Errors: ValueError naming the argument.

Also the view-like ops of torch (flatten, squeeze, unsqueeze, movedim, narrow, chunk,
pixel_shuffle, pixel_unshuffle, repeat_interleave), shape and size (metadata, no kernel), and
transpose (the tiled ``transpose`` kernel for 2-D swaps, permute's strided copy otherwise).
"""
from __future__ import annotations

import builtins

import numpy as np

from tl.ops._core import _arr, _launch, _out
from tl.ops.data import full, index_select, permute, slice as _slice, split, tril, triu
from tl.ops._registry import names_in, public_op


def _check(x, name):
    x = np.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"tl.ops.{name}: x must be (N, C, H, W), got shape {x.shape}")
    return x


@public_op
def depth_to_space(x, blocksize: int, mode: str = "DCR"):
    """(N, C, H, W) -> (N, C / b^2, H b, W b). DCR: depth is (b, b, C'); CRD: (C', b, b)."""
    x = _check(x, "depth_to_space")
    n, c, h, w = x.shape
    b = int(blocksize)
    if b <= 0 or c % (b * b):
        raise ValueError(f"tl.ops.depth_to_space: blocksize={blocksize} must have blocksize^2 dividing C={c}")
    if mode == "DCR":
        t = permute(x.reshape(n, b, b, c // (b * b), h, w), (0, 3, 4, 1, 5, 2))
    elif mode == "CRD":
        t = permute(x.reshape(n, c // (b * b), b, b, h, w), (0, 1, 4, 2, 5, 3))
    else:
        raise ValueError(f"tl.ops.depth_to_space: mode must be 'DCR' or 'CRD', got {mode!r}")
    return t.reshape(n, c // (b * b), h * b, w * b)


@public_op
def space_to_depth(x, blocksize: int, mode: str = "DCR"):
    """(N, C, H, W) -> (N, C b^2, H / b, W / b), the inverse of depth_to_space."""
    x = _check(x, "space_to_depth")
    n, c, h, w = x.shape
    b = int(blocksize)
    if b <= 0 or h % b or w % b:
        raise ValueError(f"tl.ops.space_to_depth: blocksize={blocksize} must divide H={h} and W={w}")
    r = x.reshape(n, c, h // b, b, w // b, b)
    if mode == "DCR":
        t = permute(r, (0, 3, 5, 1, 2, 4))
    elif mode == "CRD":
        t = permute(r, (0, 1, 3, 5, 2, 4))
    else:
        raise ValueError(f"tl.ops.space_to_depth: mode must be 'DCR' or 'CRD', got {mode!r}")
    return t.reshape(n, c * b * b, h // b, w // b)


@public_op
def eye(n: int, m: int | None = None, k: int = 0, dtype=np.float32):
    """(n, m) array with ones on diagonal ``k`` (numpy.eye)."""
    m = n if m is None else m
    if n < 0 or m < 0:
        raise ValueError(f"tl.ops.eye: sizes must be >= 0, got n={n}, m={m}")
    out = full((n, m), 0, dtype)
    if n and m:
        ones = full((n, m), 1, dtype)
        out = triu(tril(ones, k), k)
    return out


# ----------------------------------------------------------------------------- torch-style views and copies
@public_op
def flatten(x, start_axis: int = 0, end_axis: int = -1):
    """Axes start..end merged into one (a view where NumPy can make one, like torch.flatten)."""
    x = np.asarray(x)
    if x.ndim == 0:
        return x.reshape(1)
    s, e = int(start_axis) % x.ndim, int(end_axis) % x.ndim
    if s > e:
        raise ValueError(f"tl.ops.flatten: start_axis {start_axis} comes after end_axis {end_axis}")
    return x.reshape(x.shape[:s] + (int(np.prod(x.shape[s:e + 1], dtype=np.int64)),) + x.shape[e + 1:])


@public_op
def squeeze(x, axis=None):
    """x without the size-1 axes (all, or those in ``axis``; ValueError if one is not size 1)."""
    x = np.asarray(x)
    if axis is None:
        return x.reshape([d for d in x.shape if d != 1])
    axes = {int(a) % x.ndim for a in np.atleast_1d(axis)}
    bad = [a for a in axes if x.shape[a] != 1]
    if bad:
        raise ValueError(f"tl.ops.squeeze: axis {bad[0]} has size {x.shape[bad[0]]}, not 1")
    return x.reshape([d for i, d in enumerate(x.shape) if i not in axes])


@public_op
def unsqueeze(x, axis: int):
    """x with a new size-1 axis at ``axis`` (negative counts from the end of the result)."""
    return np.expand_dims(np.asarray(x), int(axis))


@public_op
def movedim(x, source, destination):
    """Axes ``source`` moved to ``destination`` (a contiguous copy through permute)."""
    x = np.asarray(x)
    src = [int(a) % x.ndim for a in np.atleast_1d(source)]
    dst = [int(a) % x.ndim for a in np.atleast_1d(destination)]
    rest = [a for a in range(x.ndim) if a not in src]
    perm = [None] * x.ndim
    for s_, d_ in zip(src, dst):
        perm[d_] = s_
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return permute(x, tuple(perm))


@public_op
def narrow(x, axis: int, start: int, length: int):
    """x[..., start:start + length, ...] along ``axis`` as a contiguous copy."""
    x = np.asarray(x)
    ax = int(axis) % x.ndim
    if start < 0:
        start += x.shape[ax]
    if not (0 <= start and length >= 0 and start + length <= x.shape[ax]):
        raise ValueError(f"tl.ops.narrow: [{start}, {start + length}) is outside axis {ax} of size {x.shape[ax]}")
    return _slice(x, [start], [start + length], [ax])


@public_op
def chunk(x, chunks: int, axis: int = 0):
    """Split into ``chunks`` pieces of ceil(n / chunks) along ``axis`` (the last may be smaller,
    fewer pieces when n is small: torch.chunk)."""
    x = np.asarray(x)
    ax = int(axis) % x.ndim
    if chunks <= 0:
        raise ValueError(f"tl.ops.chunk: chunks must be > 0, got {chunks}")
    n = x.shape[ax]
    step = -(-n // chunks) if n else 1
    sizes = [min(step, n - i) for i in range(0, n, step)] or [0]
    return list(split(x, sizes, ax))


@public_op
def pixel_shuffle(x, upscale_factor: int):
    """torch.nn.functional.pixel_shuffle: depth_to_space in CRD mode."""
    return depth_to_space(x, upscale_factor, "CRD")


@public_op
def pixel_unshuffle(x, downscale_factor: int):
    """torch.nn.functional.pixel_unshuffle: space_to_depth in CRD mode."""
    return space_to_depth(x, downscale_factor, "CRD")


@public_op
def repeat_interleave(x, repeats: int, axis: int = 0):
    """Each element repeated ``repeats`` times along ``axis`` (an index_select)."""
    x = np.asarray(x)
    ax = int(axis) % x.ndim
    if repeats < 0:
        raise ValueError(f"tl.ops.repeat_interleave: repeats must be >= 0, got {repeats}")
    idx = np.repeat(np.arange(x.shape[ax], dtype=np.int64), int(repeats))
    return index_select(x, ax, idx)


@public_op
def shape(x, start: int = 0, end: int | None = None):
    """The dimensions ``x.shape[start:end]`` as a 1-D int64 array (ONNX Shape: negative
    ``start``/``end`` count from the back, out-of-range values clip). TypeError for non-int
    ``start``/``end``."""
    for n, v in (("start", start), ("end", end)):
        if v is not None and not isinstance(v, (int, np.integer)):
            raise TypeError(f"tl.ops.shape: argument '{n}' must be an int, got {type(v).__name__}")
    return np.asarray(np.shape(x)[start:end], np.int64).reshape(-1)


@public_op
def size(x):
    """The number of elements of ``x`` as a 0-d int64 array (ONNX Size, torch numel)."""
    return np.asarray(int(np.prod(np.shape(x), dtype=np.int64)), np.int64)


@public_op
def transpose(x, axes=None, *, out=None):
    """``np.transpose(x, axes)`` as a new contiguous array: a 2-D swap (axes None or (1, 0)) runs
    the tiled ``transpose`` kernel; ndim < 2 returns a copy; any other rank or permutation is
    :func:`permute` (a strided copy). ``axes`` must be a permutation of ``range(x.ndim)``
    (ValueError otherwise, as NumPy); ``out`` is keyword-only, as NumPy's second argument is axes."""
    x, dt = _arr(x, "x", "transpose")
    if axes is not None:
        try:
            axes = tuple(int(a) for a in axes)
        except TypeError:
            raise TypeError(f"tl.ops.transpose: argument 'axes' must be a sequence of ints, got {type(axes).__name__}") from None
        if sorted(a % x.ndim if -x.ndim <= a < x.ndim else a for a in axes) != list(range(x.ndim)):
            raise ValueError(f"tl.ops.transpose: argument 'axes' {axes} is not a permutation of the "
                             f"{x.ndim} axes of x")
        axes = tuple(a % x.ndim for a in axes)
    if x.ndim < 2:
        out = _out(out, x.shape, dt, "transpose")
        np.copyto(out, x)
        return out
    if x.ndim != 2 or axes == (0, 1) or builtins.min(x.shape) < 64:
        # skinny shapes ((N, 1) <-> (1, N) keeps the element order; (N, 8)) leave the transpose
        # kernel's square tiles mostly empty: permute's strided copy, lanes on the long axis
        return permute(x, axes, out=out)
    out = _out(out, x.shape[::-1], dt, "transpose")
    if out.size == 0:
        return out
    _launch(f"transpose__DT_{dt}", x, out)
    return out


__all__ = names_in(__name__)
