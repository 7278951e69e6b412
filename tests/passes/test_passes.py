"""Each pass on a small hand-built example, the pass manager, and the pipeline end to end."""
import io

import pytest

import builders as B
from tlc.errors import TLCompileError
from tlc.lower import ir
from tlc.driver import run_pipeline
from tlc.backends import get_pass, pipeline
from tlc.lower.passes import PassContext
from tlc.lower.printer import print_module
from tlc.lower.verify import verify
from tlc.backends.cpu.targets import X86_64

PIPELINE = tuple(pipeline())

AVX512 = X86_64.variants[0]


def ops_of(m, opcode=None):
    return [op for _, op in ir.walk_module(m) if opcode is None or op.opcode == opcode]


def run(m, *names):
    return run_pipeline(m, AVX512, passes=list(names))


def test_registry_rejects_unknown_pass():
    with pytest.raises(KeyError, match="unknown pass 'nope'"):
        get_pass("nope")
    with pytest.raises(KeyError):
        run_pipeline(B.chain_module(), AVX512, passes=["canonicalize", "nope"])
    assert [p.name for p in PIPELINE][:3] == ["infer_types", "canonicalize", "fold_constants"]


def test_print_ir_after_all_one_header_per_pass():
    s = io.StringIO()
    run_pipeline(B.chain_module(), AVX512, print_ir_after_all=True, stream=s)
    text = s.getvalue()
    for p in PIPELINE:
        assert text.count(f"// -----// IR after {p.name} //----- //") == 1
    assert text.count("// -----// IR after") == len(PIPELINE)


def test_infer_types_reports_location():
    m = B.chain_module()
    from tlc.lower.rewrite import rewrite_block
    import dataclasses
    k = m.kernels[0]
    # a `dim` typed as int32: verify would also reject; call the pass directly
    blk = rewrite_block(k.body, lambda op, emit: op.with_(type=ir.ScalarType(B.I32))
                        if op.opcode == "program_id" else op)
    bad = dataclasses.replace(m, kernels=(dataclasses.replace(k, body=blk),))
    with pytest.raises(TLCompileError) as e:
        get_pass("infer_types").run(bad, PassContext(AVX512))
    assert "k.py:3:5" in str(e.value)


def test_canonicalize_view_of_view_and_noop_casts():
    def build(b, x, out):
        one, two = b.const(1), b.const(2)
        v1 = b.op("view", (x, one, two), x.type)
        v2 = b.op("view", (v1, two, one), x.type)
        t = B.load(b, v2, (2, 8))
        c = b.op("cast", (t,), t.type, dtype=B.F32)
        bc = b.op("broadcast", (c,), t.type, shape=(2, 8))
        r = b.op("reshape", (bc,), t.type, shape=(2, 8))
        B.store(b, b.op("view", (out, one, one), out.type), r)
    m = run(B.kernel("k", [("x", ir.TensorType(B.F32, 2)), ("out", ir.TensorType(B.F32, 2))], build),
            "canonicalize", "fold_constants")
    views = ops_of(m, "view")
    assert all(v.operands[0].opcode == "arg" for v in views)
    load = ops_of(m, "load")[0]
    offs = [o.attr("value") for o in load.operands[0].operands[1:]]
    assert offs == [3, 3]                    # (1+2, 2+1) folded
    assert not ops_of(m, "cast") and not ops_of(m, "broadcast") and not ops_of(m, "reshape")
    assert ops_of(m, "store")[0].operands[1] is load


def test_infer_access():
    m = run(B.chain_module(), "infer_access")
    assert [p.access for p in m.kernels[0].params] == ["read", "write"]


def test_bounds_proves_loop_row_only():
    m = run(B.bounds_module(), "bounds")
    load, store = ops_of(m, "load")[0], ops_of(m, "store")[0]
    assert load.attr("checked") == (False, True)      # iv in [0, x.shape[0]), extent 1
    assert store.attr("checked") == (True, True)      # out's rows are not x's: unproven
    # lo = -1 or a non-dim bound: nothing proven
    m2 = run(B.chain_module(), "bounds")
    assert all(all(op.attr("checked")) for op in ops_of(m2, "load") + ops_of(m2, "store"))


def test_fuse_chain_into_one_fused_op():
    m = run(B.chain_module(), "canonicalize", "fuse_elementwise")
    fused = ops_of(m, "fused")
    assert len(fused) == 1
    f = fused[0]
    assert len(f.type.types) == 1 and f.type.types[0] == ir.TileType(B.F32, (4, 64))
    assert [o.opcode for o in f.operands] == ["load", "const"]       # tile input, splat scalar
    body = f.regions[0]
    assert [o.opcode for o in body.ops] == ["exp", "mul", "add", "yield"]
    assert all(isinstance(o.type, ir.ScalarType) for o in body.ops[:-1])
    assert not any(o.opcode in ("exp", "mul", "add", "splat") and isinstance(o.type, ir.TileType)
                   for o in ops_of(m))
    store = ops_of(m, "store")[0]
    assert store.operands[1].opcode == "getitem" and store.operands[1].operands[0] is f


