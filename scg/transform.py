"""Parameter transforms as programs: a small word-level language that is constant time by
construction (format ``dcsflow-transform`` version 1, docs/formats.md "Parameter transform").

A design that derives its circuit parameters from what the user gives (a cipher state after
initialization, a hash key H = E_K(0), a KMAC key state) writes that derivation once as a
:class:`Program`; the build writes it into the build folder (``transform.json``), and every SCG runs
the same program: this module's interpreter (:func:`run`, for ``python -m dcsflow.scg rekey`` and
``dcsflow rekey``/``specialize``/``check``) and the C the firmware is generated with
(:mod:`dcsflow.scg.transform_c`), so the host and the board agree.

The machine: a memory of :attr:`Program.words` 32-bit words, all 0 when a run starts except the
inputs; constant tables (read-only); a set of failed checks. Bit ``i`` of a port (input or output)
is bit ``i % 32`` of the word at ``at + i // 32`` of its region (``ceil(bits / 32)`` words; the bits
of the last word above the port's width are 0 in an input and ignored in an output).

Instructions (``d`` is written, ``a``, ``b``, ``m`` read; all arithmetic mod 2^32)::

    const d k        d = k                         mov d a     d = a
    not d a          d = ~a                        xor/and/or d a b   bitwise
    andn d a b       d = a & ~b                    add/sub d a b      d = a + b, a - b
    shl/shr d a k    shift left / logical right by the constant k (0..31)
    rotl d a k       rotate left by the constant k (0..31)
    ltu d a b        d = all ones if a < b (unsigned), else 0 (no branch)
    eq d a b         d = all ones if a == b, else 0 (no branch)
    sel d m a b      d = (a & m) | (b & ~m)
    load d t x       d = word x of table t
    index d l s o    d = o + s * (counter of the enclosing loop at level l)
    check c m        check c fails when m != 0 (its message: Program.checks[c])
    loop n body      body n times (n a constant); its counter runs 0..n-1
    call k           run subroutine k (which may call only subroutines before it: no recursion)

A memory operand is a word address, or ``[base, level, stride]``: ``base + stride * i`` where ``i``
is the counter of the enclosing loop at nesting ``level`` (0 = outermost; inside a subroutine its own
loops only); a table index likewise. Nothing a program computes can choose a branch, a trip count
or an address: every run of a program executes the same instructions at the same addresses, whatever
the values. Checks accumulate; a program whose check failed gives no outputs
(:class:`TransformRefused`, the first failed check's message).

The reader (:func:`from_json`; the build folder's reader reads the file, at most
:data:`MAX_FILE_BYTES`) takes the file as untrusted input: bounded size, types, every index in range
(addresses, tables, loop levels, checks, subroutines), bounded work (:data:`MAX_STEPS`), one-line
refusals. :class:`Builder` writes programs.

Standard library only.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

from .errors import ScgError

#: format name and the version this runtime reads and writes
FORMAT = "dcsflow-transform"
VERSION = 1
#: the program's file in a build folder (listed in ``build.json`` ``files``; key ``transform``)
FILE = "transform.json"

#: largest ``transform.json`` read (bytes)
MAX_FILE_BYTES = 8 << 20
#: most memory words, table words (all tables), instructions (written), checks, subroutines, ports
MAX_WORDS = 1 << 16
MAX_TABLE_WORDS = 1 << 16
MAX_INSTRUCTIONS = 1 << 18
MAX_CHECKS = 32
MAX_SUBS = 256
MAX_PORTS = 64
#: widest port (bits), deepest loop nesting, longest loop
MAX_PORT_BITS = 1 << 20
MAX_DEPTH = 4
MAX_TRIPS = 1 << 16
#: most instructions one run executes (counted before it runs): bounds the work of any file
MAX_STEPS = 1 << 24
#: longest check message (characters)
MAX_MESSAGE = 200

_MASK = 0xFFFFFFFF
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]{0,63}")

# operand kinds of the instruction table
_W, _R, _IMM, _SH, _TAB, _TIX, _LEVEL, _CHK = "w", "r", "imm", "sh", "tab", "tix", "level", "chk"
#: operands of every simple instruction (``loop`` and ``call`` are the two others)
OPS: dict[str, tuple[str, ...]] = {
    "const": (_W, _IMM), "mov": (_W, _R), "not": (_W, _R),
    "xor": (_W, _R, _R), "and": (_W, _R, _R), "or": (_W, _R, _R), "andn": (_W, _R, _R),
    "add": (_W, _R, _R), "sub": (_W, _R, _R), "ltu": (_W, _R, _R), "eq": (_W, _R, _R),
    "shl": (_W, _R, _SH), "shr": (_W, _R, _SH), "rotl": (_W, _R, _SH),
    "sel": (_W, _R, _R, _R),
    "load": (_W, _TAB, _TIX),
    "index": (_W, _LEVEL, _IMM, _IMM),
    "check": (_CHK, _R),
}


class TransformError(ScgError):
    """A parameter transform cannot be read or run: a malformed ``transform.json`` (one line naming
    the file and the fault), or values that do not fit its inputs. ``code`` = ``design``."""

    code = "design"


class TransformRefused(ScgError):
    """The program refused the values (a check failed, e.g. a length out of range): one line with the
    check's message, never a value. ``code`` = ``transform`` (the firmware's ``SCG_ERR_TRANSFORM``)."""

    code = "transform"


@dataclass(frozen=True)
class Port:
    """An input or output of a program: ``name``, width ``bits``, first word ``at`` (its
    ``ceil(bits / 32)`` words follow)."""

    name: str
    bits: int
    at: int

    @property
    def nwords(self) -> int:
        """Words of the port's region: ``ceil(bits / 32)``."""
        return (self.bits + 31) // 32


