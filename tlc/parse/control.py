"""Structured control flow for the frontend: ``for`` (IR loop or static unrolling) and ``if``
(compile-time selection or IR ``if`` whose branch results merge through ``yield``).

Loop-carried values: a name assigned in the body that holds a runtime value (or a Python
number) before the loop is carried; its type must not change across iterations. A name
first assigned in the body is local to it. A name assigned in only one branch of a runtime
``if`` is usable after it only if it was defined before.
"""
from __future__ import annotations

import ast

from tlc.lower.dtypes import DType
from tlc.lower.ir import NONE, Op, ScalarType, TensorType
from tlc.parse.values import Builtin, PyBuiltin, Undefined


def assigned_names(stmts) -> list[str]:
    """Names stored anywhere in ``stmts``, in first-assignment order."""
    out: list[str] = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in out:
                out.append(n.id)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) \
                    and n.target.id not in out:
                out.append(n.target.id)
    return out


def read_before_write(stmts, name: str) -> bool:
    """Whether ``name`` may be read in ``stmts`` before a top-level statement assigns it."""
    for s in stmts:
        value_part = s.value if isinstance(s, (ast.Assign, ast.AnnAssign)) else s
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id == name:
            return True
        if value_part is not None and any(isinstance(n, ast.Name) and n.id == name
                                          and isinstance(n.ctx, ast.Load) for n in ast.walk(value_part)):
            return True
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and name in assigned_names([s]):
            return False
    return False


def _default_dtype(v) -> DType:
    return DType.bool if isinstance(v, bool) else DType.float32 if isinstance(v, float) else DType.int64


class _Retry(Exception):
    def __init__(self, name):
        self.name = name


def build_for(fv, node: ast.For) -> None:
    if node.orelse:
        raise fv.error(node, "`for ... else` is not supported")
    if not isinstance(node.target, ast.Name):
        raise fv.error(node.target, "the loop variable must be a single name")
    it = node.iter
    fn = fv.visit(it.func) if isinstance(it, ast.Call) else None
    static = fn == Builtin("static_range")
    if not (static or fn == PyBuiltin("range")) or it.keywords:
        raise fv.error(it, "kernels loop only over range(...) or tl.static_range(...)")
    args = [fv.visit(a) for a in it.args]
    if not 1 <= len(args) <= 3:
        raise fv.error(it, f"range takes 1 to 3 arguments, got {len(args)}")
    lo, hi, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    name = node.target.id
    if static:
        if not all(isinstance(v, int) for v in (lo, hi, step)):
            raise fv.error(it, "tl.static_range needs compile-time int bounds")
        for i in range(lo, hi, step):
            fv.bind(name, i, node.target)
            fv.visit_stmts(node.body)
        return
    if isinstance(step, int) and step == 0:
        raise fv.error(it, "range step must not be zero")
    bounds = [fv.b.to_int64(v) for v in (lo, hi, step)]
    excluded: set[str] = set()
    while True:
        saved_env, saved_loc = dict(fv.env), dict(fv.env_loc)
        try:
            _loop(fv, node, name, bounds, excluded)
            return
        except _Retry as r:
            fv.env, fv.env_loc = saved_env, saved_loc
            excluded.add(r.name)


def _loop(fv, node, name, bounds, excluded) -> None:
    b = fv.b
    assigned = [n for n in assigned_names(node.body) if n != name]
    carried, inits, fixed = [], [], {}
    for n in assigned:
        v = fv.env.get(n)
        if v is None or isinstance(v, Undefined) or n in excluded:
            continue
        if isinstance(v, Op):
            if isinstance(v.type, TensorType):
                fixed[n] = v
                continue
            carried.append(n)
            inits.append(v)
        elif isinstance(v, (int, float, bool)):
            carried.append(n)
            inits.append(b.const(v, _default_dtype(v)))
        else:
            fixed[n] = v
    b.push()
    iv = Op("arg", (), ScalarType(DType.int64), (("index", 0), ("name", name)), (), b.loc)
    cargs = [Op("arg", (), v.type, (("index", i + 1), ("name", n)), (), b.loc)
             for i, (n, v) in enumerate(zip(carried, inits))]
    pre_names = {n for n, v in fv.env.items() if not isinstance(v, Undefined)}
    fv.env[name] = iv
    for n, a in zip(carried, cargs):
        fv.env[n] = a
    fv.visit_stmts(node.body)
    yields = []
    for n, init in zip(carried, inits):
        v = fv.env[n]
        where = fv.env_loc.get(n, node)
        if isinstance(v, (int, float, bool)):
            v = b.materialize(v, init.type.dtype)
        if not isinstance(v, Op) or v.type != init.type:
            new = v.type if isinstance(v, Op) else type(v).__name__
            if not read_before_write(node.body, n):
                b.pop()
                raise _Retry(n)
            raise fv.error(where, f"loop-carried `{n}` changes type from {init.type} to {new}")
        yields.append(v)
    for n, v in fixed.items():
        if fv.env.get(n) is not v:
            raise fv.error(fv.env_loc.get(n, node), f"`{n}` holds a compile-time value or a tensor "
                           f"view and cannot be reassigned inside a runtime loop")
    b.emit("yield", yields, type=NONE)
    body = b.pop(args=[iv] + cargs)
    loop = b.emit("for", list(bounds) + inits, regions=(body,),
                  region_types=[tuple(v.type for v in yields)])
    for i, n in enumerate(carried):
        fv.env[n] = b.emit("getitem", (loop,), index=i)
    fv.env[name] = Undefined(f"the loop variable `{name}` is not available after its loop")
    for n in assigned:
        if n not in pre_names or n in excluded:
            fv.env[n] = Undefined(f"`{n}` is assigned inside the loop at line {node.lineno} and "
                                  f"is not available after it; define it before the loop")


