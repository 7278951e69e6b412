"""``@tl.kernel``: records a kernel's source location and options for the compiler and the
reference interpreter. The body is never executed by Python."""
from __future__ import annotations

import inspect

from tlc.specs import expand as expand_specializations


class KernelFunction:
    """A kernel as written. ``grid``: optional callable of the tensor arguments returning 1..3
    ints; ``specializations``: optional list of dicts of constexpr values to compile, or a dict
    of lists meaning every combination (tlc/specs.py)."""

    def __init__(self, fn, grid=None, specializations=None):
        self.fn = fn
        self.name = fn.__name__
        self.grid = grid
        self.specializations = expand_specializations(specializations)
        self.source_file = inspect.getsourcefile(fn)
        self.__doc__ = fn.__doc__

    def interpret(self, *args, grid=None, **constexprs):
        """Runs the kernel with the NumPy reference interpreter (no compilation)."""
        from tlc.interp import interpret_kernel
        return interpret_kernel(self, args, grid=grid, constexprs=constexprs)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel {self.name!r} cannot be called from Python; compile it with "
                        f"`tlc build`, or run it with {self.name}.interpret(...)")


def kernel(fn=None, *, grid=None, specializations=None):
    """Marks a TL kernel. Usable bare (``@tl.kernel``) or with options
    (``@tl.kernel(grid=lambda x, y: (tl.cdiv(x.shape[0], 8),))``)."""
    if fn is None:
        return lambda f: KernelFunction(f, grid=grid, specializations=specializations)
    return KernelFunction(fn, grid=grid, specializations=specializations)


class DeviceFunction:
    """A ``@tl.func`` helper: kernels of the same file call it and the compiler inlines each call
    (see :mod:`tlc.parse.funcs`). Python never runs its body."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        raise TypeError(f"@tl.func {self.name!r} runs only inside TL kernels (the compiler inlines it); "
                        f"it cannot be called from Python")


def func(fn):
    """Marks a TL device function: a helper that ``@tl.kernel`` bodies (and other ``@tl.func``s) of
    the same file call like a Python function. Each call is inlined at compile time, so it costs
    nothing at run time. It may take tiles, scalars, tensor views and compile-time values
    (``tl.constexpr`` parameters must get them), and returns once, at its end."""
    return DeviceFunction(fn)
