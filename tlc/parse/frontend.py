"""The TL frontend visitor: Python ``ast`` of one kernel body -> typed tile IR.

Partial evaluation: Python ints/floats/bools/strings/tuples/dtypes and constexpr values are
compile-time values; runtime scalars, tiles and tensors are IR ops built through
:class:`tlc.parse.semantics.Builder`. Every user mistake raises ``TLCompileError`` at the
innermost AST node being visited; unexpected exceptions become "internal compiler error"
at that node. Statement forms: assignment (incl. tuple unpacking and ``+=``), expression
statements, ``for`` over ``range``/``tl.static_range``, ``if``, ``pass``, a bare trailing
``return``, ``assert`` on compile-time conditions, and calls of ``@tl.func`` device functions
(inlined by :mod:`tlc.parse.funcs`).
"""
from __future__ import annotations

import ast
import operator

from tlc.errors import TLCompileError
from tlc.lower import ir
from tlc.lower.dtypes import BY_NAME, DType
from tlc.lower.ir import Op, ScalarType, TensorType, TileType
from tlc.parse import builtins as B
from tlc.parse.funcs import inline_call
from tlc.parse.semantics import Builder, describe
from tlc.parse.values import (PY_BUILTINS, BoundMethod, Builtin, DeviceFunc, PlainFunc, PyBuiltin,
                              ShapeProxy, TLModule, Undefined, is_compile_time)

BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
          ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and",
          ast.BitOr: "or", ast.BitXor: "xor"}
PYOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
         ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
         ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
PYCMP = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
         ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_,
         ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
         ast.NotIn: lambda a, b: a not in b}
UNSUPPORTED = {
    "While": "`while` loops are not supported; use `for i in range(...)`",
    "Break": "`break` is not supported in kernels", "Continue": "`continue` is not supported in kernels",
    "Lambda": "lambda is not supported inside kernels", "FunctionDef": "nested functions are not supported",
    "ListComp": "list comprehensions are not supported", "GeneratorExp": "generators are not supported",
    "DictComp": "dict comprehensions are not supported", "SetComp": "set comprehensions are not supported",
    "With": "`with` is not supported in kernels", "Try": "`try` is not supported in kernels",
    "Global": "`global` is not supported", "Nonlocal": "`nonlocal` is not supported",
    "Delete": "`del` is not supported", "Raise": "`raise` is not supported in kernels",
    "Import": "imports inside kernels are not supported",
    "ImportFrom": "imports inside kernels are not supported",
    "Yield": "`yield` is not supported", "Await": "`await` is not supported",
    "JoinedStr": "f-strings are not supported in kernels", "NamedExpr": "`:=` is not supported",
}


def is_number(v) -> bool:
    return isinstance(v, (int, float, bool))


class FileContext:
    """Per-file state: name, source lines, names bound to the tl module, module constants."""

    def __init__(self, filename: str, source: str):
        self.filename = filename
        self.lines = source.splitlines()
        self.globals: dict[str, object] = {}

    def loc(self, node) -> ir.Loc:
        """file:line:col of an AST node; col counts characters (ast's col_offset counts UTF-8 bytes)."""
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        if col and 0 < line <= len(self.lines) and not self.lines[line - 1].isascii():
            col = len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))
        return ir.Loc(self.filename, line, col + 1)

    def error(self, node, message: str) -> TLCompileError:
        loc = self.loc(node)
        line = self.lines[loc.line - 1] if 0 < loc.line <= len(self.lines) else None
        return TLCompileError(message, loc, line)


class ConstBuilder(Builder):
    """A builder that refuses runtime ops: used for decorators, annotations, module constants."""

    def emit(self, opcode, *a, **k):
        raise ValueError("expected a compile-time constant here")


