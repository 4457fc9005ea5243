"""PPE assembler: assembly text -> 64-bit instruction words and a coefficient-memory image.

The language is described in ``designs/ppe/README.md`` ("Assembly language"); the object file
(``ppe-object 1``) in ``docs/formats.md``. Public API::

    prog = assemble_file("programs/pi64.s")            # or assemble(text, name="<text>")
    prog.words      # list of int, one 64-bit instruction word per address 0..len-1
    prog.coef       # list of 64 int, the coefficient-memory image (unset words are 0)
    write_object(prog, path); read_object(path)

Every error is an :class:`AsmError` whose message is one line ``file:line: reason``.

Limits (hostile or broken input is refused in one line, in time and memory linear in its size; the
bundled programs are far below every one): a source file of at most :data:`MAX_FILE_BYTES`, all
files of one program (an included file counted each time) at most :data:`MAX_SOURCE_BYTES`;
``.include`` only of regular files (no FIFO, device or folder), at most :data:`MAX_INCLUDE_DEPTH`
deep and without cycles; at most :data:`MAX_STATEMENTS` statements and :data:`MAX_TEXT_CHARS`
characters of statement text after includes and macro expansion; expressions nested (parentheses
and unary operators) at most :data:`MAX_EXPR_NESTING` deep, every number and intermediate value at
most :data:`MAX_VALUE_BITS` bits.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from . import isa

__all__ = ["AsmError", "Program", "assemble", "assemble_file", "load", "write_object", "read_object",
           "OBJECT_MAGIC", "OBJECT_VERSION", "MAX_FILE_BYTES", "MAX_SOURCE_BYTES", "MAX_INCLUDE_DEPTH",
           "MAX_STATEMENTS", "MAX_TEXT_CHARS", "MAX_EXPR_NESTING", "MAX_VALUE_BITS", "MAX_MACRO_EXPANSIONS"]

OBJECT_MAGIC, OBJECT_VERSION = "ppe-object", 1
#: bytes of one source (or object) file; the largest bundled program (bmw512.s) is ~30 KB
MAX_FILE_BYTES = 4 << 20
#: bytes of all source files of one program together (an included file counted each time)
MAX_SOURCE_BYTES = 4 << 20
#: ``.include`` nesting (a file that includes itself, directly or not, is refused as a cycle)
MAX_INCLUDE_DEPTH = 16
#: statements (non-blank lines) after includes and macro expansion; the memory holds <= 1024 words
MAX_STATEMENTS = 1 << 18
#: characters of statement text after includes and macro expansion (macro arguments multiply text)
MAX_TEXT_CHARS = 16 << 20
#: uses of macros in one program
MAX_MACRO_EXPANSIONS = 100_000
#: nesting of an expression: open parentheses plus pending unary operators
MAX_EXPR_NESTING = 64
#: bits of a number in the source and of every intermediate value of an expression (sign excluded)
MAX_VALUE_BITS = 4096


class AsmError(ValueError):
    """Source that does not assemble; the message is ``file:line: reason`` (one line).

    ``redacted``: the same message with every piece of the program's text (operands, names,
    expressions, numbers written in the source) replaced by ``…``: what may be shown where the
    program is a parameter value (``--param program=FILE``), which messages never echo.

    ``user_error = True``: the dcsflow CLI prints it as one line, exit status 1.
    """

    user_error = True

    def __init__(self, message: str, redacted: str | None = None):
        super().__init__(message)
        self.redacted = message if redacted is None else redacted


@dataclass
class Program:
    """An assembled program.

    Attributes:
        words: instruction words, address 0 first (64-bit ints); ``len(words)`` <= ``imem_depth``.
        coef: the 64-word coefficient-memory image (64-bit ints; words no ``.coef`` set are 0).
        imem_depth: the instruction-memory size the program was checked against.
        symbols: labels and ``.equ`` names -> value.
        origins: address -> ``file:line`` of the statement that produced the word.
    """

    words: list[int]
    coef: list[int]
    imem_depth: int = isa.DEFAULT_IMEM
    symbols: dict[str, int] = field(default_factory=dict)
    origins: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Line:
    file: str
    line: int
    text: str

    def where(self) -> str:
        return f"{self.file}:{self.line}"


#: marks of a piece of program text inside a message (:func:`_q`); never in source text (:func:`_lines`)
_Q0, _Q1 = "\x02", "\x03"
_QUOTED = re.compile(f"{_Q0}[^{_Q1}]*{_Q1}")


def _q(piece) -> str:
    """``piece`` (text or a number taken from the program's source) marked for :func:`_err`, which
    shows it in the message and replaces it by ``…`` in :attr:`AsmError.redacted`."""
    return f"{_Q0}{str(piece).replace(_Q0, '').replace(_Q1, '')}{_Q1}"


def _err(loc: _Line, msg: str) -> AsmError:
    full = f"{loc.where()}: {msg}"
    return AsmError(full.replace(_Q0, "").replace(_Q1, ""), _QUOTED.sub("…", full))


# ----------------------------------------------------------------------------- expressions
#: binary operators -> (precedence, function); the precedence and meaning of Python's (``/`` = ``//``)
_BINARY = {"|": (1, lambda a, b: a | b), "^": (2, lambda a, b: a ^ b), "&": (3, lambda a, b: a & b),
           "<<": (4, lambda a, b: a << b), ">>": (4, lambda a, b: a >> b),
           "+": (5, lambda a, b: a + b), "-": (5, lambda a, b: a - b),
           "*": (6, lambda a, b: a * b), "/": (6, lambda a, b: a // b), "//": (6, lambda a, b: a // b),
           "%": (6, lambda a, b: a % b)}
_UNARY = {"-": lambda a: -a, "+": lambda a: a, "~": lambda a: ~a}
_UNARY_PREC = 7
_TOKEN = re.compile(r"[ \t]*(?:(?P<num>[0-9][0-9A-Za-z_.]*)|(?P<name>[A-Za-z_.][A-Za-z0-9_.]*)"
                    r"|(?P<op><<|>>|//|[-+*/%&|^~()]))")
_NUMBER = re.compile(r"0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0+|[1-9](?:_?[0-9])*")
#: characters of a number literal: enough for MAX_VALUE_BITS bits in binary (with separators)
_MAX_NUMBER_CHARS = 2 * MAX_VALUE_BITS + 2


def _eval(text: str, symbols: dict[str, int], loc: _Line) -> int:
    """Integer value of an expression (numbers, symbols, + - * / % << >> & | ^ ~ and parentheses).

    One pass over the tokens with an operator stack (no recursion): time linear in the length,
    nesting bounded by :data:`MAX_EXPR_NESTING`, values by :data:`MAX_VALUE_BITS`. Errors give the
    position (character of the expression) and the reason; pieces of the text only as :func:`_q`.
    """
    src = text.strip()
    if not src:
        raise _err(loc, "missing expression")
    vals: list[int] = []
    ops: list[str] = []          # "(", "u-" / "u+" / "u~" (unary), or a binary operator
    nest = 0                     # "(" and unary entries on ``ops``

    def big(v: int, at: int) -> int:
        if v.bit_length() > MAX_VALUE_BITS:
            raise _err(loc, f"value exceeds {MAX_VALUE_BITS} bits at character {at} of the expression")
        return v

    def reduce(at: int) -> None:
        nonlocal nest
        op = ops.pop()
        if op[0] == "u":
            nest -= 1
            vals.append(big(_UNARY[op[1]](vals.pop()), at))
            return
        b, a = vals.pop(), vals.pop()
        if op in ("/", "//", "%") and b == 0:
            raise _err(loc, f"division by zero in '{_q(src)}'")
        if op in ("<<", ">>") and not 0 <= b <= MAX_VALUE_BITS:
            raise _err(loc, f"shift count {_q(b)} out of range in '{_q(src)}'")
        vals.append(big(_BINARY[op][1](a, b), at))

    def bad(at: int, why: str = "") -> AsmError:
        return _err(loc, f"bad expression '{_q(src)}'{why or ''} (at character {at})")

    pos, n, operand = 0, len(src), True
    while pos < n:
        m = _TOKEN.match(src, pos)
        if not m or m.end() == pos:
            raise bad(pos + 1)
        at = m.start(m.lastgroup) + 1
        pos = m.end()
        kind, tok = m.lastgroup, m.group(m.lastgroup)
        if operand:
            if kind == "num":
                # decimal digits beyond MAX_VALUE_BITS before converting (long decimal conversions are slow)
                if len(tok) > (_MAX_NUMBER_CHARS if tok[:2].lower() in ("0x", "0b", "0o")
                               else MAX_VALUE_BITS * 30103 // 100000 + 1):
                    v = None
                else:
                    if not _NUMBER.fullmatch(tok):
                        raise bad(at)
                    v = int(tok, 0)
                if v is None or v.bit_length() > MAX_VALUE_BITS:
                    raise _err(loc, f"number exceeds {MAX_VALUE_BITS} bits at character {at} of the expression")
                vals.append(v)
                operand = False
            elif kind == "name":
                if tok not in symbols:
                    raise _err(loc, f"undefined symbol '{_q(tok)}'")
                vals.append(symbols[tok])
                operand = False
            elif tok in _UNARY or tok == "(":
                if nest >= MAX_EXPR_NESTING:
                    raise _err(loc, f"expression nested more than {MAX_EXPR_NESTING} deep "
                                    f"(at character {at} of the expression)")
                ops.append("(" if tok == "(" else "u" + tok)
                nest += 1
            else:
                raise bad(at)
        elif kind == "op" and tok in _BINARY:
            prec = _BINARY[tok][0]
            while ops and ops[-1] != "(" and (_UNARY_PREC if ops[-1][0] == "u" else _BINARY[ops[-1]][0]) >= prec:
                reduce(at)
            ops.append(tok)
            operand = True
        elif tok == ")":
            while ops and ops[-1] != "(":
                reduce(at)
            if not ops:
                raise bad(at, ": ')' without '('")
            ops.pop()
            nest -= 1
        else:
            raise bad(at)
    if operand:
        raise bad(n + 1, ": it ends where an operand is expected")
    while ops:
        if ops[-1] == "(":
            raise bad(n + 1, ": '(' without ')'")
        reduce(n + 1)
    return vals[0]


# ----------------------------------------------------------------------------- preprocessing
def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside () and []."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [s.strip() for s in out]


_COMMENT_FREE = re.compile(r"[^;#]*")


def _strip_comment(text: str) -> str:
    return _COMMENT_FREE.match(text).group()


_NAME = r"[A-Za-z_.][A-Za-z0-9_.]*"


class _Budget:
    """What one program has used of the limits (bytes read, statements, statement text)."""

    def __init__(self):
        self.bytes = self.statements = self.chars = self.expansions = 0

    def add_line(self, loc: _Line) -> None:
        self.statements += 1
        self.chars += len(loc.text)
        if self.statements > MAX_STATEMENTS:
            raise _err(loc, f"more than {MAX_STATEMENTS} statements after includes and macro expansion")
        if self.chars > MAX_TEXT_CHARS:
            raise _err(loc, f"more than {MAX_TEXT_CHARS} characters of statements after includes and "
                            f"macro expansion")


_O_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _file_kind(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is no source file (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a source file"
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"is {kind}, not a regular file" if kind.startswith("a ") else kind


def _read_bytes(path: Path, limit: int) -> tuple[bytes, tuple[int, int]]:
    """The bytes of the regular file ``path`` (at most ``limit``) and its identity (device, inode).

    Opened without blocking (a FIFO opened by mistake does not wait for a writer) and checked with
    ``fstat`` on the open file, so what is read is what was checked. Raises ``_Refused(reason)``."""
    try:
        kind = _file_kind(os.stat(path).st_mode)       # refuse a device before opening it
        if kind:
            raise _Refused(kind)
        fd = os.open(path, _O_FLAGS)
    except FileNotFoundError:
        raise _Refused("no such file") from None
    except NotADirectoryError:
        raise _Refused("no such file (a part of its path is not a folder)") from None
    except (ValueError, UnicodeError):
        raise _Refused("not a usable file name") from None
    except OSError as e:
        raise _Refused(f"cannot read: {e.strerror or type(e).__name__}") from None
    try:
        st = os.fstat(fd)
        kind = _file_kind(st.st_mode)
        if kind:
            raise _Refused(kind)
        if st.st_size > limit:
            raise _Refused(f"larger than {limit} bytes")
        chunks, got = [], 0
        while True:
            b = os.read(fd, min(1 << 20, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
            if got > limit:
                raise _Refused(f"larger than {limit} bytes")
        return b"".join(chunks), (st.st_dev, st.st_ino)
    except OSError as e:
        raise _Refused(f"cannot read: {e.strerror or type(e).__name__}") from None
    finally:
        os.close(fd)


class _Refused(Exception):
    """A file that is not read (the reason; no path, no content)."""


def _read_source(path: Path, loc: _Line | None, budget: _Budget | None = None,
                 shown: str | None = None) -> tuple[str, tuple[int, int]]:
    """Text and identity of a source file; ``loc`` is the ``.include`` line (None: the top file, whose
    name the user gave, is named in the message), ``shown`` the name as the ``.include`` wrote it."""
    limit = MAX_FILE_BYTES
    if budget is not None:
        limit = min(limit, MAX_SOURCE_BYTES - budget.bytes)
    try:
        data, ident = _read_bytes(path, max(limit, 0))
        if budget is not None:
            budget.bytes += len(data)
        text = data.decode("utf-8")
    except _Refused as e:
        reason = str(e)
        if budget is not None and limit < MAX_FILE_BYTES and reason.startswith("larger than"):
            reason = f"the program's source files together exceed {MAX_SOURCE_BYTES} bytes"
    except UnicodeDecodeError as e:
        reason = f"not UTF-8 text (byte {e.start + 1})"
    else:
        return text, ident
    if loc is None:
        raise AsmError(f"{path}: {reason}")
    raise _err(loc, f"'{_q(path if shown is None else shown)}': {reason}")


def _lines(text: str, name: str, base: Path | None, depth: int = 0, budget: _Budget | None = None,
           open_files: tuple[tuple[int, int], ...] = ()) -> list[_Line]:
    """Source lines with includes expanded, comments stripped, blank lines dropped.

    ``open_files``: identities of the files being included (the chain down to this one): an
    ``.include`` of one of them is a cycle."""
    budget = budget if budget is not None else _Budget()
    out: list[_Line] = []
    for i, raw in enumerate(text.splitlines(), start=1):
        loc = _Line(name, i, _strip_comment(raw).strip())
        if not loc.text:
            continue
        m = re.fullmatch(r"\.include\s+\"([^\"]+)\"", loc.text)
        if m:
            if base is None:
                raise _err(loc, ".include needs a source file (assemble_file), not text")
            if depth >= MAX_INCLUDE_DEPTH:
                raise _err(loc, f".include nested more than {MAX_INCLUDE_DEPTH} deep")
            inc = (base / m.group(1))
            inc_text, ident = _read_source(inc, loc, budget, m.group(1))
            if ident in open_files:
                raise _err(loc, f".include '{_q(m.group(1))}': include cycle (the file is already being included)")
            out += _lines(inc_text, str(Path(name).parent / m.group(1)) if name else m.group(1),
                          inc.parent, depth + 1, budget, open_files + (ident,))
            continue
        if loc.text.startswith(".include"):
            raise _err(loc, '.include needs a file name in double quotes')
        budget.add_line(loc)
        out.append(loc)
    return out


def _expand_macros(lines: list[_Line]) -> list[_Line]:
    """Collect ``.macro`` definitions and expand their uses (recursively, bounded)."""
    macros: dict[str, tuple[list[str], list[_Line], _Line]] = {}
    body: list[_Line] = []
    i = 0
    while i < len(lines):
        loc = lines[i]
        m = re.fullmatch(rf"\.macro\s+({_NAME})\s*(.*)", loc.text)
        if m:
            name = m.group(1)
            params = [p for p in _split_top(m.group(2))] if m.group(2).strip() else []
            for p in params:
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p):
                    raise _err(loc, f"bad macro parameter name '{_q(p)}'")
            if len(set(params)) != len(params):
                raise _err(loc, f"macro '{_q(name)}' names a parameter twice")
            if name in macros:
                raise _err(loc, f"macro '{_q(name)}' defined twice (first at {macros[name][2].where()})")
            j = i + 1
            mbody = []
            while j < len(lines) and lines[j].text != ".endm":
                if lines[j].text.startswith(".macro"):
                    raise _err(lines[j], "a .macro inside a .macro")
                mbody.append(lines[j])
                j += 1
            if j == len(lines):
                raise _err(loc, f"macro '{_q(name)}' has no .endm")
            macros[name] = (params, mbody, loc)
            i = j + 1
            continue
        if loc.text == ".endm":
            raise _err(loc, ".endm without .macro")
        body.append(loc)
        i += 1

    budget = _Budget()
    out: list[_Line] = []

    def expand(seq: list[_Line], depth: int) -> None:
        """Append ``seq`` to ``out`` with macro uses replaced by their bodies."""
        for loc in seq:
            label, rest = _take_labels(loc)
            word = rest.split(None, 1)
            if not (word and word[0] in macros):
                budget.add_line(loc)
                out.append(loc)
                continue
            if depth > 32:
                raise _err(loc, f"macro '{_q(word[0])}' expands recursively")
            params, mbody, _ = macros[word[0]]
            args = _split_top(word[1]) if len(word) > 1 and word[1].strip() else []
            if len(args) != len(params):
                raise _err(loc, f"macro '{_q(word[0])}' takes {len(params)} arguments, got {len(args)}")
            budget.expansions += 1
            if budget.expansions > MAX_MACRO_EXPANSIONS:
                raise _err(loc, f"more than {MAX_MACRO_EXPANSIONS} macro expansions")
            tag = budget.expansions
            if label:
                lab = _Line(loc.file, loc.line, label)
                budget.add_line(lab)
                out.append(lab)
            subst = [("\\" + p, a) for p, a in sorted(zip(params, args), key=lambda pa: -len(pa[0]))]
            sub = []
            for b in mbody:
                t = b.text
                for pat, a in subst:
                    k = t.count(pat)
                    # the size of the result before it is made: arguments used many times multiply text
                    if k and budget.chars + len(t) + k * (len(a) - len(pat)) > MAX_TEXT_CHARS:
                        raise _err(loc, f"macro '{_q(word[0])}' (line {b.line}): expansion exceeds "
                                        f"{MAX_TEXT_CHARS} characters of statements")
                    if k:
                        t = t.replace(pat, a)
                t = re.sub(r"\.L([A-Za-z0-9_]+)", lambda mm: f".L{mm.group(1)}_{tag}", t)
                if "\\" in t:
                    raise _err(loc, f"macro '{_q(word[0])}' (line {b.line}): unknown parameter in '{_q(b.text)}'")
                # errors inside an expansion point at the use, naming the macro line
                sub.append(_Line(loc.file, loc.line, t))
            expand(sub, depth + 1)

    expand(body, 0)
    return out


_LABEL = re.compile(rf"({_NAME})\s*:(?!:)\s*")


def _take_labels(loc: _Line) -> tuple[str, str]:
    """``'a: b: add ...'`` -> (``'a: b:'``, ``'add ...'``)."""
    text, pos = loc.text, 0
    labels = []
    while True:
        m = _LABEL.match(text, pos)
        if not m:
            break
        labels.append(m.group(1) + ":")
        pos = m.end()
    return " ".join(labels), text[pos:]


# ----------------------------------------------------------------------------- operands
@dataclass(frozen=True)
class _Opnd:
    kind: str          # 'r', 'c', 'in', 'out', 'none'
    index: int = 0
    base: int = 0


def _operand(text: str, symbols: dict[str, int], loc: _Line) -> _Opnd:
    t = text.strip()
    if t == "-":
        return _Opnd("none")
    if t == "in":
        return _Opnd("in")
    if t == "out":
        return _Opnd("out")
    m = re.fullmatch(r"r(\d+)", t) or re.fullmatch(r"r(\(.*\))", t)
    if m:
        v = _eval(m.group(1), symbols, loc)
        if not 0 <= v < isa.NREGS:
            raise _err(loc, f"register {_q(f'r{v}')} out of range r0..r{isa.NREGS - 1}")
        return _Opnd("r", v)
    m = re.fullmatch(r"c\[(.*)\]", t)
    if m:
        inner = m.group(1).strip()
        base = 0
        mb = re.fullmatch(r"b\s*(?:\+\s*(.*))?", inner)
        if mb:
            base = 1
            inner = mb.group(1) if mb.group(1) is not None else "0"
        v = _eval(inner, symbols, loc)
        if not 0 <= v < isa.NCOEF:
            raise _err(loc, f"coefficient address {_q(v)} out of range 0..{isa.NCOEF - 1}")
        return _Opnd("c", v, base)
    raise _err(loc, f"bad operand '{_q(t)}' (expected rN, r(expr), c[expr], c[b+expr], in, out or -)")


# ----------------------------------------------------------------------------- assembler
_CTL_NAMES = set(isa.CTL) - {""}


def _parse_ctl(text: str, symbols: dict[str, int], loc: _Line, imem_depth: int) -> tuple[int, int]:
    parts = text.split(None, 1)
    if not parts:
        raise _err(loc, "empty control slot after '||'")
    name = parts[0]
    if name not in _CTL_NAMES:
        raise _err(loc, f"unknown control action '{_q(name)}' (expected {', '.join(sorted(_CTL_NAMES))})")
    arg = parts[1].strip() if len(parts) > 1 else ""
    if name not in isa.CTL_ARG:
        if arg:
            raise _err(loc, f"'{_q(name)}' takes no argument")
        return isa.CTL[name], 0
    if not arg:
        raise _err(loc, f"'{_q(name)}' needs an argument")
    v = _eval(arg, symbols, loc)
    if name in ("jmp", "djnz"):
        if not 0 <= v < imem_depth:
            raise _err(loc, f"{name} target {_q(v)} outside the instruction memory (0..{imem_depth - 1})")
    elif name == "setlc":
        if not 0 <= v < (1 << isa.LC_BITS):
            raise _err(loc, f"setlc {_q(v)} out of range 0..{(1 << isa.LC_BITS) - 1}")
    elif name == "setb":
        if not 0 <= v < isa.NCOEF:
            raise _err(loc, f"setb {_q(v)} out of range 0..{isa.NCOEF - 1}")
    else:  # addb: any integer, mod 64
        v %= isa.NCOEF
    return isa.CTL[name], v


def _parse_insn(text: str, symbols: dict[str, int], loc: _Line, imem_depth: int,
                default_width: int) -> int:
    """One statement (no label) -> instruction word."""
    dp, ctl_text = (text.split("||", 1) + [None])[:2] if "||" in text else (text, None)
    dp = dp.strip()
    ctl, imm = 0, 0
    if ctl_text is not None:
        ctl, imm = _parse_ctl(ctl_text.strip(), symbols, loc, imem_depth)
    parts = dp.split(None, 1)
    if not parts:
        raise _err(loc, "missing instruction before '||'")
    mnem = parts[0].lower()
    ops_text = parts[1] if len(parts) > 1 else ""
    if mnem in _CTL_NAMES:
        if ctl_text is not None:
            raise _err(loc, "two control actions in one word")
        ctl, imm = _parse_ctl(dp, symbols, loc, imem_depth)
        return isa.Instr(lanes=0, ctl=ctl, imm=imm).encode()
    if mnem == "nop":
        if ops_text.strip():
            raise _err(loc, "'nop' takes no operands")
        return isa.Instr(lanes=0, ctl=ctl, imm=imm).encode()

    pieces = mnem.split(".")
    op1 = pieces[0]
    if op1 not in ("add", "sub", "xor", "and", "or", "mov"):
        raise _err(loc, f"unknown instruction '{_q(parts[0])}'")
    op2, width = "", default_width
    seen_w = False
    for p in pieces[1:]:
        if p in ("16", "32", "64"):
            if seen_w:
                raise _err(loc, f"two lane widths in '{_q(parts[0])}'")
            width, seen_w = int(p), True
        elif p in ("add", "sub", "xor"):
            if op2 or seen_w:
                raise _err(loc, f"bad instruction '{_q(parts[0])}' (form: op1[.op2][.16|.32|.64])")
            op2 = p
        else:
            raise _err(loc, f"bad suffix '.{_q(p)}' in '{_q(parts[0])}' (op2 add/sub/xor, width 16/32/64)")

    ops = _split_top(ops_text) if ops_text.strip() else []
    sh, n = 0, 0
    if ops and re.match(r"(rotl|shl|shr)\b", ops[-1]):
        sname, _, amount = ops.pop().partition(" ")
        if not amount.strip():
            raise _err(loc, f"'{_q(sname)}' needs an amount")
        sh = isa.SH[sname]
        n = _eval(amount, symbols, loc)
        if not 0 <= n < width:
            raise _err(loc, f"{sname} amount {_q(n)} out of range 0..{width - 1} for {width}-bit lanes")
    nsrc = (1 if op1 == "mov" else 2) + (1 if op2 else 0)
    if len(ops) != 1 + nsrc:
        form = "dest, " + ("src" if op1 == "mov" else "a, b") + (", c" if op2 else "")
        raise _err(loc, f"'{_q(parts[0])}' takes {1 + nsrc} operands ({form}"
                        f"[, rotl|shl|shr n]), got {len(ops)}")
    o = [_operand(x, symbols, loc) for x in ops]
    dest, srcs = o[0], o[1:]
    f = dict(op2=isa.OP2[op2], lanes=isa.LANES[width], sh=sh, n=n)

    def set_b(op: _Opnd, what: str):
        if op.kind == "r":
            f.update(b_c=0, bi=op.index)
        elif op.kind == "c":
            f.update(b_c=1, b_base=op.base, bi=op.index)
        else:
            raise _err(loc, f"{what} must be a register or c[...], not '{_q(op.kind)}'")

    def set_a(op: _Opnd):
        if op.kind == "r":
            f.update(ra=op.index)
        elif op.kind == "in":
            f.update(a_in=1)
        else:
            raise _err(loc, "operand A must be a register or 'in'")

    if op1 == "mov":
        s = srcs[0]
        if s.kind == "c":
            f["op1"] = isa.OP1["movb"]
            set_b(s, "source")
        else:
            if s.kind not in ("r", "in"):
                raise _err(loc, f"bad source '{_q(ops[1])}'")
            f["op1"] = isa.OP1["mova"]
            set_a(s)
        rest = srcs[1:]
    else:
        a, b = srcs[0], srcs[1]
        if a.kind == "c" and op1 != "sub" and b.kind in ("r", "in"):
            a, b = b, a     # commutative: the register goes to A
        if a.kind == "c":
            raise _err(loc, "operand A must be a register or 'in' (c[...] is only allowed as B or C)")
        if b.kind == "in":
            raise _err(loc, "'in' can only be operand A")
        f["op1"] = isa.OP1[op1]
        set_a(a)
        set_b(b, "operand B")
        rest = srcs[2:]
    if op2:
        c = rest[0]
        if c.kind == "r":
            f.update(c_c=0, ci=c.index)
        elif c.kind == "c":
            f.update(c_c=1, c_base=c.base, ci=c.index)
        else:
            raise _err(loc, f"operand C must be a register or c[...], not '{_q(ops[-1])}'")
    if dest.kind == "r":
        f.update(dk=isa.DK_REG, di=dest.index)
    elif dest.kind == "c":
        f.update(dk=isa.DK_COEF, di=dest.index, d_base=dest.base)
    elif dest.kind == "out":
        f.update(dk=isa.DK_OUT)
    elif dest.kind == "none":
        f.update(dk=isa.DK_NONE)
    else:
        raise _err(loc, "'in' cannot be a destination")
    f.update(ctl=ctl, imm=imm)
    return isa.Instr(**f).encode()


def _assemble_lines(lines: list[_Line], imem_depth: int) -> Program:
    if not 1 <= imem_depth <= isa.MAX_IMEM:
        raise AsmError(f"instruction memory depth {imem_depth} out of range 1..{isa.MAX_IMEM}")
    lines = _expand_macros(lines)
    # pass 1: addresses of labels, .equ values
    symbols: dict[str, int] = {}
    where: dict[str, str] = {}
    stmts: list[tuple[int, _Line, str, int]] = []   # (address, loc, text, lane width)
    coef: dict[int, tuple[int, _Line]] = {}
    pc = 0
    width = 64
    pending_equ: list[tuple[_Line, str, str]] = []

    def define(name: str, value: int, loc: _Line):
        if name in ("b", "in", "out") or re.fullmatch(r"r\d+", name):
            raise _err(loc, f"'{_q(name)}' is reserved and cannot be a symbol")
        if name in symbols and symbols[name] != value:
            raise _err(loc, f"symbol '{_q(name)}' redefined (first at {where[name]})")
        symbols[name] = value
        where.setdefault(name, loc.where())

    for loc in lines:
        label, text = _take_labels(loc)
        for lab in label.split():
            define(lab[:-1], pc, loc)
        if not text:
            continue
        if text.startswith("."):
            d, _, arg = text.partition(" ")
            arg = arg.strip()
            if d == ".equ":
                m = re.fullmatch(rf"({_NAME})\s*,\s*(.+)", arg)
                if not m:
                    raise _err(loc, ".equ needs 'NAME, expr'")
                define(m.group(1), _eval(m.group(2), symbols, loc), loc)
            elif d == ".lanes":
                w = _eval(arg, symbols, loc)
                if w not in isa.LANES:
                    raise _err(loc, f".lanes {_q(w)}: lane width must be 16, 32 or 64")
                width = w
            elif d == ".org":
                a = _eval(arg, symbols, loc)
                if a < pc:
                    raise _err(loc, f".org {_q(a)} goes backwards (next address is {pc})")
                if a > imem_depth:
                    raise _err(loc, f".org {_q(a)} outside the instruction memory (0..{imem_depth - 1})")
                pc = a
            elif d == ".coef":
                pa = _split_top(arg)
                if len(pa) != 2:
                    raise _err(loc, ".coef needs 'addr, value'")
                pending_equ.append((loc, pa[0], pa[1]))
            else:
                raise _err(loc, f"unknown directive '{_q(d)}'")
            continue
        stmts.append((pc, loc, text, width))
        pc += 1
    if pc > imem_depth:
        first = next(loc for a, loc, _, _ in stmts if a >= imem_depth) if any(
            a >= imem_depth for a, *_ in stmts) else lines[-1]
        raise _err(first, f"program needs {pc} words, instruction memory holds {imem_depth}")
    # pass 2
    words = [0] * pc
    origins = {}
    for addr, loc, text, w in stmts:
        words[addr] = _parse_insn(text, symbols, loc, imem_depth, w)
        origins[addr] = loc.where()
    image = [0] * isa.NCOEF
    for loc, a_text, v_text in pending_equ:
        a = _eval(a_text, symbols, loc)
        if not 0 <= a < isa.NCOEF:
            raise _err(loc, f"coefficient address {_q(a)} out of range 0..{isa.NCOEF - 1}")
        v = _eval(v_text, symbols, loc)
        if not 0 <= v <= isa.WORD_MASK:
            raise _err(loc, f"coefficient value {_q(f'{v:#x}')} does not fit 64 bits")
        if a in coef and coef[a][0] != v:
            raise _err(loc, f"coefficient {_q(a)} set twice (first at {coef[a][1].where()})")
        coef[a] = (v, loc)
        image[a] = v
    return Program(words, image, imem_depth, symbols, origins)


def assemble(text: str, name: str = "<text>", imem_depth: int = isa.DEFAULT_IMEM) -> Program:
    """Assemble source text (``.include`` is not available: no file to be relative to).

    Args:
        text: the program. name: file name used in error messages.
        imem_depth: instruction-memory size in words (1..1024); a longer program is an error.
    Raises:
        AsmError: ``name:line: reason``.
    """
    if len(text) > MAX_SOURCE_BYTES:
        raise AsmError(f"{name}: source longer than {MAX_SOURCE_BYTES} characters")
    return _assemble_lines(_lines(text, name, None), imem_depth)


def assemble_file(path: str | Path, imem_depth: int = isa.DEFAULT_IMEM) -> Program:
    """Assemble a source file (``.include`` paths are relative to the including file).

    Raises:
        AsmError: ``file:line: reason``, or ``file: reason`` when the file cannot be read.
    """
    p = Path(path)
    budget = _Budget()
    text, ident = _read_source(p, None, budget)
    return _assemble_lines(_lines(text, str(path), p.parent, 0, budget, (ident,)), imem_depth)


def load(path: str | Path, imem_depth: int = isa.DEFAULT_IMEM) -> Program:
    """A ``ppe-object`` file (first line ``# ppe-object``) or else an assembly source, read once.

    Raises:
        AsmError: as :func:`read_object` / :func:`assemble_file`.
    """
    p = Path(path)
    budget = _Budget()
    text, ident = _read_source(p, None, budget)
    if text.startswith(f"# {OBJECT_MAGIC}"):
        return _parse_object(text, str(path))
    return _assemble_lines(_lines(text, str(path), p.parent, 0, budget, (ident,)), imem_depth)


# ----------------------------------------------------------------------------- object files
def write_object(prog: Program, path: str | Path) -> None:
    """Write ``prog`` as a ``ppe-object 1`` text file (docs/formats.md)."""
    lines = [f"# {OBJECT_MAGIC} {OBJECT_VERSION} words={len(prog.words)} imem_depth={prog.imem_depth}"]
    lines += [f"i {a:03x} {w:016x}" for a, w in enumerate(prog.words)]
    lines += [f"c {a:02x} {v:016x}" for a, v in enumerate(prog.coef) if v]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_object(path: str | Path) -> Program:
    """Read a ``ppe-object`` file.

    Raises:
        AsmError: ``file:line: reason`` for a wrong header/version, a bad line, an address out of range.
    """
    return _parse_object(_read_source(Path(path), None)[0], str(path))


def _parse_object(text: str, name: str) -> Program:
    lines = text.splitlines()
    m = re.fullmatch(rf"# {OBJECT_MAGIC} (\d+) words=(\d+) imem_depth=(\d+)", lines[0].strip()) if lines else None
    if not m:
        raise AsmError(f"{name}:1: not a {OBJECT_MAGIC} file (header '# {OBJECT_MAGIC} 1 words=N imem_depth=D')")
    if int(m.group(1)) != OBJECT_VERSION:
        raise AsmError(f"{name}:1: {OBJECT_MAGIC} version {m.group(1)} not supported (this reader: {OBJECT_VERSION})")
    nwords, depth = int(m.group(2)), int(m.group(3))
    if not 1 <= depth <= isa.MAX_IMEM or nwords > depth:
        raise AsmError(f"{name}:1: words={nwords} / imem_depth={depth} out of range")
    words, coef = [0] * nwords, [0] * isa.NCOEF
    for i, raw in enumerate(lines[1:], start=2):
        t = raw.strip()
        if not t or t.startswith("#"):
            continue
        mm = re.fullmatch(r"([ic]) ([0-9a-fA-F]+) ([0-9a-fA-F]{16})", t)
        if not mm:
            raise AsmError(f"{name}:{i}: bad line (expected 'i ADDR HEX16' or 'c ADDR HEX16')")
        a, v = int(mm.group(2), 16), int(mm.group(3), 16)
        if mm.group(1) == "i":
            if a >= nwords:
                raise AsmError(f"{name}:{i}: instruction address {a} >= words={nwords}")
            if not isa.valid_word(v):
                raise AsmError(f"{name}:{i}: {v:016x} is not a valid instruction word")
            words[a] = v
        else:
            if a >= isa.NCOEF:
                raise AsmError(f"{name}:{i}: coefficient address {a} out of range 0..{isa.NCOEF - 1}")
            coef[a] = v
    return Program(words, coef, depth)