@dataclass(frozen=True)
class Program:
    """A checked parameter transform (:func:`from_json`; module docstring for the language).

    Attributes:
        inputs: the user parameters (:class:`Port`), in the order of their values' vector
            (:func:`vector_layout`); outputs: the circuit parameters it computes.
        words: memory words; tables: constant tables (tuples of ints < 2^32); checks: the message
            of each check; code: the instructions (tuples: ``(op, operand, ...)``, a memory operand
            an int or ``(base, level, stride)``, ``("loop", n, body)``, ``("call", k)``); subs: the
            subroutines' bodies; design_hash: the build it belongs to (None: not tied to one).
    """

    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    words: int
    tables: tuple[tuple[int, ...], ...]
    checks: tuple[str, ...]
    code: tuple
    subs: tuple = ()
    design_hash: str | None = None

    @property
    def input_widths(self) -> dict[str, int]:
        """Input port -> width in bits, in order."""
        return {p.name: p.bits for p in self.inputs}

    @property
    def output_widths(self) -> dict[str, int]:
        """Output port -> width in bits, in order."""
        return {p.name: p.bits for p in self.outputs}

    def steps(self) -> int:
        """Instructions one run executes (every run the same: no instruction chooses a branch)."""
        costs: list[int] = []
        for sub in self.subs:                    # a subroutine calls only those before it
            costs.append(_steps(sub, costs))
        return _steps(self.code, costs)

    def to_json(self) -> dict:
        """The ``transform.json`` document (format :data:`FORMAT` v :data:`VERSION`)."""
        def ins(i):
            if i[0] == "loop":
                return ["loop", i[1], [ins(x) for x in i[2]]]
            return [i[0], *(list(a) if isinstance(a, tuple) else a for a in i[1:])]

        doc = {"format": FORMAT, "version": VERSION}
        if self.design_hash is not None:
            doc["design_hash"] = self.design_hash
        doc.update({
            "inputs": [{"name": p.name, "bits": p.bits, "at": p.at} for p in self.inputs],
            "outputs": [{"name": p.name, "bits": p.bits, "at": p.at} for p in self.outputs],
            "words": self.words, "tables": [list(t) for t in self.tables], "checks": list(self.checks),
            "subs": [[ins(x) for x in s] for s in self.subs], "code": [ins(x) for x in self.code]})
        return doc

    def with_design_hash(self, design_hash: str) -> "Program":
        """The same program tied to the build ``design_hash``."""
        return Program(self.inputs, self.outputs, self.words, self.tables, self.checks, self.code, self.subs,
                       design_hash)


