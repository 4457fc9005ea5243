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
