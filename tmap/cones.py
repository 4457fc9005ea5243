"""Parameter-only cones of an AIG (the part of the logic that moves into the PPC): which variables
depend on parameters only, their literals rebuilt in another AIG over the parameters, and an AIG
without the nodes its outputs do not read. Standard library only.
"""

from __future__ import annotations

from dcsflow.aig import Aig

__all__ = ["parameter_only", "ParamLiterals", "NotParameterOnly", "compact"]


def parameter_only(aig: Aig, pvars) -> bytearray:
    """Mark the parameter-only variables of ``aig``: the constant (variable 0), the variables in
    ``pvars`` (input variable numbers of the parameters) and every AND node whose two fanins are
    parameter-only. Returns a bytearray of ``aig.max_var + 1`` flags (1 = parameter-only)."""
    flags = bytearray(aig.max_var + 1)
    flags[0] = 1
    for v in pvars:
        flags[v] = 1
    base = aig.first_and
    for i, (a, b) in enumerate(aig.ands):
        if flags[a >> 1] and flags[b >> 1]:
            flags[base + i] = 1
    return flags


class NotParameterOnly(ValueError):
    """A cone asked of :class:`ParamLiterals` reaches an input that is not a parameter; ``var``: that
    input's variable in the source AIG."""

    def __init__(self, var: int):
        super().__init__(f"input variable {var} is not a parameter")
        self.var = var


class ParamLiterals:
    """Literals, in a target AIG over the parameters, of the parameter-only variables of a source AIG
    (the PPC side of a TLUT entry: :mod:`dcsflow.tmap.ppc` builds the PPC with it, the cut-point proof
    re-derives the entries with it).

    ``ands``, ``base``: the source AIG's AND nodes and first AND variable; ``target``: the AIG the
    cones are built in (structurally hashed by :meth:`dcsflow.aig.Aig.add_and`); ``inputs``: source
    variable -> target literal of each parameter (variable 0, the constant, is literal 0). Each
    variable's literal is built once and remembered.
    """

    def __init__(self, ands, base: int, target: Aig, inputs: dict):
        self.ands = ands
        self.base = base
        self.target = target
        self.lit = {0: 0}          # source variable -> target literal (positive)
        self.lit.update(inputs)

    def literal(self, v: int) -> int:
        """Target literal (positive) of source variable ``v``, its cone built fanin 0 first and
        without recursion (deep cones). Raises NotParameterOnly when the cone reaches an input that is
        not in ``inputs``."""
        lit = self.lit
        if v in lit:
            return lit[v]
        ands, base = self.ands, self.base
        stack = [v]
        while stack:
            x = stack[-1]
            if x in lit:
                stack.pop()
                continue
            if x < base:
                raise NotParameterOnly(x)
            a, b = ands[x - base]
            pa, pb = lit.get(a >> 1), lit.get(b >> 1)
            if pa is None:
                stack.append(a >> 1)
            elif pb is None:
                stack.append(b >> 1)
            else:
                lit[x] = self.target.add_and(pa ^ (a & 1), pb ^ (b & 1))
                stack.pop()
        return lit[v]


def compact(aig: Aig) -> Aig:
    """``aig`` without the AND nodes outside the cones of its outputs (renumbered; input and output
    names kept; latches are not kept: a combinational view)."""
    base = aig.first_and
    keep = bytearray(aig.max_var + 1)
    stack = [o >> 1 for o in aig.outputs]
    while stack:
        v = stack.pop()
        if keep[v]:
            continue
        keep[v] = 1
        if v >= base:
            a, b = aig.ands[v - base]
            stack += [a >> 1, b >> 1]
    newlit = {v: 2 * v for v in range(base)}
    ands = []
    for i, (a, b) in enumerate(aig.ands):
        v = base + i
        if keep[v]:
            newlit[v] = 2 * (base + len(ands))
            ands.append((newlit[a >> 1] | (a & 1), newlit[b >> 1] | (b & 1)))
    return Aig(num_inputs=aig.num_inputs, num_latches=0, ands=ands,
               outputs=[newlit[o >> 1] | (o & 1) for o in aig.outputs],
               input_names=list(aig.input_names), output_names=list(aig.output_names))