def _steps(block, sub_steps) -> int:
    n = 0
    for i in block:
        if i[0] == "loop":
            n += 1 + i[1] * _steps(i[2], sub_steps)
        elif i[0] == "call":
            n += 1 + sub_steps[i[1]]
        else:
            n += 1
    return n


# ------------------------------------------------------------------------------------ reader
class _Reader:
    """Checks a ``transform.json`` document (:func:`from_json`); ``bad(what)`` raises one line."""

    def __init__(self, where: str):
        self.where = where
        self.count = 0

    def bad(self, what: str) -> TransformError:
        return TransformError(f"{self.where}: malformed parameter transform ({what})")

    def int_in(self, v, lo: int, hi: int, what: str) -> int:
        if type(v) is not int or not lo <= v <= hi:
            raise self.bad(f"{what} is not an integer in {lo}..{hi}")
        return v

    def ports(self, v, what: str, words: int) -> tuple[Port, ...]:
        if not isinstance(v, list) or len(v) > MAX_PORTS:
            raise self.bad(f"{what} is not a list of at most {MAX_PORTS} ports")
        out, names = [], set()
        for p in v:
            if not isinstance(p, dict) or set(p) != {"name", "bits", "at"}:
                raise self.bad(f"an entry of {what} is not {{name, bits, at}}")
            name = p["name"]
            if not isinstance(name, str) or not _NAME.fullmatch(name) or name in names:
                raise self.bad(f"an entry of {what} has no port name, or one given twice")
            names.add(name)
            bits = self.int_in(p["bits"], 1, MAX_PORT_BITS, f"{what} {name}: bits")
            at = self.int_in(p["at"], 0, words - 1, f"{what} {name}: at")
            port = Port(name, bits, at)
            if at + port.nwords > words:
                raise self.bad(f"{what} {name}: its {port.nwords} words end past the memory's {words}")
            out.append(port)
        return tuple(out)

    def block(self, v, depth: int, loops: list[int], prog: dict, sub: int | None) -> tuple:
        if not isinstance(v, list):
            raise self.bad("a block of code is not a list")
        out = []
        for ins in v:
            self.count += 1
            if self.count > MAX_INSTRUCTIONS:
                raise self.bad(f"more than {MAX_INSTRUCTIONS} instructions")
            if not isinstance(ins, list) or not ins or not isinstance(ins[0], str):
                raise self.bad(f"instruction {self.count} is not [OP, ...]")
            op = ins[0]
            if op == "loop":
                if len(ins) != 3:
                    raise self.bad(f"instruction {self.count}: loop is [\"loop\", N, [...]]")
                if depth >= MAX_DEPTH:
                    raise self.bad(f"instruction {self.count}: loops nested deeper than {MAX_DEPTH}")
                n = self.int_in(ins[1], 1, MAX_TRIPS, f"instruction {self.count}: the trip count")
                out.append(("loop", n, self.block(ins[2], depth + 1, loops + [n], prog, sub)))
                continue
            if op == "call":
                limit = (sub if sub is not None else len(prog["subs"])) - 1
                if len(ins) != 2 or limit < 0:
                    raise self.bad(f"instruction {self.count}: call is [\"call\", K] of an earlier subroutine")
                out.append(("call", self.int_in(ins[1], 0, limit, f"instruction {self.count}: the subroutine")))
                continue
            kinds = OPS.get(op)
            if kinds is None:
                raise self.bad(f"instruction {self.count}: unknown operation {op[:20]!r}")
            if len(ins) != len(kinds) + 1:
                raise self.bad(f"instruction {self.count}: {op} takes {len(kinds)} operands")
            args, table = [], None
            for k, a in zip(kinds, ins[1:]):
                what = f"instruction {self.count} ({op})"
                if k in (_W, _R):
                    args.append(self.operand(a, prog["words"], loops, f"{what}: memory operand"))
                elif k == _IMM:
                    args.append(self.int_in(a, 0, _MASK, f"{what}: the constant"))
                elif k == _SH:
                    args.append(self.int_in(a, 0, 31, f"{what}: the shift"))
                elif k == _TAB:
                    table = self.int_in(a, 0, len(prog["tables"]) - 1, f"{what}: the table")
                    args.append(table)
                elif k == _TIX:
                    args.append(self.operand(a, len(prog["tables"][table]), loops, f"{what}: the table index"))
                elif k == _LEVEL:
                    args.append(self.int_in(a, 0, len(loops) - 1, f"{what}: the loop level"))
                else:
                    args.append(self.int_in(a, 0, len(prog["checks"]) - 1, f"{what}: the check"))
            out.append((op, *args))
        return tuple(out)

    def operand(self, a, size: int, loops: list[int], what: str):
        if type(a) is int:
            return self.int_in(a, 0, size - 1, what)
        if not isinstance(a, list) or len(a) != 3:
            raise self.bad(f"{what} is neither an address nor [base, level, stride]")
        base = self.int_in(a[0], 0, size - 1, what + " base")
        level = self.int_in(a[1], 0, len(loops) - 1, what + " loop level")
        stride = self.int_in(a[2], -size, size, what + " stride")
        last = base + stride * (loops[level] - 1)
        if not 0 <= last < size:
            raise self.bad(f"{what} leaves its range in the loop")
        return (base, level, stride)


