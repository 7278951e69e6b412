"""Device functions: ``@tl.func`` helpers that kernels call, inlined by the frontend.

A ``@tl.func`` is a module-level function in the same TL file. Each call is expanded at the call
site (as Triton inlines ``@triton.jit`` helpers): the callee's body is visited with its parameters
bound to the caller's values (tiles, scalars, tensor views, compile-time constants and tuples of
them) and emits into the caller's IR, so the result is the same IR as if the body were written
inline, and every later pass and emitter sees no call at all.

Rules (each broken rule is a located error):
  * arguments bind like Python's (positional, keyword, defaults; defaults are compile-time
    constants); a ``tl.constexpr`` parameter needs a compile-time value; a ``tl.tensor``
    parameter needs a tensor view;
  * the body may ``return`` once, as its last statement (a value, a tuple, or nothing);
  * no recursion (direct or mutual);
  * the callee sees its parameters, the module's constants and other ``@tl.func``s, never the
    caller's local names.

``fv`` below is the calling ``tlc.parse.frontend.FunctionVisitor``; the callee's body is visited by
a new visitor of the caller's class in its ``device_func`` mode (the final ``return`` fills
``result``), so this module imports nothing of the frontend, which imports it.
"""
from __future__ import annotations

import ast

from tlc.errors import TLCompileError
from tlc.lower.ir import Op, TensorType
from tlc.parse.values import Builtin, DeviceFunc, TensorAnnot, is_compile_time


def _annotation(fv, arg: ast.arg):
    ann = arg.annotation
    if ann is None:
        return None
    target = ann.func if isinstance(ann, ast.Call) else ann
    return fv.visit(target)


def _bind(fv, fn: DeviceFunc, args: list, kwargs: dict, call: ast.Call) -> dict:
    """name -> value for the callee's parameters; errors point at the call."""
    spec = fn.node.args
    if spec.vararg or spec.kwarg or spec.posonlyargs:
        raise fv.error(fn.node, f"@tl.func `{fn.name}`: *args, **kwargs and positional-only "
                                f"parameters are not supported")
    params = spec.args + spec.kwonlyargs
    names = [a.arg for a in params]
    npos = len(spec.args)
    if len(args) > npos:
        raise fv.error(call, f"`{fn.name}` takes {npos} positional argument(s), got {len(args)}")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise fv.error(call, f"`{fn.name}` has no parameter `{k}`")
        if k in bound:
            raise fv.error(call, f"`{fn.name}` got two values for parameter `{k}`")
        bound[k] = v
    defaults = dict(zip([a.arg for a in spec.args[npos - len(spec.defaults):]], spec.defaults))
    defaults.update({a.arg: d for a, d in zip(spec.kwonlyargs, spec.kw_defaults) if d is not None})
    consts = type(fv)(fv.ctx, fv.b, {})
    for a in params:
        if a.arg not in bound:
            if a.arg not in defaults:
                raise fv.error(call, f"`{fn.name}` is missing argument `{a.arg}`")
            bound[a.arg] = consts.visit(defaults[a.arg])
        kind = _annotation(consts, a)
        v = bound[a.arg]
        if kind == Builtin("constexpr") and not is_compile_time(v):
            raise fv.error(call, f"argument `{a.arg}` of `{fn.name}` is tl.constexpr and needs a "
                                 f"compile-time value")
        if (kind == Builtin("tensor") or isinstance(kind, TensorAnnot)) and not (
                isinstance(v, Op) and isinstance(v.type, TensorType)):
            raise fv.error(call, f"argument `{a.arg}` of `{fn.name}` must be a tensor view")
    return bound


def inline_call(fv, fn: DeviceFunc, args: list, kwargs: dict, call: ast.Call):
    """Expands ``fn(*args, **kwargs)`` into ``fv``'s builder; returns the callee's return value
    (None when it returns nothing). Raises TLCompileError located in the callee's body (with the
    call site named) or at the call for binding errors and recursion."""
    stack = getattr(fv, "call_stack", ())
    if fn.name in stack:
        raise fv.error(call, f"recursive call of @tl.func `{fn.name}` "
                             f"({' -> '.join(stack + (fn.name,))}): device functions are inlined")
    env = _bind(fv, fn, args, kwargs, call)
    child = type(fv)(fv.ctx, fv.b, env)
    child.device_func = fn.name
    child.call_stack = stack + (fn.name,)
    child.top_body = fn.node.body
    child.inferred_ranks = getattr(fv, "inferred_ranks", None)
    try:
        child.visit_stmts(fn.node.body)
    except TLCompileError as e:
        note = f"  in @tl.func `{fn.name}`, called at {fv.ctx.loc(call)}"
        raise TLCompileError(e.message, e.loc, e.source_line, e.notes + (note,)) from None
    return child.result