class FunctionVisitor(ast.NodeVisitor):
    """Visits one kernel body (or a grid lambda / constant expression) into a Builder."""

    def __init__(self, ctx: FileContext, builder: Builder, env: dict):
        self.ctx = ctx
        self.b = builder
        self.env = env
        self.env_loc: dict[str, ast.AST] = {}

    # ------------------------------------------------------------------ plumbing
    def error(self, node, message: str) -> TLCompileError:
        return self.ctx.error(node, message)

    def visit(self, node):
        saved = self.b.loc
        self.b.loc = self.ctx.loc(node)
        try:
            return super().visit(node)
        except TLCompileError:
            raise
        except (ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, OverflowError) as e:
            if isinstance(e, (ValueError, ZeroDivisionError, OverflowError)) or \
                    getattr(e, "tl_user", False):
                raise self.error(node, str(e)) from None
            raise self.error(node, f"internal compiler error: {type(e).__name__}: {e}") from None
        except Exception as e:  # noqa: BLE001 - any compiler bug becomes a located error
            raise self.error(node, f"internal compiler error: {type(e).__name__}: {e}") from None
        finally:
            self.b.loc = saved

    def generic_visit(self, node):
        name = type(node).__name__
        raise self.error(node, UNSUPPORTED.get(name, f"unsupported construct `{name}` in a kernel"))

    def visit_stmts(self, stmts) -> None:
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return) and self.device_func is not None:
                if i != len(stmts) - 1 or stmts is not self.top_body:
                    raise self.error(s, "a @tl.func returns once, as the last statement of its body "
                                        "(assign to a name inside branches and loops instead)")
                self.result = self.visit(s.value) if s.value is not None else None
                continue
            if isinstance(s, ast.Return):
                if s.value is not None:
                    raise self.error(s, "kernels cannot return a value; store results with tl.store")
                if i != len(stmts) - 1 or stmts is not self.top_body:
                    raise self.error(s, "early `return` is not supported; only a final bare return")
                continue
            self.visit(s)

    top_body: list = []
    # Inlining a @tl.func (tlc/parse/funcs.py): its name, and the value of its final `return`.
    device_func: str | None = None
    result = None

    def bind(self, name: str, value, node) -> None:
        self.env[name] = value
        self.env_loc[name] = node

    # ------------------------------------------------------------------ expressions
    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        name = node.id
        if name in self.env:
            v = self.env[name]
            if isinstance(v, Undefined):
                raise self.error(node, v.reason)
            return v
        if name in self.ctx.globals:
            return self.ctx.globals[name]
        if name in PY_BUILTINS:
            return PyBuiltin(name)
        raise self.error(node, f"undefined name `{name}`")

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    visit_List = visit_Tuple

    def visit_Dict(self, node):
        if any(k is None for k in node.keys):
            raise self.error(node, "`**` in dict literals is not supported")
        return {self.visit(k): self.visit(v) for k, v in zip(node.keys, node.values)}

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        attr = node.attr
        if isinstance(base, TLModule):
            if attr in BY_NAME:
                return BY_NAME[attr]
            if attr == "bool_":
                return DType.bool
            if attr in B.BUILTINS or attr in B.SPECIAL:
                return Builtin(attr)
            raise self.error(node, f"unknown builtin `tl.{attr}`")
        if isinstance(base, Op):
            if isinstance(base.type, TensorType):
                if attr == "shape":
                    return ShapeProxy(base)
                if attr == "dtype":
                    return base.type.dtype
                raise self.error(node, f"tensors have no attribute `{attr}` (use .shape, .dtype)")
            if attr == "shape":
                return base.type.shape if isinstance(base.type, TileType) else ()
            if attr == "dtype":
                return base.type.dtype
            if attr == "T":
                return B.trans(self, base)
            if attr in B.METHODS:
                return BoundMethod(attr, base)
            raise self.error(node, f"tiles have no attribute `{attr}`; supported: .shape, .dtype, "
                                   f".T, " + ", ".join(f".{m}()" for m in sorted(B.METHODS)))
        if isinstance(base, ShapeProxy):
            raise self.error(node, f"`.shape` has no attribute `{attr}`")
        if isinstance(base, DType) and attr in ("itemsize", "is_float", "is_int", "is_bool"):
            return getattr(base, attr)
        raise self.error(node, f"unsupported attribute `.{attr}` on {type(base).__name__}")

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Name) and f.id not in self.env and f.id not in self.ctx.globals \
                and f.id not in PY_BUILTINS:
            raise self.error(node, f"unknown function `{f.id}`: kernels can call tl.* builtins and "
                                   f"@tl.func functions of the same file only")
        fn = self.visit(f)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.visit(a.value)
                if not isinstance(v, tuple):
                    raise self.error(a, "`*` unpacking needs a compile-time tuple")
                args.extend(v)
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                raise self.error(k, "`**kwargs` in calls is not supported")
            kwargs[k.arg] = self.visit(k.value)
        if isinstance(fn, Builtin):
            if fn.name in B.SPECIAL:
                raise self.error(node, f"tl.{fn.name} is only valid as the iterable of a `for`")
            return B.call(self, f"tl.{fn.name}", B.BUILTINS[fn.name], args, kwargs)
        if isinstance(fn, BoundMethod):
            return B.call(self, f".{fn.name}()", B.METHODS[fn.name], [fn.obj] + args, kwargs)
        if isinstance(fn, PyBuiltin):
            return B.py_builtin(self, fn.name, args, kwargs)
        if isinstance(fn, DeviceFunc):
            return inline_call(self, fn, args, kwargs, node)
        if isinstance(fn, PlainFunc):
            raise self.error(node, f"`{fn.name}` is a plain Python function: mark it @tl.func to call "
                                   f"it from a kernel (device functions are inlined)")
        fname = ast.unparse(node.func)
        raise self.error(node, f"unknown function `{fname}`: kernels can call tl.* builtins only")

    def visit_BinOp(self, node):
        a, b = self.visit(node.left), self.visit(node.right)
        t = type(node.op)
        if isinstance(a, Op) and isinstance(a.type, TensorType):
            if t is not ast.Add:
                raise self.error(node, "only `tensor + (offsets...)` is allowed on tensors")
            return B.make_view(self, a, b)
        if isinstance(a, ShapeProxy) or isinstance(b, ShapeProxy):
            raise self.error(node, "index `.shape` with a constant, e.g. x.shape[0]")
        if is_compile_time(a) and is_compile_time(b):
            if t not in PYOPS:
                raise self.error(node, f"unsupported operator {type(node.op).__name__}")
            return PYOPS[t](a, b)
        if t is ast.MatMult:
            return B.dot(self, a, b)
        if t not in BINOPS:
            raise self.error(node, f"unsupported operator {type(node.op).__name__} on tiles")
        if isinstance(b, Op) and isinstance(b.type, TensorType):
            raise self.error(node, "a tensor must be the left operand of a view offset `t + (i, j)`")
        return self.b.binary(BINOPS[t], a, b)

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        t = type(node.op)
        if is_compile_time(v):
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                    ast.Invert: operator.invert}[t](v)
        if t is ast.UAdd:
            return v
        if t is ast.USub:
            return self.b.unary("neg", v)
        if isinstance(v.type, ScalarType) and t is ast.Not and not v.type.dtype.is_bool:
            v = self.b.binary("ne", v, 0)
        return self.b.unary("not", v)

    def visit_Compare(self, node):
        left = self.visit(node.left)
        result = None
        for op, comp in zip(node.ops, node.comparators):
            right = self.visit(comp)
            t = type(op)
            if is_compile_time(left) and is_compile_time(right):
                r = PYCMP[t](left, right)
            elif t in CMPOPS:
                r = self.b.binary(CMPOPS[t], left, right)
            else:
                raise self.error(node, f"`{type(op).__name__}` needs compile-time operands")
            result = r if result is None else self._and(result, r)
            left = right
        return result

    def _and(self, a, b):
        if is_compile_time(a) and is_compile_time(b):
            return a and b
        return self.b.binary("and", self._as_bool(a), self._as_bool(b))

    def _as_bool(self, v):
        if isinstance(v, Op) and v.type.dtype is not DType.bool:
            return self.b.binary("ne", v, 0)
        return bool(v) if is_compile_time(v) else v

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        acc = self.visit(node.values[0])
        for sub in node.values[1:]:
            if is_compile_time(acc):
                if bool(acc) != is_and:   # short circuit
                    return acc
                acc = self.visit(sub)
                continue
            v = self.visit(sub)
            if is_compile_time(v) and bool(v) == is_and:
                continue
            acc = self.b.binary("and" if is_and else "or", self._as_bool(acc), self._as_bool(v))
        return acc

    def visit_IfExp(self, node):
        c = self.visit(node.test)
        if is_compile_time(c):
            return self.visit(node.body if c else node.orelse)
        return self.b.where(c, self.visit(node.body), self.visit(node.orelse))

    def visit_Slice(self, node):
        parts = [None if p is None else self.visit(p) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def visit_Subscript(self, node):
        base = self.visit(node.value)
        idx = self.visit(node.slice)
        if isinstance(base, ShapeProxy):
            rank = base.tensor.type.rank
            if not isinstance(idx, int) or not -rank <= idx < rank:
                raise self.error(node, f"tensor .shape index must be a constant in [-{rank}, {rank}), "
                                       f"got {describe(idx, self.env)}")
            return self.b.emit("dim", (base.tensor,), axis=idx % rank)
        if isinstance(base, Op):
            return B.subscript_tile(self, base, idx)
        try:
            return base[idx]
        except (TypeError, IndexError, KeyError) as e:
            raise self.error(node, f"bad compile-time subscript: {e}") from None

    # ------------------------------------------------------------------ statements
    def visit_Expr(self, node):
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Assert(self, node):
        B.static_assert(self, self.visit(node.test), self.visit(node.msg) if node.msg else "")

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            raise self.error(node, "an annotation without a value declares nothing")
        self.assign(node.target, self.visit(node.value))

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "augmented assignment needs a plain name")
        fake = ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=node.op, right=node.value)
        ast.copy_location(fake, node)
        ast.copy_location(fake.left, node.target)
        self.bind(node.target.id, self.visit(fake), node)

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, target)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, ShapeProxy):
                value = tuple(self.b.emit("dim", (value.tensor,), axis=i)
                              for i in range(value.tensor.type.rank))
            if not isinstance(value, tuple):
                raise self.error(target, "tuple assignment needs a compile-time tuple on the right")
            if len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        raise self.error(target, f"cannot assign to `{ast.unparse(target)}`: only names and tuples "
                                 f"of names (write to tensors with tl.store)")

    def visit_If(self, node):
        from tlc.parse.control import build_if
        build_if(self, node)

    def visit_For(self, node):
        from tlc.parse.control import build_for
        build_for(self, node)