def from_json(doc, where: str = FILE) -> Program:
    """The :class:`Program` of a ``transform.json`` document, checked as untrusted input.

    ``where`` names the file in the messages.

    Raises:
        TransformError: another format or version, or anything malformed or out of range (one line:
            ``WHERE: malformed parameter transform (WHAT)``).
    """
    r = _Reader(where)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TransformError(f"{where}: not a {FORMAT} file")
    if doc.get("version") != VERSION:
        raise TransformError(f"{where}: parameter transform of format version {doc.get('version')!r}; this "
                             f"dcsflow reads version {VERSION}: rebuild")
    known = {"format", "version", "design_hash", "inputs", "outputs", "words", "tables", "checks", "subs", "code"}
    extra = [k for k in doc if k not in known]
    if extra:
        raise r.bad(f"unknown key {str(extra[0])[:40]!r}")
    dh = doc.get("design_hash")
    if dh is not None and (not isinstance(dh, str) or not re.fullmatch(r"[0-9a-f]{64}", dh)):
        raise r.bad("design_hash is not a SHA-256 in lower-case hex")
    words = r.int_in(doc.get("words"), 1, MAX_WORDS, "words")
    tables = doc.get("tables", [])
    if not isinstance(tables, list) or not all(isinstance(t, list) and t for t in tables):
        raise r.bad("tables is not a list of non-empty lists")
    if sum(len(t) for t in tables) > MAX_TABLE_WORDS:
        raise r.bad(f"more than {MAX_TABLE_WORDS} table words")
    tables = tuple(tuple(r.int_in(x, 0, _MASK, "a table word") for x in t) for t in tables)
    checks = doc.get("checks", [])
    if not isinstance(checks, list) or len(checks) > MAX_CHECKS or not all(
            isinstance(c, str) and 0 < len(c) <= MAX_MESSAGE and c.isprintable() for c in checks):
        raise r.bad(f"checks is not a list of at most {MAX_CHECKS} one-line messages of at most "
                    f"{MAX_MESSAGE} characters")
    inputs = r.ports(doc.get("inputs"), "inputs", words)
    outputs = r.ports(doc.get("outputs"), "outputs", words)
    spans = sorted((p.at, p.at + p.nwords, p.name) for p in inputs)
    for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
        if start < end:
            raise r.bad(f"inputs {a} and {b} share words")
    subs = doc.get("subs", [])
    if not isinstance(subs, list) or len(subs) > MAX_SUBS:
        raise r.bad(f"subs is not a list of at most {MAX_SUBS} subroutines")
    prog = {"words": words, "tables": tables, "checks": checks, "subs": subs}
    sub_code = tuple(r.block(s, 0, [], prog, k) for k, s in enumerate(subs))
    code = r.block(doc.get("code"), 0, [], prog, None)
    p = Program(inputs, outputs, words, tables, tuple(checks), code, sub_code, dh)
    if p.steps() > MAX_STEPS:
        raise r.bad(f"a run would execute more than {MAX_STEPS} instructions")
    return p


