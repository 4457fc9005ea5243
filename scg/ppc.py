"""Host-side PPC evaluation: parameter values -> TLUT truth-table bits, bit-parallel, stdlib only.

The PPC (partial parameterized configuration) is an AIG whose inputs are the parameter bits
(named ``port[i]`` or ``port`` for 1-bit ports) and whose output j is the value of every TLUT
entry that names j (TMAP contract, format "dcsflow-tlut-netlist" v1). It is read with
:mod:`dcsflow.aig` (stdlib only). Evaluation is straight-line (every AND node evaluated once, no
branches on values), so its time does not depend on the key (docs/architecture.md, "Security").
Bit-parallel: ``width`` parameter assignments are evaluated at once, pattern p in bit p of Python ints.
"""

from __future__ import annotations

import re
from pathlib import Path

from dcsflow.aig import Aig, read_aiger


class PpcError(ValueError):
    """Bad parameter assignment for a PPC (a port without a value, a value wider than its port).
    Command-line values are parsed by :mod:`dcsflow.scg.params`."""

    user_error = True


_BIT_RE = re.compile(r"^(.*?)(?:\[(\d+)\])?$")


def port_widths(input_names: list[str]) -> dict[str, int]:
    """Parameter ports and widths from PPC input names (``key[3]`` -> port ``key``, width >= 4)."""
    w: dict[str, int] = {}
    for n in input_names:
        m = _BIT_RE.match(n)
        port, idx = m.group(1), m.group(2)
        w[port] = max(w.get(port, 0), int(idx) + 1 if idx is not None else 1)
    return w


class Ppc:
    """A loaded PPC.

    Attributes:
        aig: the PPC AIG (:class:`dcsflow.aig.Aig`); inputs: parameter bit names; ports: port -> width.
    """

    def __init__(self, aig: Aig):
        self.aig = aig
        self.inputs: list[str] = list(aig.input_names)
        self.ports = port_widths(self.inputs)

    @classmethod
    def load(cls, path: str | Path) -> "Ppc":
        """Read a PPC AIGER file (binary or ASCII). Raises dcsflow.aig.AigerError, OSError."""
        return cls(read_aiger(str(path)))

    @property
    def num_outputs(self) -> int:
        """Number of PPC outputs (distinct TLUT-entry functions)."""
        return len(self.aig.outputs)

    def _bit_values(self, assignments: list[dict[str, int]]) -> dict[str, int]:
        vals: dict[str, int] = {}
        for n in self.inputs:
            m = _BIT_RE.match(n)
            port, idx = m.group(1), int(m.group(2) or 0)
            v = 0
            for p, a in enumerate(assignments):
                if port not in a:
                    raise PpcError(f"no value for parameter {port}")
                v |= ((a[port] >> idx) & 1) << p
            vals[n] = v
        return vals

    def evaluate_many(self, assignments: list[dict[str, int]]) -> list[list[int]]:
        """Evaluate for several assignments at once (bit-parallel).

        Args:
            assignments: each maps every parameter port to its value (int, bit i = ``port[i]``).
        Returns:
            per assignment, the list of PPC output bits (0/1), index = PPC output number.
        Raises:
            PpcError: a port is missing or a value does not fit its width.
        """
        for a in assignments:
            for port, v in a.items():
                w = self.ports.get(port)
                if w is not None and (v < 0 or v >> w):
                    raise PpcError(f"parameter {port}: value does not fit in {w} bits")
        width = max(1, len(assignments))
        outs = self.aig.simulate(self._bit_values(assignments), width=width)
        return [[(o >> p) & 1 for o in outs] for p in range(len(assignments))]

    def evaluate(self, assignment: dict[str, int]) -> list[int]:
        """PPC output bits for one assignment (see :meth:`evaluate_many`)."""
        return self.evaluate_many([assignment])[0]


def tlut_inits(ppc_bits: list[int], entries: dict[str, list[int]]) -> dict[str, int]:
    """Truth tables of TLUTs: cell -> INIT (bit i = ``ppc_bits[entries[cell][i]]``)."""
    out = {}
    for cell, ent in entries.items():
        v = 0
        for i, j in enumerate(ent):
            v |= ppc_bits[j] << i
        out[cell] = v
    return out
