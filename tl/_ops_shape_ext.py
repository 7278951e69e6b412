"""Layout ops composed from the copy kernels: depth_to_space / space_to_depth (ONNX
DepthToSpace / SpaceToDepth, DCR and CRD modes; torch pixel_shuffle = CRD depth_to_space) and
eye (ONNX EyeLike, numpy.eye).

x: (N, C, H, W), any dtype the copy kernels take. Errors: ValueError naming the argument.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o


def _check(x, name):
    x = np.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"tl.ops.{name}: x must be (N, C, H, W), got shape {x.shape}")
    return x


def depth_to_space(x, blocksize: int, mode: str = "DCR"):
    """(N, C, H, W) -> (N, C / b^2, H b, W b). DCR: depth is (b, b, C'); CRD: (C', b, b)."""
    x = _check(x, "depth_to_space")
    n, c, h, w = x.shape
    b = int(blocksize)
    if b <= 0 or c % (b * b):
        raise ValueError(f"tl.ops.depth_to_space: blocksize={blocksize} must have blocksize^2 dividing C={c}")
    if mode == "DCR":
        t = _o.permute(x.reshape(n, b, b, c // (b * b), h, w), (0, 3, 4, 1, 5, 2))
    elif mode == "CRD":
        t = _o.permute(x.reshape(n, c // (b * b), b, b, h, w), (0, 1, 4, 2, 5, 3))
    else:
        raise ValueError(f"tl.ops.depth_to_space: mode must be 'DCR' or 'CRD', got {mode!r}")
    return t.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth(x, blocksize: int, mode: str = "DCR"):
    """(N, C, H, W) -> (N, C b^2, H / b, W / b), the inverse of depth_to_space."""
    x = _check(x, "space_to_depth")
    n, c, h, w = x.shape
    b = int(blocksize)
    if b <= 0 or h % b or w % b:
        raise ValueError(f"tl.ops.space_to_depth: blocksize={blocksize} must divide H={h} and W={w}")
    r = x.reshape(n, c, h // b, b, w // b, b)
    if mode == "DCR":
        t = _o.permute(r, (0, 3, 5, 1, 2, 4))
    elif mode == "CRD":
        t = _o.permute(r, (0, 1, 3, 5, 2, 4))
    else:
        raise ValueError(f"tl.ops.space_to_depth: mode must be 'DCR' or 'CRD', got {mode!r}")
    return t.reshape(n, c * b * b, h // b, w // b)


def eye(n: int, m: int | None = None, k: int = 0, dtype=np.float32):
    """(n, m) array with ones on diagonal ``k`` (numpy.eye)."""
    m = n if m is None else m
    if n < 0 or m < 0:
        raise ValueError(f"tl.ops.eye: sizes must be >= 0, got n={n}, m={m}")
    out = _o.full((n, m), 0, dtype)
    if n and m:
        ones = _o.full((n, m), 1, dtype)
        out = _o.triu(_o.tril(ones, k), k)
    return out


__all__ = ["depth_to_space", "space_to_depth", "eye"]