def test_fuse_multiple_outputs_broadcast_inputs_and_regions():
    """e = exp(t) is stored AND used by a sum-reduce; d = e - broadcast(max) feeds a store."""
    def build(b, x, out):
        z = b.const(0)
        t = B.load(b, b.op("view", (x, z, z), x.type), (4, 8))
        e = b.op("exp", (t,), t.type)
        mx = b.op("reduce", (e,), ir.TileType(B.F32, (4, 1)), op="max", axis=1, keepdims=True)
        bm = b.op("broadcast", (mx,), t.type, shape=(4, 8))
        d = b.op("sub", (e, bm), t.type)
        n = b.op("neg", (d,), t.type)
        B.store(b, b.op("view", (out, z, z), out.type), n)
        B.store(b, b.op("view", (out, z, z), out.type), e)
    m = run(B.kernel("k", [("x", ir.TensorType(B.F32, 2)), ("out", ir.TensorType(B.F32, 2))], build),
            "fuse_elementwise", "plan_memory", "vectorize")
    f1, f2 = ops_of(m, "fused")
    assert [o.opcode for o in f1.regions[0].ops] == ["exp", "yield"]       # e is an output
    assert [o.opcode for o in f2.regions[0].ops] == ["sub", "neg", "yield"]
    assert sorted(o.type.shape for o in f2.operands) == [(4, 1), (4, 8)] and f2.attr("inner") == 1
    assert f1.attr("inner") == 2 and f1.attr("lanes") == 16
    assert ops_of(m, "reduce")[0].attr("lanes") == 16
    # fused inside a loop body stays inside it
    lm = run(B.loop_module(), "fuse_elementwise")
    loop = ops_of(lm, "for")[0]
    assert [o.opcode for o in loop.regions[0].ops] == ["view", "load", "fused", "getitem", "yield"]
    assert ops_of(lm, "fused")[0].regions[0].ops[0].opcode == "const"          # full(-inf)


def test_fuse_respects_intervening_use():
    """a = exp(t); store(a); b = a * a: b cannot be placed before the store, so a's group
    stays open only if legal; the IR must verify and keep order."""
    def build(b, x, out):
        z = b.const(0)
        v = b.op("view", (out, z, z), out.type)
        t = B.load(b, b.op("view", (x, z, z), x.type), (2, 4))
        a = b.op("exp", (t,), t.type)
        B.store(b, v, a)
        c = b.op("mul", (a, a), t.type)
        B.store(b, v, c)
    m = run(B.kernel("k", [("x", ir.TensorType(B.F32, 2)), ("out", ir.TensorType(B.F32, 2))], build),
            "fuse_elementwise")
    verify(m)
    body = m.kernels[0].body.ops
    st = [i for i, o in enumerate(body) if o.opcode == "store"]
    fu = [i for i, o in enumerate(body) if o.opcode == "fused"]
    assert len(fu) == 2 and fu[0] < st[0] < fu[1] < st[1]


def _overlap(a, b):
    return a[0] < b[0] + b[1] and b[0] < a[0] + a[1]


def test_plan_memory_reuses_sequential_temporaries():
    """two loads used one after the other (t1 dead before t2 is loaded) share an offset."""
    def build(b, x, out):
        z = b.const(0)
        v = b.op("view", (out, z, z), out.type)
        t1 = B.load(b, b.op("view", (x, z, z), x.type), (8, 8))
        B.store(b, v, t1)
        t2 = B.load(b, b.op("view", (x, z, z), x.type), (8, 8))
        B.store(b, v, t2)
    m = run(B.kernel("k", [("x", ir.TensorType(B.F32, 2)), ("out", ir.TensorType(B.F32, 2))], build),
            "plan_memory")
    l1, l2 = ops_of(m, "load")
    assert l1.attr("buf") == l2.attr("buf") == (0, 256)
    assert m.kernels[0].workspace == 256


