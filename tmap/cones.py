"""Parameter-only cones of an AIG (the part of the logic that moves into the PPC)."""

from __future__ import annotations

from dcsflow.aig import Aig


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
