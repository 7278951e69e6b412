"""Kernel declarations: finding ``@tl.kernel`` functions, their parameters, specializations and
grid rules, and building one :class:`tlc.lower.ir.Kernel` per specialization.

Naming: without ``specializations=`` one instance named ``<base>``; with it (a list of dicts,
or a dict of lists meaning every combination) one instance per dict, named ``<base>__<K>_<v>[__<K2>_<v2>]`` (keys sorted; dtypes by name; ``-`` -> ``m`` and
``.`` -> ``p`` in numbers).
"""
from __future__ import annotations

import ast

from tlc.errors import TLCompileError
from tlc.specs import expand as expand_specializations, instance_name
from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.ir import NONE, Op, ScalarType, TensorType
from tlc.parse.frontend import ConstBuilder, FileContext, FunctionVisitor
from tlc.parse.semantics import Builder, describe
from tlc.parse.values import Builtin, DeviceFunc, PlainFunc, PyBuiltin, TensorAnnot, TLModule


def _const_eval(ctx: FileContext, node, env=None):
    fv = FunctionVisitor(ctx, ConstBuilder(), dict(env or {}))
    return fv.visit(node)


def scan_module(ctx: FileContext, tree: ast.Module) -> list[tuple[ast.FunctionDef, ast.expr | None]]:
    """Records tl imports and module constants; returns (kernel def, decorator) pairs."""
    kernels = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.name == "tl":
                    ctx.globals[a.asname or "tl"] = TLModule()
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "tl":
            for a in stmt.names:
                ctx.globals[a.asname or a.name] = Builtin(a.name)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            try:
                ctx.globals[stmt.targets[0].id] = _const_eval(ctx, stmt.value)
            except TLCompileError:
                pass  # not a compile-time constant: invisible to kernels
        elif isinstance(stmt, ast.FunctionDef):
            if stmt.name not in ctx.globals:
                ctx.globals[stmt.name] = PlainFunc(stmt.name)
            for dec in stmt.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                try:
                    v = _const_eval(ctx, target)
                except TLCompileError:
                    continue
                if v == Builtin("kernel"):
                    kernels.append((stmt, dec))
                elif v == Builtin("func"):
                    if isinstance(dec, ast.Call):
                        raise ctx.error(dec, "@tl.func takes no arguments")
                    ctx.globals[stmt.name] = DeviceFunc(stmt.name, stmt)
    return kernels


def build_kernels(ctx: FileContext, fn: ast.FunctionDef, dec, only=None) -> list[ir.Kernel]:
    opts = {}
    if isinstance(dec, ast.Call):
        if dec.args:
            raise ctx.error(dec, "@tl.kernel takes keyword options only (grid=, specializations=)")
        for kw in dec.keywords:
            if kw.arg not in ("grid", "specializations"):
                raise ctx.error(kw, f"unknown @tl.kernel option `{kw.arg}`")
            opts[kw.arg] = kw.value
    specs = [None]
    if "specializations" in opts:
        specs = _const_eval(ctx, opts["specializations"])
        specs = expand_specializations(specs)   # a dict of lists: every combination
        if not isinstance(specs, (list, tuple)) or not all(isinstance(s, dict) for s in specs) or not specs:
            raise ctx.error(opts["specializations"], "specializations must be a list of dicts, or a dict of "
                                                     "non-empty lists (every combination)")
    out = []
    for spec in specs:
        name = fn.name if spec is None else instance_name(fn.name, spec)
        if only is not None and name not in only and fn.name not in only:
            continue
        out.append(build_kernel(ctx, fn, opts.get("grid"), spec or {}, name))
    return out


def _check_signature(ctx, fn):
    a = fn.args
    for bad, what in ((a.vararg, "*args"), (a.kwarg, "**kwargs")):
        if bad is not None:
            raise ctx.error(bad, f"kernels cannot take {what}")
    if a.kwonlyargs or a.posonlyargs:
        raise ctx.error(fn, "kernels take plain positional parameters only")


