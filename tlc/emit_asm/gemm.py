"""Register-blocked fp32 GEMM microkernels as GCC extended-asm functions (AVX-512, AVX2+FMA;
AArch64 NEON and RISC-V V 1.0 register plans live in gemm_neon_rvv.py).

Python decides everything (block shape, registers, displacements, unrolling); the jinja2
templates in templates/gemm_<family>.j2 only substitute and loop. Shapes are static (tile
shapes are compile-time), so the row strides of A (K), B and C (N) are immediate displacements.

Semantics (the same as the portable ``dot`` loops, bit for bit): for each output element,
c = acc (or 0), then c = fma(a[i, k], b[k, j], c) for k ascending, one rounding per step.

Public API:
  choose(family, vregs, lanes, M, K, N) -> (mr, nv) | None    the register block
  emit_dot(e, family, mr, nv, a, b, acc, out, M, K, N) -> int  emits calls into KernelEmitter
      ``e`` (functions collected in ``e.asm``: name -> C source); returns Nv, the columns covered
      (a multiple of the lanes); columns [Nv, N) are left to the caller.
"""
from __future__ import annotations

from pathlib import Path

import jinja2

from tlc.emit_asm import gemm_neon_rvv

_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
                          undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)

LANES = {"avx512": 16, "avx2": 8}
LANES.update(gemm_neon_rvv.LANES)     # "neon", "rvv": register plans in gemm_neon_rvv.py
UNROLL = 4


