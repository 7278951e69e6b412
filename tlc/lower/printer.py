"""The textual form of the tile IR: ``print_module`` and ``parse_module`` round-trip
(``print_module(parse_module(print_module(m))) == print_module(m)``).

Form (one op per line, MLIR-like; values are numbered per kernel in print order)::

    module {source_file="seed_form.py"}
    kernel @matmul {base_name="matmul", constexprs=(), workspace=0}  // seed_form.py:10:1
      param {access="none", dtype=tl.float32, kind="tensor", name="a", rank=2, value=None}
      body {
        %0 = arg {index=0, name="a"} : tensor<2xf32>
        %5 = load %3 {checked=(True, True), has_mask=False, has_other=False, shape=(128, 64)} : tile<128x64xf32>  // seed_form.py:13:14
        %9 = for %6, %7, %8, %5 : (tile<128x64xf32>) {  // k.py:3:5
          %10 = arg {index=0, name="iv"} : i64
          ...
          yield %12
        }
        store %4, %9 {...} : none
      }
    }

A block is ``{`` + its ``arg`` lines + its ops + ``}``; an op with several regions prints
``} {`` between them. Attr values are Python literals (tuples, ints, floats incl. inf/nan,
strings, True/False/None) and dtypes as ``tl.<name>``; they are read back with a safe
``ast`` walk, never ``eval``. Lines starting with ``//`` are comments (e.g. the ``// -----// IR
after <pass>`` headers of ``--print-ir-after-all``). Raises :class:`IRParseError`, whose message
starts ``line <n>:`` (and whose ``line`` attribute is n), on bad text.
"""
from __future__ import annotations

import ast
import math
import re
from typing import Any

from tlc.lower import ir
from tlc.lower import spaces
from tlc.lower.dtypes import BY_NAME, BY_SHORT, DType