# ------------------------------------------------------------------------------------ interpreter
def vector_layout(ports: Sequence[Port] | Mapping[str, int]) -> list[tuple[str, int, int]]:
    """``(port, offset, bits)`` of each port in a vector of values (ports concatenated in order, the
    first at bit 0): the layout of the firmware's ``rekey <hex>`` for a program's inputs."""
    items = [(p.name, p.bits) for p in ports] if not isinstance(ports, Mapping) else list(ports.items())
    out, off = [], 0
    for name, bits in items:
        out.append((name, off, bits))
        off += bits
    return out


def pack_vector(ports: Sequence[Port] | Mapping[str, int], values: Mapping[str, int]) -> int:
    """The vector of ``values`` in :func:`vector_layout` (one int; bit ``offset + i`` = bit i of the
    port's value)."""
    return sum(values[name] << off for name, off, _ in vector_layout(ports))


def run(program: Program, values: Mapping[str, int]) -> dict[str, int]:
    """Run ``program`` on the user parameter ``values`` (input name -> int of at most its width);
    returns output name -> value (at its width), in output order.

    Raises:
        TransformError: an input without a value, a value that is not an int of its width.
        TransformRefused: a check failed (the first failed check's message; no outputs).
    """
    mem = [0] * program.words
    for p in program.inputs:
        v = values.get(p.name)
        if type(v) is not int or v < 0 or v >> p.bits:
            raise TransformError(f"the parameter transform needs {p.name} as a value of {p.bits} bits")
        for k in range(p.nwords):
            mem[p.at + k] = (v >> (32 * k)) & _MASK
    failed = [0] * len(program.checks)
    _exec(program.code, mem, [], program, failed)
    bad = [program.checks[c] for c, f in enumerate(failed) if f]
    if bad:
        raise TransformRefused(f"the parameter transform refused the values: {bad[0]}")
    out = {}
    for p in program.outputs:
        v = 0
        for k in range(p.nwords):
            v |= mem[p.at + k] << (32 * k)
        out[p.name] = v & ((1 << p.bits) - 1)
    return out


