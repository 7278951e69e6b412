"""The :class:`OpInfo` record of the op table (tl/ops/_catalog.py) and the functions registered
for it (tl/ops/_registry.py fills ``FUNCTIONS``). Imports nothing of tl.ops."""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

F = ("float32", "float16", "bfloat16")
I = ("int32", "int64")
TOL = {"float32": (1.3e-6, 1e-5), "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
TRANSCENDENTAL_F32 = (1e-5, 1e-6)   # stated bound for vector-math ops (a few ulp)

FUNCTIONS: dict = {}   # op name -> its public function (the @public_op def), filled at import of tl.ops


@dataclass(frozen=True)
class OpInfo:
    """One operator: ``name`` (its tl.ops function), ``category``, ``onnx`` / ``aten`` names,
    ``dtypes``, TL ``kernels``, a float64 reference ``ref``, tolerance per dtype ``tol``,
    ``targets``, and ``out_of_place``: the op reads other positions than it writes, so an
    ``out=`` that overlaps an input is computed into a fresh buffer and copied (elementwise
    ops are not, and stay truly in place); ``onnx_inputs``: 1 or 2 when the ONNX node ``onnx``
    is this op called on its inputs and nothing else (no attribute), which is how
    tools/tl_onnx_map.py maps it; 0 when that map holds a hand-written adapter."""
    name: str
    category: str
    onnx: str = ""
    aten: str = ""
    dtypes: tuple = F
    kernels: tuple = ()
    ref: object = None
    tol: dict = field(default_factory=lambda: dict(TOL))
    targets: tuple = ("host (x86_64 avx512/avx2/baseline)",)
    out_of_place: bool = False
    onnx_inputs: int = 0

    @property
    def function(self):
        """The op's public function (``tl.ops.<name>``)."""
        return FUNCTIONS[self.name]

    @property
    def signature(self) -> str:
        return f"{self.name}{inspect.signature(self.function)}"