def build_kernel(ctx: FileContext, fn: ast.FunctionDef, grid_node, overrides: dict,
                 name: str) -> ir.Kernel:
    """One kernel instance with the constexpr values of ``overrides`` (others: defaults)."""
    _check_signature(ctx, fn)
    args = fn.args.args
    defaults = dict(zip([a.arg for a in args[len(args) - len(fn.args.defaults):]], fn.args.defaults))
    annots = {}
    for a in args:
        ann = a.annotation
        if isinstance(ann, ast.Call):
            annots[a.arg] = TensorAnnot() if _callee(ctx, ann) == Builtin("tensor") else None
            if annots[a.arg] is None:
                raise ctx.error(ann, f"unsupported annotation for `{a.arg}`")
        else:
            annots[a.arg] = _const_eval(ctx, ann) if ann is not None else None
    consts = {}
    for a in args:
        if annots[a.arg] == Builtin("constexpr"):
            if a.arg in overrides:
                consts[a.arg] = overrides[a.arg]
            elif a.arg in defaults:
                consts[a.arg] = _const_eval(ctx, defaults[a.arg])
            else:
                raise ctx.error(a, f"constexpr `{a.arg}` has no default and no specialization value")
    unknown = set(overrides) - set(consts)
    if unknown:
        raise ctx.error(fn, f"specialization names {sorted(unknown)} that are not constexpr "
                            f"parameters of `{fn.name}`")
    params, body_args, env = [], [], dict(consts)
    inferred_at: dict[str, ast.AST] = {}
    funcs = {k: v.node for k, v in ctx.globals.items() if isinstance(v, DeviceFunc)}
    ranks = infer_ranks(fn, [a.arg for a in args], inferred_at, funcs=funcs)
    inferred: dict[str, str] = {}     # tensor name -> how its rank was inferred (for rank errors)
    for a in args:
        ann = annots[a.arg]
        if a.arg in consts:
            params.append(ir.Param(a.arg, "constexpr", value=consts[a.arg]))
            continue
        if ann is None or ann == Builtin("tensor") or isinstance(ann, TensorAnnot):
            dtype, rank, dims = DType.float32, None, None
            if isinstance(a.annotation, ast.Call):
                dtype, rank, dims = _tensor_annot(ctx, a.annotation, consts)
            if rank is None:
                rank = ranks.get(a.arg, 1)
                node = inferred_at.get(a.arg)
                inferred[a.arg] = (f"inferred from its first use at {ctx.loc(node)}" if node is not None
                                   else "by default (no use shows its rank)")
            t = TensorType(dtype, rank)
            params.append(ir.Param(a.arg, "tensor", dtype, rank, dims=dims))
        else:
            d = {PyBuiltin("float"): DType.float32, PyBuiltin("int"): DType.int64,
                 PyBuiltin("bool"): DType.bool}.get(ann, ann)
            if not isinstance(d, DType):
                raise ctx.error(a.annotation, f"unsupported annotation for `{a.arg}`: use tl.tensor, "
                                              f"tl.tensor(dtype, rank), a dtype, or tl.constexpr")
            t = ScalarType(d)
            params.append(ir.Param(a.arg, "scalar", d))
        arg = ir.make("arg", (), t, ctx.loc(a), name=a.arg, index=len(body_args))
        body_args.append(arg)
        env[a.arg] = arg
    b = Builder()
    fv = FunctionVisitor(ctx, b, env)
    fv.inferred_ranks = inferred
    fv.top_body = fn.body
    fv.visit_stmts(fn.body)
    body = ir.Block(tuple(body_args), tuple(b.stack[0]))
    grid = build_grid(ctx, grid_node, params, consts) if grid_node is not None else None
    return ir.Kernel(name=name, params=tuple(params), body=body, grid=grid, loc=ctx.loc(fn),
                     base_name=fn.name, constexprs=tuple(consts.items()))


def _callee(ctx, call: ast.Call):
    try:
        return _const_eval(ctx, call.func)
    except TLCompileError:
        return None