def _exec(block, mem: list, idx: list, prog: Program, failed: list) -> None:
    def ad(a):
        return a if a.__class__ is int else a[0] + a[2] * idx[a[1]]

    for ins in block:
        op = ins[0]
        if op == "xor":
            mem[ad(ins[1])] = mem[ad(ins[2])] ^ mem[ad(ins[3])]
        elif op == "and":
            mem[ad(ins[1])] = mem[ad(ins[2])] & mem[ad(ins[3])]
        elif op == "or":
            mem[ad(ins[1])] = mem[ad(ins[2])] | mem[ad(ins[3])]
        elif op == "andn":
            mem[ad(ins[1])] = mem[ad(ins[2])] & ~mem[ad(ins[3])] & _MASK
        elif op == "const":
            mem[ad(ins[1])] = ins[2]
        elif op == "mov":
            mem[ad(ins[1])] = mem[ad(ins[2])]
        elif op == "shl":
            mem[ad(ins[1])] = (mem[ad(ins[2])] << ins[3]) & _MASK
        elif op == "shr":
            mem[ad(ins[1])] = mem[ad(ins[2])] >> ins[3]
        elif op == "rotl":
            x, k = mem[ad(ins[2])], ins[3]
            mem[ad(ins[1])] = ((x << k) | (x >> (32 - k))) & _MASK if k else x
        elif op == "add":
            mem[ad(ins[1])] = (mem[ad(ins[2])] + mem[ad(ins[3])]) & _MASK
        elif op == "sub":
            mem[ad(ins[1])] = (mem[ad(ins[2])] - mem[ad(ins[3])]) & _MASK
        elif op == "not":
            mem[ad(ins[1])] = ~mem[ad(ins[2])] & _MASK
        elif op == "sel":
            m = mem[ad(ins[2])]
            mem[ad(ins[1])] = (mem[ad(ins[3])] & m) | (mem[ad(ins[4])] & ~m & _MASK)
        elif op == "ltu":
            mem[ad(ins[1])] = _MASK if mem[ad(ins[2])] < mem[ad(ins[3])] else 0
        elif op == "eq":
            mem[ad(ins[1])] = _MASK if mem[ad(ins[2])] == mem[ad(ins[3])] else 0
        elif op == "load":
            mem[ad(ins[1])] = prog.tables[ins[2]][ad(ins[3])]
        elif op == "index":
            mem[ad(ins[1])] = (ins[4] + ins[3] * idx[ins[2]]) & _MASK
        elif op == "check":
            if mem[ad(ins[2])]:
                failed[ins[1]] = 1
        elif op == "loop":
            idx.append(0)
            for i in range(ins[1]):
                idx[-1] = i
                _exec(ins[2], mem, idx, prog, failed)
            idx.pop()
        else:                                   # call: the subroutine sees its own loops only
            _exec(prog.subs[ins[1]], mem, [], prog, failed)


def item_name(item) -> str:
    """The NAME of a ``--param`` item (``NAME=HEX`` text or a ``(NAME, value)`` pair)."""
    return item[0] if isinstance(item, tuple) else str(item).partition("=")[0].strip()


def circuit_items(build, items: Sequence) -> list:
    """``items`` (``--param`` items: ``NAME=HEX`` or ``(NAME, int)``) as ``(PORT, value)`` pairs of the
    circuit parameters of ``build`` (:class:`dcsflow.scg.buildfolder.BuildFolder`) when it has a
    parameter transform program (:attr:`~dcsflow.scg.buildfolder.BuildFolder.transform`) and the
    items name exactly its user parameters, not every circuit parameter: the program run on them
    (parsed at the user parameters' widths, :func:`dcsflow.scg.params.parse_param_args`). Otherwise
    the items unchanged (every circuit parameter given, as before a program existed).

    Raises:
        BuildFolderError: the program is refused. ParamValueError: a malformed user value.
        TransformRefused: the program refused the values (one line; no frame is written).
    """
    from .params import parse_param_args

    prog = build.transform
    if prog is None:
        return list(items)
    names = {item_name(it) for it in items}
    user, ports = prog.input_widths, build.param_widths
    if names != set(user) or names >= set(ports):
        return list(items)
    values = run(prog, parse_param_args(items, user))
    return [(p, values[p]) for p in ports]


# ------------------------------------------------------------------------------------ builder
class Loop:
    """A loop being written (:meth:`Builder.loop`): ``level`` is its nesting depth (0 = outermost),
    ``count`` its trip count."""

    def __init__(self, level: int, count: int):
        self.level, self.count = level, count