class IRParseError(ValueError):
    """Bad IR text; ``line`` is the 1-based line number (None until the parser locates it)."""

    def __init__(self, msg: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {msg}" if line is not None else msg)
        self.msg, self.line = msg, line


# ----------------------------------------------------------------------------- values
def fmt_value(v: Any) -> str:
    if isinstance(v, DType):
        return f"tl.{v.name}"
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, tuple):
        inner = ", ".join(fmt_value(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(fmt_value(x) for x in v) + "]"
    raise TypeError(f"cannot print attr value {v!r}")


def fmt_attrs(attrs) -> str:
    return "{" + ", ".join(f"{k}={fmt_value(v)}" for k, v in attrs) + "}"


def _lit(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_lit(e) for e in node.elts)
    if isinstance(node, ast.List):
        return [_lit(e) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _lit(node.operand)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
    if isinstance(node, ast.Name) and node.id in ("inf", "nan"):
        return float(node.id)
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "tl" and node.attr in BY_NAME):
        return BY_NAME[node.attr]
    raise IRParseError(f"bad attr value: {ast.unparse(node)}")


def parse_attrs(text: str) -> tuple[tuple[str, Any], ...]:
    """``{k=v, ...}`` -> attrs tuple (in the printed order)."""
    if not (text.startswith("{") and text.endswith("}")):
        raise IRParseError(f"expected attrs in braces, got {text!r}")
    try:
        call = ast.parse(f"f({text[1:-1]})", mode="eval").body
    except SyntaxError as e:
        raise IRParseError(f"bad attrs {text}: {e.msg}") from None
    if not isinstance(call, ast.Call) or call.args or any(kw.arg is None for kw in call.keywords):
        raise IRParseError(f"bad attrs {text}: expected name=value pairs")
    return tuple((kw.arg, _lit(kw.value)) for kw in call.keywords)


# ----------------------------------------------------------------------------- types
def fmt_type(t: Any) -> str:
    return str(t)


_TILE = re.compile(r"tile<(?:((?:\d+x)*))(\w+)(?:,\s*(\w+))?>$")
_TENSOR = re.compile(r"tensor<(\d+)x(\w+)>$")


def parse_type(s: str) -> Any:
    s = s.strip()
    if s == "none":
        return ir.NONE
    if s.startswith("(") and s.endswith(")"):
        return ir.TupleType(tuple(parse_type(p) for p in _split_top(s[1:-1])))
    if (m := _TILE.match(s)) and m.group(2) in BY_SHORT:
        dims = tuple(int(x) for x in m.group(1).split("x") if x)
        if m.group(3) is None:
            return ir.TileType(BY_SHORT[m.group(2)], dims)
        if m.group(3) not in spaces.SPACES:
            raise IRParseError(f"bad type {s!r}: unknown memory space {m.group(3)!r} (known: {', '.join(spaces.SPACES)})")
        return ir.TileType(BY_SHORT[m.group(2)], dims, m.group(3))
    if (m := _TENSOR.match(s)) and m.group(2) in BY_SHORT:
        return ir.TensorType(BY_SHORT[m.group(2)], int(m.group(1)))
    if s in BY_SHORT:
        return ir.ScalarType(BY_SHORT[s])
    raise IRParseError(f"bad type {s!r}")


def _split_top(s: str) -> list[str]:
    """Splits on commas outside (), <>, {} and string literals."""
    parts, depth, cur, quote = [], 0, [], False
    i = 0
    while i < len(s):
        c = s[i]
        if quote:
            cur.append(c)
            if c == "\\":
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
            cur.append(c)
        elif c in "(<{[":
            depth += 1
            cur.append(c)
        elif c in ")>}]":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _match_brace(s: str, start: int) -> int:
    """Index just past the ``}`` matching the ``{`` at ``start`` (string-aware)."""
    depth, quote, i = 0, False, start
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise IRParseError(f"unbalanced braces in {s!r}")


# ----------------------------------------------------------------------------- printing
class _Printer:
    def __init__(self, files: dict | None = None) -> None:
        self.files = files or {}            # loc.file -> the name printed (print_module's display_file)
        self.ids: dict[int, int] = {}
        self.keep: list[ir.Op] = []
        self.lines: list[str] = []

    def name(self, op: ir.Op) -> str:
        if id(op) not in self.ids:
            self.ids[id(op)] = len(self.ids)
            self.keep.append(op)
        return f"%{self.ids[id(op)]}"

    def op_line(self, op: ir.Op) -> str:
        head = "" if op.type == ir.NONE and not op.regions else f"{self.name(op)} = "
        text = head + op.opcode
        if op.operands:
            text += " " + ", ".join(self.name(o) for o in op.operands)
        if op.attrs:
            text += " " + fmt_attrs(op.attrs)
        text += " : " + fmt_type(op.type)
        return text

    def loc(self, loc: ir.Loc) -> str:
        return f"{self.files.get(loc.file, loc.file)}:{loc.line}:{loc.col}"

    def block(self, block: ir.Block, indent: str) -> None:
        for a in block.args:
            self.op(a, indent)
        for op in block.ops:
            self.op(op, indent)

    def op(self, op: ir.Op, indent: str) -> None:
        line = self.op_line(op)
        loc = f"  // {self.loc(op.loc)}" if op.loc is not None else ""
        if not op.regions:
            self.lines.append(indent + line + loc)
            return
        self.lines.append(indent + line + " {" + loc)
        for i, r in enumerate(op.regions):
            if i:
                self.lines.append(indent + "} {")
            self.block(r, indent + "  ")
        self.lines.append(indent + "}")


def print_kernel(k: ir.Kernel, p: _Printer | None = None) -> str:
    p = p or _Printer()
    hdr = fmt_attrs((("base_name", k.base_name), ("constexprs", k.constexprs),
                     ("workspace", k.workspace)))
    p.lines.append(f"kernel @{k.name} {hdr}" + (f"  // {p.loc(k.loc)}" if k.loc else ""))
    for prm in k.params:
        p.lines.append("  param " + fmt_attrs((("access", prm.access), ("dtype", prm.dtype),
                                               ("kind", prm.kind), ("name", prm.name),
                                               ("rank", prm.rank), ("value", prm.value))
                                   + ((("dims", prm.dims),) if prm.dims is not None else ())))
    if k.grid is not None:
        p.lines.append("  grid {")
        p.block(k.grid, "    ")
        p.lines.append("  }")
    p.lines.append("  body {")
    p.block(k.body, "    ")
    p.lines.append("  }")
    p.lines.append("}")
    return "\n".join(p.lines)


def print_op(op: ir.Op) -> str:
    """One op (and its regions) on its own, for error messages; operand numbers are local."""
    p = _Printer()
    p.op(op, "")
    return "\n".join(p.lines)


def print_module(module: ir.Module, display_file: str | None = None) -> str:
    """The module's text; ``display_file`` replaces ``module.source_file`` (there and in every
    location), e.g. a path relative to the build root."""
    files = {module.source_file: display_file} if display_file else {}
    out = [f"module {fmt_attrs((('source_file', files.get(module.source_file, module.source_file)),))}"]
    for k in module.kernels:
        out.append(print_kernel(k, _Printer(files)))
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- parsing
_LOC = re.compile(r"^(.*?)  // (.+):(\d+):(\d+)$")
_OPHEAD = re.compile(r"^(?:%(\d+) = )?(\w+)(.*)$")


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = [(i + 1, ln.strip()) for i, ln in enumerate(text.splitlines())]
        self.lines = [(n, s) for n, s in self.lines if s and not s.startswith("//")]
        self.pos = 0
        self.cur = self.lines[0][0] if self.lines else 1     # line number of the line being read
        self.values: dict[int, ir.Op] = {}

    def err(self, msg: str) -> IRParseError:
        return IRParseError(msg, self.cur)

    def peek(self) -> str:
        if self.pos >= len(self.lines):
            raise self.err("unexpected end of IR text")
        return self.lines[self.pos][1]

    def next(self) -> str:
        s = self.peek()
        self.cur = self.lines[self.pos][0]
        self.pos += 1
        return s

    def attrs(self, text: str, required: tuple[str, ...] = ()) -> dict[str, Any]:
        a = dict(parse_attrs(text))
        missing = [k for k in required if k not in a]
        if missing:
            raise self.err(f"missing attr{'s' if len(missing) > 1 else ''} {', '.join(missing)} in {text}")
        return a

    @staticmethod
    def split_loc(s: str) -> tuple[str, ir.Loc | None]:
        m = _LOC.match(s)
        if not m:
            return s, None
        return m.group(1), ir.Loc(m.group(2), int(m.group(3)), int(m.group(4)))

    def module(self) -> ir.Module:
        head = self.next()
        if not head.startswith("module "):
            raise self.err("expected 'module {...}'")
        src = self.attrs(head[len("module "):], ("source_file",))["source_file"]
        kernels = []
        while self.pos < len(self.lines):
            kernels.append(self.kernel())
        return ir.Module(tuple(kernels), src)

    def kernel(self) -> ir.Kernel:
        self.values = {}
        line, loc = self.split_loc(self.next())
        m = re.match(r"^kernel @(\S+) (\{.*\})$", line)
        if not m:
            raise self.err("expected 'kernel @name {...}'")
        hdr = self.attrs(m.group(2), ("base_name", "constexprs", "workspace"))
        params = []
        while self.peek().startswith("param "):
            a = self.attrs(self.next()[len("param "):], ("access", "dtype", "kind", "name", "rank", "value"))
            dims = a.get("dims")
            params.append(ir.Param(a["name"], a["kind"], a["dtype"], a["rank"], a["value"], a["access"],
                                   tuple(dims) if dims is not None else None))
        grid = None
        if self.peek() == "grid {":
            self.next()
            grid, end = self.block()
            if end != "}":
                raise self.err("grid block must end with '}'")
        if self.next() != "body {":
            raise self.err("expected 'body {'")
        body, end = self.block()
        if end != "}" or self.next() != "}":
            raise self.err("expected '}' closing the kernel")
        return ir.Kernel(m.group(1), tuple(params), body, grid, loc, hdr["workspace"],
                         hdr["base_name"], hdr["constexprs"])

    def block(self) -> tuple[ir.Block, str]:
        """Reads ops up to a closing '}' or '} {' line, which it returns."""
        args, ops = [], []
        while True:
            s = self.peek()
            if s in ("}", "} {"):
                self.pos += 1
                return ir.Block(tuple(args), tuple(ops)), s
            op = self.op()
            if op.opcode == "arg" and not ops:
                args.append(op)
            else:
                ops.append(op)

    def op(self) -> ir.Op:
        raw = self.next()
        has_region = False
        body, loc = self.split_loc(raw)
        if body.endswith(" {"):
            has_region, body = True, body[:-2]
        m = _OPHEAD.match(body)
        if not m:
            raise self.err(f"bad op line {raw!r}")
        vid, opcode, rest = m.group(1), m.group(2), m.group(3)
        if opcode not in ir.OPCODES:
            raise self.err(f"unknown opcode {opcode!r}")
        k = rest.rfind(" : ")
        if k < 0:
            raise self.err(f"missing ' : type' in {raw!r}")
        typ = parse_type(rest[k + 3:])
        rest = rest[:k].strip()
        attrs: tuple = ()
        b = rest.find("{")
        if b >= 0:
            e = _match_brace(rest, b)
            attrs = parse_attrs(rest[b:e])
            rest = rest[:b].strip()
        operands = []
        for name in [x.strip() for x in rest.split(",") if x.strip()]:
            if not (name.startswith("%") and name[1:].isdigit()) or int(name[1:]) not in self.values:
                raise self.err(f"use of undefined value {name}")
            operands.append(self.values[int(name[1:])])
        regions = []
        if has_region:
            while True:
                blk, end = self.block()
                regions.append(blk)
                if end == "}":
                    break
        op = ir.Op(opcode, tuple(operands), typ, attrs, tuple(regions), loc)
        if vid is not None:
            self.values[int(vid)] = op
        return op


def parse_module(text: str) -> ir.Module:
    """The module printed by :func:`print_module`; raises IRParseError (located: ``line <n>: ...``)."""
    p = _Parser(text)
    try:
        return p.module()
    except IRParseError as e:
        if e.line is not None:
            raise
        raise p.err(e.msg) from None
    except (ValueError, TypeError) as e:     # e.g. int() of a bad value number
        raise p.err(f"{type(e).__name__}: {e}") from None