def _tensor_annot(ctx, call: ast.Call, consts) -> tuple[DType, int | None, tuple | None]:
    """(dtype, rank, dims) of ``tl.tensor(dtype, rank)`` or ``tl.tensor(dtype, ("M", "N"))``:
    dims is None without a shape contract, else per axis a symbol name (str) or a fixed extent
    (int); the rank is its length."""
    nodes = dict(zip(["dtype", "rank"], call.args))
    nodes.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    if len(call.args) > 2 or set(nodes) - {"dtype", "rank"} or any(k.arg is None for k in call.keywords):
        raise ctx.error(call, "tl.tensor takes (dtype, rank) or (dtype, (axis names...))")
    rank_node = nodes.get("rank")
    dims = None
    if isinstance(rank_node, (ast.Tuple, ast.List)):
        dims = _shape_contract(ctx, rank_node, [(e, _const_eval(ctx, e, consts)) for e in rank_node.elts])
    bound = {k: _const_eval(ctx, v, consts) for k, v in nodes.items() if not (k == "rank" and dims is not None)}
    dtype = bound.get("dtype") or DType.float32
    rank = bound.get("rank")
    if isinstance(rank, (tuple, list)):      # a named constant holding the axes
        dims = _shape_contract(ctx, rank_node, [(rank_node, v) for v in rank])
    if dims is not None:
        rank = len(dims)
    if not isinstance(dtype, DType):
        raise ctx.error(call, f"tl.tensor dtype must be a dtype, got {describe(dtype)}")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
        raise ctx.error(call, f"tl.tensor rank must be a non-negative int or a tuple of axis names, "
                              f"got {describe(rank)}")
    return dtype, rank, dims


MAX_RANK = 8            # TL_MAX_RANK of libtl_runtime/include/tl/bundle_abi.h
MAX_FIXED_EXTENT = 2**31 - 3     # fixed extents are encoded as -2 - n in an int32 (bundle_abi.h TL_DIM_FIXED)


def _shape_contract(ctx, node, entries) -> tuple:
    """The axes of a shape contract: each a symbol name (an identifier string) or a fixed
    extent (an int in [0, 2**31 - 3]); 1 to TL_MAX_RANK of them."""
    if not entries:
        raise ctx.error(node, "tl.tensor shape contract is empty: name at least one axis, e.g. (\"N\",), "
                              "or give the rank 0 for a 0-d tensor")
    if len(entries) > MAX_RANK:
        raise ctx.error(node, f"tl.tensor shape contract has {len(entries)} axes, more than "
                              f"TL_MAX_RANK ({MAX_RANK})")
    dims = []
    for at, v in entries:
        if isinstance(v, str):
            if not v.isidentifier():
                raise ctx.error(at, f"tl.tensor axis name must be an identifier, got {v!r}")
        elif isinstance(v, int) and not isinstance(v, bool):
            if not 0 <= v <= MAX_FIXED_EXTENT:
                raise ctx.error(at, f"tl.tensor fixed extent must be in [0, {MAX_FIXED_EXTENT}], got {v}")
        else:
            raise ctx.error(at, f"tl.tensor axis must be a name (str) or a fixed extent (int), "
                                f"got {describe(v)}")
        dims.append(v)
    return tuple(dims)


def infer_ranks(fn: ast.FunctionDef, names, where: dict | None = None,
                funcs: dict | None = None, _active: frozenset = frozenset()) -> dict[str, int]:
    """Ranks of unannotated tensors from their first use in source order: ``t + (i, j)``,
    ``tl.load(t, shape)`` with a literal shape, ``tl.store(t, value)`` whose value is a tile of
    known rank (``a = tl.load(x, (4, 16)); tl.store(out, a)``: rank 2), a call of a ``@tl.func``
    (``funcs``: name -> FunctionDef) whose parameter shows the rank, else ``t.shape[k]``.
    ``where`` (optional) receives name -> the AST node the rank was inferred from."""
    names = set(names)
    funcs = funcs or {}
    nodes = sorted((n for n in ast.walk(fn) if hasattr(n, "lineno")),
                   key=lambda n: (n.lineno, n.col_offset))
    ranks: dict[str, int] = {}
    lower: dict[str, int] = {}
    lower_at: dict[str, ast.AST] = {}
    tiles: dict[str, int] = {}          # local name -> rank of the tile last assigned to it

    def found(name, rank, node):
        ranks[name] = rank
        if where is not None:
            where[name] = node

    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            r = _tile_rank(n.value, tiles)
            if r is not None:
                tiles[n.targets[0].id] = r
            else:
                tiles.pop(n.targets[0].id, None)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and isinstance(n.left, ast.Name) \
                and n.left.id in names and n.left.id not in ranks:
            if isinstance(n.right, (ast.Tuple, ast.List)):
                found(n.left.id, len(n.right.elts), n)
            elif not isinstance(n.right, ast.Name):
                found(n.left.id, 1, n)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "load" \
                and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id in names \
                and isinstance(n.args[1], ast.Tuple) and n.args[0].id not in ranks:
            found(n.args[0].id, len(n.args[1].elts), n)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id in names \
                and n.args[0].id not in ranks:
            r = _tile_rank(n.args[1], tiles)
            if r is not None:
                found(n.args[0].id, r, n)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in funcs \
                and n.func.id not in _active:
            callee = funcs[n.func.id]
            pnames = [a.arg for a in callee.args.args + callee.args.kwonlyargs]
            pairs = list(zip(n.args, pnames)) + [(k.value, k.arg) for k in n.keywords if k.arg]
            passed = {p: a.id for a, p in pairs
                      if isinstance(a, ast.Name) and a.id in names and a.id not in ranks}
            if passed:
                inner = infer_ranks(callee, passed, funcs=funcs, _active=_active | {n.func.id})
                for p, name in passed.items():
                    if p in inner and name not in ranks:
                        found(name, inner[p], n)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) \
                and n.value.attr == "shape" and isinstance(n.value.value, ast.Name) \
                and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, int):
            k = n.value.value.id
            if n.slice.value + 1 > lower.get(k, 0):
                lower[k] = max(1, n.slice.value + 1)
                lower_at[k] = n
    for k, v in lower.items():
        if k not in ranks:
            found(k, v, lower_at[k])
    return ranks