def test_plan_memory_loop_carried_never_overlaps_loop_temps():
    m = run_pipeline(B.loop_module(), AVX512)
    loop = ops_of(m, "for")[0]
    carried = loop.regions[0].args[1]
    cb = carried.attr("buf")
    inner = [o for o in ir.walk(loop.regions[0]) if "buf" in dict(o.attrs)]
    assert inner
    for o in inner:
        assert not _overlap(cb, o.attr("buf")), o.opcode
    res = [o for o in ops_of(m, "getitem") if o.operands[0] is loop][0]
    assert res.attr("buf") == cb                       # the result aliases the carried buffer
    k = m.kernels[0]
    assert all(o.attr("buf")[0] % 64 == 0 for o in ops_of(m) if "buf" in dict(o.attrs))
    assert k.workspace >= max(o.attr("buf")[0] + o.attr("buf")[1] for o in ops_of(m) if "buf" in dict(o.attrs))


def test_plan_memory_outer_value_used_in_loop_lives_until_loop_end():
    """w is loaded before the loop and used inside it; a temp inside the loop must not reuse
    w's space even though w's textual last use is before the temp."""
    def build(b, x, out):
        z = b.const(0)
        w = B.load(b, b.op("view", (x, z, z), x.type), (1, 16))
        iv = B.arg("iv", 0, ir.ScalarType(B.I64))
        bb = B.B([iv])
        v = bb.op("view", (out, iv, z), out.type)
        B.store(bb, v, w)
        t = B.load(bb, bb.op("view", (x, iv, z), x.type), (1, 16))
        B.store(bb, v, t)
        bb.op("yield", ())
        b.op("for", (z, b.op("dim", (x,), ir.ScalarType(B.I64), axis=0), b.const(1)),
             ir.TupleType(()), regions=(bb.block(),))
    m = run_pipeline(B.kernel("k", [("x", ir.TensorType(B.F32, 2)), ("out", ir.TensorType(B.F32, 2))], build), AVX512)
    l1, l2 = ops_of(m, "load")
    assert not _overlap(l1.attr("buf"), l2.attr("buf"))


def test_int64_tiles_take_8_bytes_and_reshape_aliases():
    def build(b, x, out):
        z = b.const(0)
        t = B.load(b, b.op("view", (x, z), x.type), (16,), dtype=B.I64)
        r = b.op("reshape", (t,), ir.TileType(B.I64, (4, 4)), shape=(4, 4))
        B.store(b, b.op("view", (out, z, z), out.type), r)
    m = run(B.kernel("k", [("x", ir.TensorType(B.I64, 1)), ("out", ir.TensorType(B.I64, 2))], build),
            "plan_memory")
    ld, rs = ops_of(m, "load")[0], ops_of(m, "reshape")[0]
    assert ld.attr("buf") == rs.attr("buf") == (0, 128)


def test_full_pipeline_verifies_and_has_only_post_pipeline_opcodes():
    allowed_tile = {"load", "getitem", "dot", "reduce", "reshape", "trans", "arange", "arg"}
    for mk in (B.chain_module, B.loop_module, B.bounds_module):
        m = run_pipeline(mk(), AVX512)
        verify(m)
        for k in m.kernels:
            for op in ir.walk(k.body):
                if op.opcode == "fused":
                    continue
                if isinstance(op.type, ir.TileType):
                    assert op.opcode in allowed_tile or op.type.shape is None, op.opcode
        print_module(m)


def test_if_with_tile_result_round_trips_and_plans():
    """t = load; if pid == 0: r = t * 2 else: r = t; store(r)"""
    from tlc.lower.printer import parse_module
    def build(b, x, out):
        z = b.const(0)
        pid = b.op("program_id", (), ir.ScalarType(B.I64), axis=0)
        cond = b.op("eq", (pid, z), ir.ScalarType(B.BOOL))
        t = B.load(b, b.op("view", (x, z), x.type), (8,))
        th = B.B()
        s = th.op("splat", (th.const(2.0, B.F32),), t.type, shape=(8,))
        th.op("yield", (th.op("mul", (t, s), t.type),))
        el = B.B()
        el.op("yield", (t,))
        f = b.op("if", (cond,), ir.TupleType((t.type,)), regions=(th.block(), el.block()))
        r = b.op("getitem", (f,), t.type, index=0)
        B.store(b, b.op("view", (out, z), out.type), r)
    m = B.kernel("k", [("x", ir.TensorType(B.F32, 1)), ("out", ir.TensorType(B.F32, 1))], build)
    out = run_pipeline(m, AVX512)
    text = print_module(out)
    assert print_module(parse_module(text)) == text
    ld = ops_of(out, "load")[0]
    res = [o for o in ops_of(out, "getitem") if o.operands[0].opcode == "if"][0]
    inner = [o for o in ops_of(out, "getitem") if o.operands[0].opcode == "fused"][0]
    # the if result is written inside the branches, while t and the branch temp are live
    assert not _overlap(res.attr("buf"), ld.attr("buf"))
    assert not _overlap(res.attr("buf"), inner.attr("buf"))
