"""NumPy-style operators backed by the compiled operator library (a ``.tlpkg`` built from ``ops/``).

Every function takes NumPy arrays (float32, float16 or ``ml_dtypes.bfloat16`` unless stated),
allocates its result (or writes ``out=``, which must have the exact result shape and dtype) and
returns it. Kernels work on rank-2 (rows, cols) strided tensors: N-D inputs are mapped to 2-D by
a copy-free reshape when the strides allow it, else through ``np.ascontiguousarray``; an
``axis`` other than the last is moved with ``np.moveaxis`` (a strided view, no copy). Empty
tensors are handled here without launching a kernel.

The package is loaded once on first use, found in this order (tl/ops/_package.py): the path
given to ``use_package(path)``; ``$TL_OPS_PACKAGE``; in a source checkout (editable install) only
the checkout's ``build/ops.tlpkg`` (``make ops``); otherwise the per-user package
``~/.cache/tl-compiler/ops-<version>.tlpkg`` (``tlc build-ops``), then the copy shipped inside the
wheel (``tl/_data/ops.tlpkg``). ``package_path()`` says which one is used.
``TL_OPS_BACKEND=interp`` runs the same kernels in the NumPy reference interpreter instead.
Errors: ``TypeError`` for a wrong dtype (naming the argument), ``ValueError`` for bad shapes or
a max/argmax over an empty axis, ``FileNotFoundError`` when no package is found (naming every
place looked at and how to build one).

Layout (tl/ops/, imports run one way, each module from those above it only):
``_opinfo``/``_catalog`` (the op table), ``_registry`` (``@public_op``), ``_package`` (finding and
loading the package), ``_dispatch`` (kernel choices from the manifest's dispatch data),
``_core`` (shared helpers), then the op modules ``elementwise``, ``_opmath``, ``pointwise``,
``bitwise``, ``elementary``, ``data``, ``indexing``, ``sorting``, ``layout``, ``reduce``,
``reduce_composed``, ``norm``, ``linalg``, ``activation``, ``nn``, ``attention``, ``loss``.
Every public op is one ``@public_op`` def with its docstring; ``__all__`` is the op table's
names plus the package functions.
"""
from __future__ import annotations

from tl.ops._catalog import OPS_LIST as _OPS_LIST
from tl.ops._opinfo import FUNCTIONS as _FUNCTIONS
from tl.ops._package import package, package_path, use_package, _reset_package  # noqa: F401
from tl.ops._dispatch import gemv_streams_b as _x86, tall_matmul_tiles as _avx512  # noqa: F401
from tl.ops._core import (_BY_NAME, _FLOATS, _NAMES, _arr, _ew_views, _flat_shape, _launch, _np,  # noqa: F401
                          _out, _to2d, bfloat16)
from tl.ops.elementwise import *  # noqa: F401,F403
from tl.ops.pointwise import *  # noqa: F401,F403
from tl.ops.pointwise import int_add  # noqa: F401
from tl.ops.bitwise import *  # noqa: F401,F403
from tl.ops.elementary import *  # noqa: F401,F403
from tl.ops.data import *  # noqa: F401,F403
from tl.ops.data import copy_into  # noqa: F401
from tl.ops.indexing import *  # noqa: F401,F403
from tl.ops.sorting import *  # noqa: F401,F403
from tl.ops.layout import *  # noqa: F401,F403
from tl.ops.reduce import *  # noqa: F401,F403
from tl.ops.reduce_composed import *  # noqa: F401,F403
from tl.ops.norm import *  # noqa: F401,F403
from tl.ops.linalg import *  # noqa: F401,F403
from tl.ops.activation import *  # noqa: F401,F403
from tl.ops.nn import *  # noqa: F401,F403
from tl.ops.attention import *  # noqa: F401,F403
from tl.ops.loss import *  # noqa: F401,F403

_missing = [o.name for o in _OPS_LIST if o.name not in _FUNCTIONS]
if _missing:   # an op table entry without its @public_op def
    raise ImportError(f"tl.ops: no @public_op def for {', '.join(_missing)} (tl/ops/_catalog.py)")

__all__ = [o.name for o in _OPS_LIST] + ["package", "package_path", "use_package", "bfloat16"]