_SHAPED = {"load": 1, "zeros": 0, "full": 0}      # tl.<fn> whose argument i is a literal tile shape
_SAME_RANK = {"exp", "log", "sqrt", "rsqrt", "tanh", "erf", "gelu", "sigmoid", "abs", "floor", "ceil",
              "cast", "maximum", "minimum", "where", "fma", "to"}


def _tile_rank(e, tiles: dict[str, int]) -> int | None:
    """The rank of the tile expression ``e`` when the source shows it plainly, else None."""
    if isinstance(e, ast.Name):
        return tiles.get(e.id)
    if isinstance(e, ast.BinOp):
        rs = [r for r in (_tile_rank(e.left, tiles), _tile_rank(e.right, tiles)) if r is not None]
        return max(rs) if rs else None
    if isinstance(e, ast.UnaryOp):
        return _tile_rank(e.operand, tiles)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        attr = e.func.attr
        if attr in _SHAPED and len(e.args) > _SHAPED[attr] and isinstance(e.args[_SHAPED[attr]], ast.Tuple):
            return len(e.args[_SHAPED[attr]].elts)
        if attr in _SAME_RANK:
            rs = [r for r in (_tile_rank(a, tiles) for a in [e.func.value, *e.args]) if r is not None]
            return max(rs) if rs else None
    return None


def build_grid(ctx: FileContext, node, params, consts) -> ir.Block:
    """The grid rule as a block: args mirror the kernel's runtime params; yields int64s."""
    b = Builder()
    args, by_name = [], {}
    for p in params:
        if p.kind == "constexpr":
            continue
        t = TensorType(p.dtype, p.rank) if p.kind == "tensor" else ScalarType(p.dtype)
        a = ir.make("arg", (), t, ctx.loc(node), name=p.name, index=len(args))
        args.append(a)
        by_name[p.name] = a
    env = {}
    if isinstance(node, ast.Lambda):
        la = node.args
        if la.vararg or la.kwarg or la.kwonlyargs or la.defaults:
            raise ctx.error(node, "the grid lambda takes plain parameter names only")
        for a in la.args:
            if a.arg in by_name:
                env[a.arg] = by_name[a.arg]
            elif a.arg in consts:
                env[a.arg] = consts[a.arg]
            else:
                raise ctx.error(a, f"grid lambda parameter `{a.arg}` is not a parameter of the kernel")
        expr = node.body
    else:
        expr = node
    fv = FunctionVisitor(ctx, b, env)
    val = fv.visit(expr)
    if not isinstance(val, tuple):
        val = (val,)
    if not 1 <= len(val) <= 3:
        raise ctx.error(expr, f"the grid must have 1 to 3 dimensions, got {len(val)}")
    b.loc = ctx.loc(expr)
    try:
        outs = [b.to_int64(v) for v in val]
    except ValueError as e:
        raise ctx.error(expr, f"grid sizes must be integers: {e}") from None
    b.emit("yield", outs, type=NONE)
    return ir.Block(tuple(args), tuple(b.stack[0]))


_ = Op
