"""And-inverter graphs (AIGs) with AIGER reading and writing. Standard library only.

Format: AIGER 1.9 (Armin Biere, "The AIGER And-Inverter Graph (AIG) Format Version 20071012" and
"AIGER 1.9 and beyond", FMV TR 11/2), ASCII ``aag`` and binary ``aig``: header ``M I L O A``
(optional ``B C J F`` counts must be zero here), latches with an optional reset value, symbol table
(``i``/``l``/``o`` entries) and comment section.

Internal numbering (canonical, as in binary AIGER): variable 0 is constant false, variables
``1..I`` are the inputs, ``I+1..I+L`` the latches, then the AND nodes in topological order.
A *literal* is ``2*var + complemented``; literal 0 is false, 1 is true. Combinationally, latch
outputs are inputs of the logic and latch next-state functions are outputs of it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import lru_cache

from .fileio import NETLIST_LIMIT, read_input_bytes, write_bytes_atomic

__all__ = ["Aig", "AigerError", "read_aiger", "parse_aiger", "write_aiger", "truth_vars", "MAX_INPUTS"]

#: Most primary inputs a read AIGER may declare (binary AIGER lists no input lines, so the header
#: alone decides how many there are; a hostile header must not make the reader allocate without end).
MAX_INPUTS = 1 << 22


class AigerError(Exception):
    """Malformed AIGER input. The message names the file and the line (ASCII ``.aag``, header and
    symbol table of binary ``.aig``) or byte offset (binary AND section) where the problem is.

    ``user_error``: the ``dcsflow`` CLI prints it as one line ``error: ...`` (exit status 1).
    """

    user_error = True


@dataclass
class Aig:
    """An AIG in canonical numbering (see module docstring).

    Attributes:
        num_inputs: number of primary inputs I.
        num_latches: number of latches L.
        ands: AND nodes, ``ands[i] = (lit0, lit1)`` defines variable ``1 + I + L + i``; fanin
            literals always refer to lower variables.
        outputs: output literals.
        latch_next: next-state literal of each latch.
        latch_init: reset value of each latch: 0, 1, or None (uninitialized, AIGER ``lit``).
        input_names, latch_names, output_names: symbol table (generated ``i3``/``l0``/``o2`` names
            where the file had none).
        comments: comment section lines.
    """

    num_inputs: int = 0
    num_latches: int = 0
    ands: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    latch_next: list = field(default_factory=list)
    latch_init: list = field(default_factory=list)
    input_names: list = field(default_factory=list)
    latch_names: list = field(default_factory=list)
    output_names: list = field(default_factory=list)
    comments: list = field(default_factory=list)

    def __post_init__(self):
        self._strash = None
        if len(self.input_names) < self.num_inputs:
            self.input_names += [f"i{j}" for j in range(len(self.input_names), self.num_inputs)]
        if len(self.latch_names) < self.num_latches:
            self.latch_names += [f"l{j}" for j in range(len(self.latch_names), self.num_latches)]
        if len(self.latch_next) < self.num_latches:
            self.latch_next += [0] * (self.num_latches - len(self.latch_next))
        if len(self.latch_init) < self.num_latches:
            self.latch_init += [0] * (self.num_latches - len(self.latch_init))

    # ----------------------------------------------------------------- sizes
    @property
    def num_ands(self) -> int:
        """Number of AND nodes A."""
        return len(self.ands)

    @property
    def num_outputs(self) -> int:
        """Number of outputs O (latch next states not counted)."""
        return len(self.outputs)

    @property
    def max_var(self) -> int:
        """Highest variable index M = I + L + A."""
        return self.num_inputs + self.num_latches + len(self.ands)

    @property
    def first_and(self) -> int:
        """Variable index of the first AND node (I + L + 1)."""
        return self.num_inputs + self.num_latches + 1

    # ----------------------------------------------------------------- building
    def add_input(self, name: str | None = None) -> int:
        """Append a primary input (only before any latch or AND exists); returns its literal."""
        if self.num_latches or self.ands:
            raise ValueError("inputs must be added before latches and AND nodes")
        self.num_inputs += 1
        self.input_names.append(name if name is not None else f"i{self.num_inputs - 1}")
        return 2 * self.num_inputs

    def add_and(self, a: int, b: int) -> int:
        """Return a literal for ``a AND b``, folding constants and trivial cases and re-using an
        existing structurally equal node (structural hashing). Fanins must be existing literals."""
        if a > b:
            a, b = b, a
        if a == 0:
            return 0
        if a == 1:
            return b
        if a == b:
            return a
        if a ^ b == 1:
            return 0
        st = self._strash
        if st is None:
            st = self._strash = {}
            base = self.first_and
            for i, pair in enumerate(self.ands):
                p = pair if pair[0] <= pair[1] else (pair[1], pair[0])
                st.setdefault(p, 2 * (base + i))
        key = (a, b)
        lit = st.get(key)
        if lit is None:
            lit = 2 * (self.first_and + len(self.ands))
            self.ands.append(key)
            st[key] = lit
        return lit

    def add_or(self, a: int, b: int) -> int:
        """Literal of ``a OR b`` (De Morgan over :meth:`add_and`)."""
        return self.add_and(a ^ 1, b ^ 1) ^ 1

    def add_xor(self, a: int, b: int) -> int:
        """Literal of ``a XOR b`` (three AND nodes at most)."""
        return self.add_or(self.add_and(a, b ^ 1), self.add_and(a ^ 1, b))

    def add_mux(self, s: int, t: int, e: int) -> int:
        """Literal of ``s ? t : e``."""
        if t == e:
            return t
        return self.add_or(self.add_and(s, t), self.add_and(s ^ 1, e))

    def add_mux_tree(self, sel: list[int], values: list[int]) -> int:
        """Literal of ``values[index]`` where ``index`` is the binary number on the literals ``sel``
        (``sel[0]`` = LSB); ``len(values) == 2 ** len(sel)``. A tree of :meth:`add_mux`."""
        for s in sel:
            values = [self.add_mux(s, values[i + 1], values[i]) for i in range(0, len(values), 2)]
        return values[0]

    def add_output(self, lit: int, name: str | None = None) -> int:
        """Append an output driven by ``lit``; returns its index."""
        self.outputs.append(lit)
        self.output_names.append(name if name is not None else f"o{len(self.outputs) - 1}")
        return len(self.outputs) - 1

    # ----------------------------------------------------------------- queries
    def simulate(self, input_values, width: int = 1, latch_values=None,
                 with_latches: bool = False) -> list[int]:
        """Evaluate the outputs bit-parallel.

        Args:
            input_values: ``dict`` name → int (inputs and, optionally, latch outputs by name; absent
                names are 0) or a list of ints (the inputs in order, optionally followed by the
                latch outputs). Each int holds ``width`` independent patterns, bit p = pattern p.
            width: number of patterns (bits) per value.
            latch_values: latch output values when ``input_values`` is a list without them.
            with_latches: also return the latch next-state values after the outputs.
        Returns:
            one int per output (then per latch if ``with_latches``), bit p = value in pattern p.
        """
        mask = (1 << width) - 1
        ni, nl = self.num_inputs, self.num_latches
        vals = [0] * (self.max_var + 1)
        if isinstance(input_values, dict):
            for j, n in enumerate(self.input_names):
                vals[1 + j] = input_values.get(n, 0) & mask
            for j, n in enumerate(self.latch_names):
                vals[1 + ni + j] = input_values.get(n, 0) & mask
        else:
            iv = list(input_values)
            if latch_values is not None:
                iv += list(latch_values)
            if len(iv) not in (ni, ni + nl):
                raise ValueError(f"expected {ni} input values (or {ni + nl} with latches), got {len(iv)}")
            for j, v in enumerate(iv):
                vals[1 + j] = v & mask
        base = self.first_and
        for i, (a, b) in enumerate(self.ands):
            va = vals[a >> 1]
            if a & 1:
                va ^= mask
            vb = vals[b >> 1]
            if b & 1:
                vb ^= mask
            vals[base + i] = va & vb

        def lv(lit):
            v = vals[lit >> 1]
            return v ^ mask if lit & 1 else v

        res = [lv(o) for o in self.outputs]
        if with_latches:
            res += [lv(o) for o in self.latch_next]
        return res

    def combinational(self) -> "Aig":
        """Return the combinational view: latch outputs become inputs (after the primary inputs,
        named as the latches) and latch next states become outputs (after the outputs, named
        ``<latch>$next``). Variable numbering is unchanged."""
        return Aig(num_inputs=self.num_inputs + self.num_latches, num_latches=0, ands=list(self.ands),
                   outputs=list(self.outputs) + list(self.latch_next),
                   input_names=list(self.input_names) + list(self.latch_names),
                   output_names=list(self.output_names) + [f"{n}$next" for n in self.latch_names])

    # ----------------------------------------------------------------- output
    def to_bytes(self, binary: bool = True, symbols: bool = True) -> bytes:
        """Serialize as AIGER (binary ``aig`` or ASCII ``aag``), with symbol table and comments."""
        I, L, A = self.num_inputs, self.num_latches, len(self.ands)
        M = I + L + A
        out = []
        if binary:
            out.append(f"aig {M} {I} {L} {len(self.outputs)} {A}\n".encode())
        else:
            out.append(f"aag {M} {I} {L} {len(self.outputs)} {A}\n".encode())
            out.append("".join(f"{2 * (1 + j)}\n" for j in range(I)).encode())
        lat = []
        for j in range(L):
            nxt, init = self.latch_next[j], self.latch_init[j]
            pre = "" if binary else f"{2 * (1 + I + j)} "
            if init == 0:
                lat.append(f"{pre}{nxt}\n")
            elif init == 1:
                lat.append(f"{pre}{nxt} 1\n")
            else:
                lat.append(f"{pre}{nxt} {2 * (1 + I + j)}\n")
        out.append("".join(lat).encode())
        out.append("".join(f"{o}\n" for o in self.outputs).encode())
        base = I + L + 1
        if binary:
            buf = bytearray()
            for i, (a, b) in enumerate(self.ands):
                lhs = 2 * (base + i)
                if a < b:
                    a, b = b, a
                for d in (lhs - a, a - b):
                    while d >= 0x80:
                        buf.append((d & 0x7F) | 0x80)
                        d >>= 7
                    buf.append(d)
            out.append(bytes(buf))
        else:
            out.append("".join(f"{2 * (base + i)} {a} {b}\n" for i, (a, b) in enumerate(self.ands)).encode())
        if symbols:
            sym = []
            for j, n in enumerate(self.input_names[:I]):
                sym.append(f"i{j} {n}\n")
            for j, n in enumerate(self.latch_names[:L]):
                sym.append(f"l{j} {n}\n")
            for j, n in enumerate(self.output_names[:len(self.outputs)]):
                sym.append(f"o{j} {n}\n")
            out.append("".join(sym).encode())
        if self.comments:
            out.append(("c\n" + "".join(c + "\n" for c in self.comments)).encode())
        return b"".join(out)

    def canonical_hash(self) -> str:
        """SHA-256 (hex) of the canonical binary AIGER encoding with symbols, without comments."""
        c, self.comments = self.comments, []
        try:
            return hashlib.sha256(self.to_bytes(binary=True)).hexdigest()
        finally:
            self.comments = c


# --------------------------------------------------------------------------- reading
@lru_cache(maxsize=None)
def truth_vars(k: int) -> tuple[int, ...]:
    """Projection truth tables of k variables over 2^k entries (entry i bit j = var j), cached."""
    size = 1 << k
    res = []
    for j in range(k):
        t = 0
        for i in range(size):
            if i >> j & 1:
                t |= 1 << i
        res.append(t)
    return tuple(res)


def write_aiger(aig: Aig, path, binary: bool = True) -> None:
    """Write ``aig`` to ``path`` atomically (:func:`dcsflow.fileio.write_bytes_atomic`) as binary or
    ASCII AIGER."""
    write_bytes_atomic(path, aig.to_bytes(binary=binary))


def read_aiger(path) -> Aig:
    """Read an AIGER file (ASCII ``aag`` or binary ``aig``, chosen by its header).

    Raises:
        AigerError: unreadable or malformed file (also: more than :data:`MAX_INPUTS` inputs, a
            combinational cycle among the AND nodes of an ASCII file); the message gives the file
            name and the line (or, inside the binary AND section, the byte offset) of the problem;
            a file that is not a regular file or is larger than :data:`dcsflow.fileio.NETLIST_LIMIT`.
    """
    path = os.fspath(path)
    try:
        data = read_input_bytes(path, NETLIST_LIMIT, "AIGER file")
    except OSError as e:
        raise AigerError(f"{path}: cannot read: {e.strerror or e}") from None
    return parse_aiger(data, path)


class _Reader:
    """Line-oriented cursor over AIGER bytes that knows line numbers and byte offsets."""

    def __init__(self, data: bytes, name: str):
        self.data, self.name, self.pos, self.line = data, name, 0, 1

    def err(self, msg: str, line: int | None = None, offset: int | None = None):
        if offset is not None:
            return AigerError(f"{self.name}: byte offset {offset}: {msg}")
        return AigerError(f"{self.name}: line {line if line is not None else self.line}: {msg}")

    def next_line(self, what: str) -> tuple[str, int]:
        if self.pos >= len(self.data):
            raise self.err(f"unexpected end of file (truncated?) while reading {what}")
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            end = len(self.data)
        raw = self.data[self.pos:end]
        ln = self.line
        self.pos, self.line = end + 1, self.line + 1
        try:
            return raw.decode("ascii").rstrip("\r"), ln
        except UnicodeDecodeError:
            raise self.err(f"non-ASCII bytes while reading {what}", ln) from None

    def ints(self, what: str, lo: int, hi: int) -> tuple[list[int], int]:
        s, ln = self.next_line(what)
        parts = s.split()
        if not (lo <= len(parts) <= hi):
            raise self.err(f"expected {what}, got {s!r}", ln)
        try:
            vals = [int(p) for p in parts]
        except ValueError:
            raise self.err(f"expected unsigned integers for {what}, got {s!r}", ln) from None
        if any(v < 0 or not p.isdigit() for v, p in zip(vals, parts)):
            raise self.err(f"expected unsigned integers for {what}, got {s!r}", ln)
        return vals, ln


def parse_aiger(data: bytes, name: str = "<aiger>") -> Aig:
    """Parse AIGER bytes (see :func:`read_aiger`); ``name`` is used in error messages."""
    r = _Reader(data, name)
    head, _ = r.next_line("header")
    parts = head.split()
    if not parts or parts[0] not in ("aag", "aig"):
        raise r.err(f"bad header {head[:40]!r}: expected 'aag' or 'aig' followed by M I L O A", 1)
    binary = parts[0] == "aig"
    try:
        nums = [int(p) for p in parts[1:]]
    except ValueError:
        raise r.err(f"bad header {head!r}: counts must be unsigned integers", 1) from None
    if len(nums) < 5 or len(nums) > 9 or any(n < 0 for n in nums):
        raise r.err(f"bad header {head!r}: expected M I L O A [B C J F]", 1)
    M, I, L, O, A = nums[:5]
    extra = nums[5:]
    if any(extra):
        raise r.err("bad-state, constraint, justice and fairness sections (B C J F) are not supported", 1)
    if M < I + L + A:
        raise r.err(f"bad header: M={M} is smaller than I+L+A={I + L + A}", 1)
    if binary and M != I + L + A:
        raise r.err(f"bad header: binary AIGER needs M = I+L+A, got M={M}, I+L+A={I + L + A}", 1)
    if I > MAX_INPUTS:
        # binary AIGER lists no input, so a short file could otherwise claim 10^11 of them
        raise r.err(f"bad header: {I} inputs; at most {MAX_INPUTS} are supported", 1)
    maxlit = 2 * M + 1

    def chk(lit, ln, what):
        if lit > maxlit:
            raise r.err(f"literal {lit} in {what} is out of range (maximum {maxlit})", ln)

    if binary:
        return _parse_binary(r, M, I, L, O, A, chk)
    return _parse_ascii(r, M, I, L, O, A, chk)


def _read_latch(r, binary, chk, expect_lit):
    vals, ln = r.ints("latch line", 1 if binary else 2, 2 if binary else 3)
    if not binary:
        lit = vals.pop(0)
    else:
        lit = expect_lit
    nxt = vals[0]
    chk(nxt, ln, "latch next state")
    init = 0
    if len(vals) > 1:
        if vals[1] == 0:
            init = 0
        elif vals[1] == 1:
            init = 1
        elif vals[1] == lit:
            init = None
        else:
            raise r.err(f"latch reset value must be 0, 1 or the latch literal {lit}, got {vals[1]}", ln)
    return lit, nxt, init, ln


def _parse_binary(r, M, I, L, O, A, chk) -> Aig:
    latch_next, latch_init, outputs = [], [], []
    for j in range(L):
        lit = 2 * (I + 1 + j)
        _, nxt, init, ln = _read_latch(r, True, chk, lit)
        latch_next.append(nxt)
        latch_init.append(init)
    for j in range(O):
        vals, ln = r.ints("output literal", 1, 1)
        chk(vals[0], ln, "output")
        outputs.append(vals[0])
    data, pos = r.data, r.pos
    n = len(data)
    ands = []
    base = I + L + 1
    for i in range(A):
        lhs = 2 * (base + i)
        start = pos
        ds = []
        for _ in range(2):
            x, sh = 0, 0
            while True:
                if pos >= n:
                    raise r.err(f"unexpected end of file in AND node {i} of {A} (truncated?)", offset=pos)
                c = data[pos]
                pos += 1
                x |= (c & 0x7F) << sh
                if not c & 0x80:
                    break
                sh += 7
            ds.append(x)
        a = lhs - ds[0]
        b = a - ds[1]
        if ds[0] == 0 or a < 0 or b < 0:
            raise r.err(f"invalid delta encoding of AND node {lhs} (fanin literal not below {lhs})", offset=start)
        ands.append((a, b))
    r.pos = pos
    aig = Aig(num_inputs=I, num_latches=L, ands=ands, outputs=outputs, latch_next=latch_next,
              latch_init=latch_init)
    _parse_symbols(r, aig, binary=True)
    return _finish(aig)


def _parse_ascii(r, M, I, L, O, A, chk) -> Aig:
    defined = {}  # var -> ("i", j, line) | ("l", j, line) | ("a", j, line)
    in_vars, latch_vars = [], []
    for j in range(I):
        vals, ln = r.ints("input literal", 1, 1)
        lit = vals[0]
        chk(lit, ln, "input")
        if lit < 2 or lit & 1:
            raise r.err(f"input literal {lit} must be even and non-zero", ln)
        if lit >> 1 in defined:
            raise r.err(f"literal {lit} defined twice (first on line {defined[lit >> 1][2]})", ln)
        defined[lit >> 1] = ("i", j, ln)
        in_vars.append(lit >> 1)
    latch_next, latch_init, latch_lines = [], [], []
    for j in range(L):
        lit, nxt, init, ln = _read_latch(r, False, chk, None)
        chk(lit, ln, "latch")
        if lit < 2 or lit & 1:
            raise r.err(f"latch literal {lit} must be even and non-zero", ln)
        if lit >> 1 in defined:
            raise r.err(f"literal {lit} defined twice (first on line {defined[lit >> 1][2]})", ln)
        defined[lit >> 1] = ("l", j, ln)
        latch_vars.append(lit >> 1)
        latch_next.append(nxt)
        latch_init.append(init)
        latch_lines.append(ln)
    outputs, out_lines = [], []
    for j in range(O):
        vals, ln = r.ints("output literal", 1, 1)
        chk(vals[0], ln, "output")
        outputs.append(vals[0])
        out_lines.append(ln)
    and_defs = []
    for j in range(A):
        vals, ln = r.ints("AND gate 'lhs rhs0 rhs1'", 3, 3)
        lhs, a, b = vals
        for v, w in ((lhs, "AND output"), (a, "AND input"), (b, "AND input")):
            chk(v, ln, w)
        if lhs < 2 or lhs & 1:
            raise r.err(f"AND output literal {lhs} must be even and non-zero", ln)
        if lhs >> 1 in defined:
            raise r.err(f"literal {lhs} defined twice (first on line {defined[lhs >> 1][2]})", ln)
        defined[lhs >> 1] = ("a", j, ln)
        and_defs.append((lhs >> 1, a, b, ln))

    def need(lit, ln, what):
        v = lit >> 1
        if v and v not in defined:
            raise r.err(f"undefined literal {lit} used as {what}", ln)

    for (v, a, b, ln) in and_defs:
        need(a, ln, "AND input")
        need(b, ln, "AND input")
    for lit, ln in zip(outputs, out_lines):
        need(lit, ln, "output")
    for lit, ln in zip(latch_next, latch_lines):
        need(lit, ln, "latch next state")

    # topological order of the AND nodes (iterative DFS, cycle detection)
    newvar = {0: 0}
    for j, v in enumerate(in_vars):
        newvar[v] = 1 + j
    for j, v in enumerate(latch_vars):
        newvar[v] = 1 + I + j
    by_var = {d[0]: d for d in and_defs}
    state = {}  # var -> 1 visiting, 2 done
    order = []
    for d in and_defs:
        if d[0] in state:
            continue
        stack = [(d[0], 0)]
        while stack:
            v, k = stack.pop()
            if k == 0:
                if state.get(v) == 2:
                    continue
                state[v] = 1
            dv = by_var[v]
            if k < 2:
                stack.append((v, k + 1))
                c = dv[1 + k] >> 1
                if c in by_var:
                    s = state.get(c)
                    if s == 1:
                        raise r.err(f"combinational cycle through AND node {2 * c} (defined on line "
                                    f"{by_var[c][3]})", dv[3])
                    if s is None:
                        stack.append((c, 0))
            else:
                state[v] = 2
                order.append(v)
    base = I + L + 1
    for i, v in enumerate(order):
        newvar[v] = base + i

    def tr(lit):
        return 2 * newvar[lit >> 1] + (lit & 1)

    ands = [(tr(by_var[v][1]), tr(by_var[v][2])) for v in order]
    aig = Aig(num_inputs=I, num_latches=L, ands=ands, outputs=[tr(o) for o in outputs],
              latch_next=[tr(x) for x in latch_next], latch_init=latch_init)
    _parse_symbols(r, aig, binary=False)
    return _finish(aig)


def _parse_symbols(r, aig: Aig, binary: bool) -> None:
    names = {"i": {}, "l": {}, "o": {}}
    limits = {"i": aig.num_inputs, "l": aig.num_latches, "o": len(aig.outputs)}
    while r.pos < len(r.data):
        start = r.pos
        s, ln = r.next_line("symbol table")
        where = {"offset": start} if binary else {"line": ln}
        if s.startswith("c"):
            aig.comments = r.data[r.pos:].decode("utf-8", "replace").splitlines()
            r.pos = len(r.data)
            break
        if s == "":
            if r.pos >= len(r.data):
                break
            raise r.err("empty line in symbol table", **where)
        kind = s[0]
        if kind in "bjf":
            continue
        if kind not in names:
            raise r.err(f"bad symbol table entry {s[:40]!r} (expected i/l/o<index> <name> or 'c')", **where)
        idx, _, nm = s[1:].partition(" ")
        if not idx.isdigit() or not nm:
            raise r.err(f"bad symbol table entry {s[:40]!r}", **where)
        k = int(idx)
        if k >= limits[kind]:
            raise r.err(f"symbol index {kind}{k} out of range (only {limits[kind]})", **where)
        names[kind][k] = nm
    aig.input_names = [names["i"].get(j, f"i{j}") for j in range(aig.num_inputs)]
    aig.latch_names = [names["l"].get(j, f"l{j}") for j in range(aig.num_latches)]
    aig.output_names = [names["o"].get(j, f"o{j}") for j in range(len(aig.outputs))]


def _finish(aig: Aig) -> Aig:
    return aig