def max_rows(family: str, vregs: int, nv: int) -> int:
    """Rows of the register block for nv vectors: accumulators + B registers (double-buffered on
    AVX-512, whose FMAs broadcast A from memory) + the A broadcast register on AVX2."""
    if family in gemm_neon_rvv.LANES:
        return gemm_neon_rvv.max_rows(family, vregs, nv)
    if family == "avx512":
        return min(16, (vregs - 2 * nv) // nv)
    return min(12, (vregs - nv - 1) // nv)


def choose(family: str, vregs: int, lanes: int, M: int, K: int, N: int):
    """(mr, nv) for a dot of static shape (M, K) x (K, N), or None for the portable loops
    (no microkernel for ``family``, or fewer than one full vector of columns)."""
    if family not in LANES or LANES[family] != lanes or M < 1 or K < 1:
        return None
    nvec = N // lanes
    if nvec == 0:
        return None
    widest = 3 if family == "avx512" else 2
    nv = next((w for w in range(widest, 1, -1) if nvec % w == 0), min(widest, nvec))
    top = min(M, max_rows(family, vregs, nv), 8 if nv == 3 else 12)
    # prefer a row count that divides M (no edge block) when one is at least 3/4 of the top
    mr = next((r for r in range(top, 0, -1) if M % r == 0 and 4 * r >= 3 * top), top)
    return mr, nv


def function(family: str, mr: int, nv: int, K: int, lda: int, ldb: int, ldc: int, acc: bool) -> tuple[str, str]:
    """(name, C source) of one microkernel instance (byte strides lda, ldb, ldc)."""
    name = f"tl_gemm_{family}_m{mr}v{nv}k{K}_{lda}_{ldb}_{ldc}_{'acc' if acc else 'zero'}"
    if family in gemm_neon_rvv.LANES:
        return name, gemm_neon_rvv.render(_ENV, family, name, mr, nv, K, lda, ldb, ldc, acc, UNROLL)
    kloops, tail = divmod(K, UNROLL)
    breg = mr * nv
    if family == "avx512":
        nregs = breg + 2 * nv
        extra = {}
    else:
        nregs = breg + nv + 1
        extra = {"areg": breg + nv}
    assert nregs <= (32 if family == "avx512" else 16), (family, mr, nv)
    src = _ENV.get_template(f"gemm_{family}.j2").render(
        name=name, mr=mr, nv=nv, lda=lda, ldb=ldb, ldc=ldc, acc=acc, kloops=kloops, unroll=UNROLL,
        tail=tail, breg=breg, clobbers=list(range(nregs)), **extra)
    return name, src


def emit_dot(e, family: str, mr: int, nv: int, a: str, b: str, acc: str | None, out: str,
             M: int, K: int, N: int, b_src: tuple[str, str] | None = None) -> int:
    """Calls covering out[0:M, 0:Nv] (Nv = N // lanes * lanes); a, b, acc, out are C pointer
    names of dense row-major tiles (M, K), (K, N), (M, N), (M, N). ``b_src`` = (pointer, row
    stride) C names: when the pointer is non-null at run time B is packed from there (the
    tensor itself) instead of from ``b`` (then unwritten); only used when B is packed."""
    L = LANES[family]
    nvec = N // L
    Nv = nvec * L
    lda, ldb, ldc = 4 * K, 4 * N, 4 * N
    W = nv * L

    def fn(rows: int, vecs: int, ldb_: int) -> str:
        name, src = function(family, rows, vecs, K, lda, ldb_, ldc, acc is not None)
        e.asm.setdefault(name, src)
        return name

    Mm, Nm = M // mr * mr, nvec // nv * W
    ev = nvec - Nm // L
    em = M - Mm
    # B is packed into column panels of W (last: ev * L) columns, each K x width contiguous, so
    # a microkernel's B stream is sequential (a row stride of N floats would map every k to
    # the same few L1 sets); panels run outermost, so one stays in L1 across the row blocks.
    # One row block (M <= mr) reads each panel once: no reuse, so no packing.
    pack = M > mr
    pk = e.fresh("pk")
    if pack:
        off = e.alloc(4 * K * Nv)
        e.line(f"float* const {pk} = (float*)(ws + {off});")
    q, kk = e.fresh("q"), e.fresh("k")
    panels = [(Nm, W, nv)] + ([(ev * L, ev * L, ev)] if ev else [])

    def pack_from(src: str, ld: str) -> None:
        base = 0
        for width_total, width, vecs in panels:
            if width_total == 0:
                continue
            start = 0 if base == 0 else Nm
            e.open(f"for (int64_t {q} = {start}; {q} < {start + width_total}; {q} += {width})")
            e.open(f"for (int64_t {kk} = 0; {kk} < {K}; ++{kk})")
            for v in range(vecs):
                e.line(f"tl_st_f({pk} + {q} * {K} + {kk} * {width} + {v * L}, "
                       f"tl_ld_f({src} + {kk} * {ld} + {q} + {v * L}, TL_L), TL_L);")
            e.close()
            e.close()
            base += 1

    if pack and b_src is not None and Nv == N:
        e.open(f"if ({b_src[0]})")
        pack_from(b_src[0], b_src[1])
        e.close("} else {")
        e.depth += 1
        pack_from(b, str(N))
        e.close()
    elif pack:
        pack_from(b, str(N))

    def call(rows: int, vecs: int, i: str, j: str) -> None:
        c0 = f"{acc} + ({i}) * {N} + ({j})" if acc is not None else "(const float*)0"
        bp = f"{pk} + ({j}) * {K}" if pack else f"{b} + ({j})"
        e.line(f"{fn(rows, vecs, 4 * vecs * L if pack else ldb)}({a} + ({i}) * {K}, {bp}, {c0}, "
               f"{out} + ({i}) * {N} + ({j}));")

    i, j = e.fresh("i"), e.fresh("j")
    if Nm:
        e.open(f"for (int64_t {j} = 0; {j} < {Nm}; {j} += {W})")
        if Mm:
            e.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
            call(mr, nv, i, j)
            e.close()
        if em:
            call(em, nv, str(Mm), j)
        e.close()
    if ev:
        if Mm:
            e.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
            call(mr, ev, i, str(Nm))
            e.close()
        if em:
            call(em, ev, str(Mm), str(Nm))
    return Nv