def build_if(fv, node: ast.If) -> None:
    cond = fv.visit(node.test)
    if not isinstance(cond, Op):
        fv.visit_stmts(node.body if cond else node.orelse)
        return
    if not isinstance(cond.type, ScalarType):
        raise fv.error(node.test, f"an `if` condition must be a scalar, got {cond.type}; "
                                  f"use tl.where for tiles")
    b = fv.b
    cond = fv._as_bool(cond)
    pre, pre_loc = dict(fv.env), dict(fv.env_loc)
    b.push()
    fv.visit_stmts(node.body)
    then_ops, then_env = b.stack.pop(), fv.env
    fv.env = dict(pre)
    b.push()
    fv.visit_stmts(node.orelse)
    else_ops, else_env = b.stack.pop(), fv.env
    fv.env = dict(pre)
    fv.env_loc = {**pre_loc, **fv.env_loc}
    names = [n for n in dict.fromkeys(list(then_env) + list(else_env))
             if then_env.get(n) is not pre.get(n) or else_env.get(n) is not pre.get(n)]
    merged, tvals, evals = [], [], []
    for n in names:
        tv, ev = then_env.get(n), else_env.get(n)
        if tv is None or ev is None or isinstance(tv, Undefined) or isinstance(ev, Undefined):
            fv.env[n] = Undefined(f"`{n}` is assigned in only one branch of the `if` at line "
                                  f"{node.lineno}; define it before the `if`")
            continue
        if not isinstance(tv, Op) and not isinstance(ev, Op):
            if type(tv) is type(ev) and tv == ev:
                fv.env[n] = tv
                continue
            if not (isinstance(tv, (int, float, bool)) and isinstance(ev, (int, float, bool))):
                raise fv.error(node, f"`{n}` gets different compile-time values in the branches "
                                     f"of a runtime `if`")
            tv_t = ev_t = _default_dtype(tv if isinstance(tv, float) else ev)
        else:
            tv_t = tv.type.dtype if isinstance(tv, Op) else ev.type.dtype
            ev_t = ev.type.dtype if isinstance(ev, Op) else tv.type.dtype
        for v in (tv, ev):
            if isinstance(v, Op) and isinstance(v.type, TensorType) and tv is not ev:
                raise fv.error(node, f"tensor view `{n}` is assigned differently in the branches "
                                     f"of a runtime `if`")
        merged.append(n)
        tvals.append((tv, tv_t))
        evals.append((ev, ev_t))

    def close(ops, vals):
        b.stack.append(ops)
        outs = [b.materialize(v, d) for v, d in vals]
        b.emit("yield", outs, type=NONE)
        return b.pop(), outs

    then_blk, touts = close(then_ops, tvals)
    else_blk, eouts = close(else_ops, evals)
    for n, t, e in zip(merged, touts, eouts):
        if t.type != e.type:
            raise fv.error(node, f"`{n}` has type {t.type} in the `if` branch and {e.type} in "
                                 f"the `else` branch")
    res = b.emit("if", (cond,), regions=(then_blk, else_blk),
                 region_types=[tuple(o.type for o in touts), tuple(o.type for o in eouts)])
    for i, n in enumerate(merged):
        fv.env[n] = b.emit("getitem", (res,), index=i)
