"""A small structurally hashed AIG builder that writes ASCII AIGER (``aag``), stdlib only.

Used by the front end to hand gate-level logic to the mapper. Literals follow AIGER 1.9: variable v
has literal 2v, its complement 2v+1; literal 0 is constant false, 1 constant true.
"""

from __future__ import annotations

from pathlib import Path


class AigBuilder:
    """Incrementally built combinational AIG with named inputs and outputs.

    Inputs get variables 1..I in creation order; AND nodes follow. ``and_(a, b)`` hashes
    structurally and folds constants and trivial cases (a&a, a&~a).
    """

    def __init__(self) -> None:
        self.input_names: list[str] = []
        self.ands: list[tuple[int, int]] = []   # (rhs0, rhs1) of AND variable I+1+k (built lazily)
        self._ands_pending: list[tuple[int, int, int]] = []
        self._hash: dict[tuple[int, int], int] = {}
        self.outputs: list[tuple[str, int]] = []
        self._next_var = 1
        self._frozen_inputs = False

    def add_input(self, name: str) -> int:
        """Add a primary input; returns its literal. All inputs must be added before any AND."""
        if self._frozen_inputs:
            raise RuntimeError("inputs must be added before AND nodes")
        v = self._next_var
        self._next_var += 1
        self.input_names.append(name)
        return 2 * v

    def and_(self, a: int, b: int) -> int:
        """Literal of a AND b (hashed, constant-folded)."""
        self._frozen_inputs = True
        if a > b:
            a, b = b, a
        if a == 0:
            return 0
        if a == 1:
            return b
        if a == b:
            return a
        if a ^ 1 == b:
            return 0
        key = (a, b)
        lit = self._hash.get(key)
        if lit is None:
            v = self._next_var
            self._next_var += 1
            lit = 2 * v
            self._hash[key] = lit
            self._ands_pending.append((lit, b, a))
        return lit

    def or_(self, a: int, b: int) -> int:
        """Literal of a OR b."""
        return self.and_(a ^ 1, b ^ 1) ^ 1

    def xor(self, a: int, b: int) -> int:
        """Literal of a XOR b (three AND nodes)."""
        return self.or_(self.and_(a, b ^ 1), self.and_(a ^ 1, b))

    def mux(self, s: int, a: int, b: int) -> int:
        """Literal of ``s ? b : a``."""
        if a == b:
            return a
        return self.or_(self.and_(s ^ 1, a), self.and_(s, b))

    def add_output(self, name: str, lit: int) -> None:
        """Add a primary output driven by ``lit``."""
        self.outputs.append((name, lit))

    @property
    def num_ands(self) -> int:
        """Number of AND nodes."""
        return len(self._ands_pending)

    def to_aag(self) -> str:
        """The AIG as ASCII AIGER text with a symbol table (inputs ``i``, outputs ``o``)."""
        n_in = len(self.input_names)
        lines = [f"aag {self._next_var - 1} {n_in} 0 {len(self.outputs)} {len(self._ands_pending)}"]
        lines += [str(2 * (i + 1)) for i in range(n_in)]
        lines += [str(lit) for _, lit in self.outputs]
        lines += [f"{lhs} {r0} {r1}" for lhs, r0, r1 in self._ands_pending]
        lines += [f"i{i} {n}" for i, n in enumerate(self.input_names)]
        lines += [f"o{i} {n}" for i, (n, _) in enumerate(self.outputs)]
        lines.append("c")
        lines.append("dcsflow front end")
        return "\n".join(lines) + "\n"

    def write(self, path: Path) -> None:
        """Write ASCII AIGER to ``path``."""
        Path(path).write_text(self.to_aag())

    def simulate(self, values: dict[str, int], width: int) -> list[int]:
        """Evaluate all outputs bit-parallel (each value holds ``width`` patterns); list per output."""
        mask = (1 << width) - 1
        val = [0] * self._next_var
        for i, n in enumerate(self.input_names):
            val[i + 1] = values.get(n, 0) & mask

        def lv(lit: int) -> int:
            x = val[lit >> 1]
            return x ^ mask if lit & 1 else x

        for lhs, r0, r1 in self._ands_pending:
            val[lhs >> 1] = lv(r0) & lv(r1)
        return [lv(lit) for _, lit in self.outputs]


def read_aag(text: str) -> tuple[list[str], list[tuple[int, int, int]], list[tuple[str, int]]]:
    """Parse combinational ASCII AIGER: (input names, ANDs as (lhs, rhs0, rhs1), outputs (name, lit)).

    Only what :meth:`AigBuilder.to_aag` writes (no latches). Raises ValueError on other input.
    """
    lines = text.splitlines()
    hdr = lines[0].split()
    if hdr[0] != "aag" or int(hdr[3]) != 0:
        raise ValueError("not a combinational ASCII AIGER")
    _, i, _, o, a = (int(x) for x in hdr[1:6])
    ins = [int(x) for x in lines[1:1 + i]]
    outs = [int(x) for x in lines[1 + i:1 + i + o]]
    ands = [tuple(int(x) for x in ln.split()) for ln in lines[1 + i + o:1 + i + o + a]]
    names_i = [f"i{k}" for k in range(i)]
    names_o = [f"o{k}" for k in range(o)]
    for ln in lines[1 + i + o + a:]:
        if ln == "c":
            break
        kind, rest = ln[0], ln[1:]
        idx, _, name = rest.partition(" ")
        if kind == "i":
            names_i[int(idx)] = name
        elif kind == "o":
            names_o[int(idx)] = name
    assert ins == [2 * (k + 1) for k in range(i)]
    return names_i, ands, list(zip(names_o, outs))