class Builder:
    """Writes a :class:`Program`: ports and memory words are ints (addresses), each operation appends
    one instruction and returns the word it wrote (a fresh one unless ``out`` names one).

    ``inputs``/``outputs``: port name -> width in bits, in order; ``alias``: output name -> input
    name whose words it shares (the same width; an output that repeats an input costs nothing).
    A memory operand may also be :meth:`at` (an address stepping with a loop's counter).

    Raises (from :meth:`program`): TransformError when the program is malformed (the reader's checks).
    """

    def __init__(self, inputs: Mapping[str, int], outputs: Mapping[str, int],
                 alias: Mapping[str, str] | None = None):
        self._next = 0
        self._ports_in = {n: Port(n, w, self._alloc((w + 31) // 32)) for n, w in inputs.items()}
        self._ports_out = {}
        for n, w in outputs.items():
            src = (alias or {}).get(n)
            if src is not None:
                if self._ports_in[src].bits != w:
                    raise ValueError(f"output {n} aliases input {src} of another width")
                self._ports_out[n] = Port(n, w, self._ports_in[src].at)
            else:
                self._ports_out[n] = Port(n, w, self._alloc((w + 31) // 32))
        self._blocks: list[list] = [[]]
        self._depth = 0
        self._tables: list[tuple[int, ...]] = []
        self._checks: list[str] = []
        self._subs: list = []

    # -------------------------------------------------------------- memory
    def _alloc(self, n: int) -> int:
        at = self._next
        self._next += n
        return at

    def words(self, n: int) -> list[int]:
        """``n`` fresh consecutive memory words (0 when a run starts)."""
        at = self._alloc(n)
        return list(range(at, at + n))

    def word(self) -> int:
        """One fresh memory word."""
        return self._alloc(1)

    def input(self, name: str) -> list[int]:
        """The words of input ``name``."""
        p = self._ports_in[name]
        return list(range(p.at, p.at + p.nwords))

    def output(self, name: str) -> list[int]:
        """The words of output ``name`` (write them)."""
        p = self._ports_out[name]
        return list(range(p.at, p.at + p.nwords))

    def at(self, base: int, loop: Loop, stride: int = 1) -> tuple[int, int, int]:
        """The memory operand (or table index) ``base + stride * i``, ``i`` the counter of ``loop``."""
        return (base, loop.level, stride)

    def table(self, values: Sequence[int]) -> int:
        """A constant table (ints < 2^32); returns its number."""
        self._tables.append(tuple(int(v) & _MASK for v in values))
        return len(self._tables) - 1

    # -------------------------------------------------------------- instructions
    def _op(self, op: str, out, *args):
        d = self.word() if out is None else out
        self._blocks[-1].append((op, d, *args))
        return d

    def const(self, k: int, out=None):
        """``k`` (reduced mod 2^32)."""
        return self._op("const", out, int(k) & _MASK)

    def mov(self, a, out=None):
        """A copy of ``a``."""
        return self._op("mov", out, a)

    def not_(self, a, out=None):
        """``~a``."""
        return self._op("not", out, a)

    def xor(self, a, b, out=None):
        """``a ^ b``."""
        return self._op("xor", out, a, b)

    def and_(self, a, b, out=None):
        """``a & b``."""
        return self._op("and", out, a, b)

    def or_(self, a, b, out=None):
        """``a | b``."""
        return self._op("or", out, a, b)

    def andn(self, a, b, out=None):
        """``a & ~b``."""
        return self._op("andn", out, a, b)

    def add(self, a, b, out=None):
        """``a + b`` mod 2^32."""
        return self._op("add", out, a, b)

    def sub(self, a, b, out=None):
        """``a - b`` mod 2^32."""
        return self._op("sub", out, a, b)

    def shl(self, a, k: int, out=None):
        """``a << k`` (k constant 0..31; 32 or more: 0)."""
        return self.const(0, out) if k >= 32 else self._op("shl", out, a, k)

    def shr(self, a, k: int, out=None):
        """``a >> k``, logical (k constant 0..31; 32 or more: 0)."""
        return self.const(0, out) if k >= 32 else self._op("shr", out, a, k)

    def rotl(self, a, k: int, out=None):
        """``a`` rotated left by ``k % 32`` (a constant)."""
        return self._op("rotl", out, a, k % 32)

    def ltu(self, a, b, out=None):
        """All ones if ``a < b`` (unsigned), else 0."""
        return self._op("ltu", out, a, b)

    def eq(self, a, b, out=None):
        """All ones if ``a == b``, else 0."""
        return self._op("eq", out, a, b)

    def sel(self, m, a, b, out=None):
        """``(a & m) | (b & ~m)``."""
        return self._op("sel", out, m, a, b)

    def load(self, table: int, index, out=None):
        """Word ``index`` (a constant or :meth:`at`) of constant table ``table``."""
        return self._op("load", out, table, index)

    def index(self, loop: Loop, scale: int = 1, offset: int = 0, out=None):
        """``offset + scale * i`` mod 2^32, ``i`` the counter of ``loop``."""
        return self._op("index", out, loop.level, scale & _MASK, offset & _MASK)

    def check(self, mask, message: str) -> None:
        """The program fails with ``message`` (one line, no value) when ``mask`` is not 0."""
        if message not in self._checks:
            self._checks.append(message)
        self._blocks[-1].append(("check", self._checks.index(message), mask))

    # with a constant operand
    def xori(self, a, k: int, out=None):
        """``a ^ k`` for a constant ``k``."""
        return self.xor(a, self.const(k), out)

    def andi(self, a, k: int, out=None):
        """``a & k`` for a constant ``k``."""
        return self.and_(a, self.const(k), out)

    def ori(self, a, k: int, out=None):
        """``a | k`` for a constant ``k``."""
        return self.or_(a, self.const(k), out)

    def addi(self, a, k: int, out=None):
        """``a + k`` mod 2^32 for a constant ``k``."""
        return self.add(a, self.const(k), out)

    # several words
    def rotl64(self, lo, hi, n: int) -> tuple[int, int]:
        """The 64-bit word ``hi:lo`` rotated left by ``n % 64`` (a constant): ``(lo', hi')``."""
        n %= 64
        if n == 0:
            return lo, hi
        if n >= 32:
            lo, hi, n = hi, lo, n - 32
            if n == 0:
                return lo, hi
        return (self.or_(self.shl(lo, n), self.shr(hi, 32 - n)),
                self.or_(self.shl(hi, n), self.shr(lo, 32 - n)))

    def add64(self, a: tuple, b: tuple) -> tuple[int, int]:
        """``a + b`` mod 2^64 of two 64-bit words given as ``(lo, hi)``; the carry without a branch."""
        lo = self.add(a[0], b[0])
        carry = self.ltu(lo, a[0])                  # all ones when the low sum wrapped
        return lo, self.sub(self.add(a[1], b[1]), carry)

    # -------------------------------------------------------------- structure
    @contextmanager
    def loop(self, n: int) -> Iterator[Loop]:
        """``with b.loop(n) as L:`` the instructions written inside run ``n`` times (``L``'s counter
        0..n-1, for :meth:`at` and :meth:`index`)."""
        lp = Loop(self._depth, n)
        self._blocks.append([])
        self._depth += 1
        try:
            yield lp
        finally:
            self._depth -= 1
            body = self._blocks.pop()
        self._blocks[-1].append(("loop", n, tuple(body)))

    @contextmanager
    def subroutine(self) -> Iterator[int]:
        """``with b.subroutine() as k:`` the instructions written inside are subroutine ``k`` (run by
        :meth:`call`; its loops start at level 0; it may call subroutines defined before it)."""
        k = len(self._subs)
        self._subs.append(None)
        saved = self._depth
        self._blocks.append([])
        self._depth = 0
        try:
            yield k
        finally:
            self._subs[k] = tuple(self._blocks.pop())
            self._depth = saved

    def call(self, k: int) -> None:
        """Run subroutine ``k``."""
        self._blocks[-1].append(("call", k))

    def program(self) -> Program:
        """The program written, checked by the reader (:func:`from_json`).

        Raises:
            TransformError: it is malformed (e.g. more memory than :data:`MAX_WORDS`).
        """
        if len(self._blocks) != 1:
            raise TransformError("a loop or subroutine is still open")
        p = Program(tuple(self._ports_in.values()), tuple(self._ports_out.values()), max(1, self._next),
                    tuple(self._tables), tuple(self._checks), tuple(self._blocks[0]), tuple(self._subs))
        return from_json(p.to_json(), "the program written")
