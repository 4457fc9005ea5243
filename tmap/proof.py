"""The equivalence proof of a mapping: netlist ∘ PPC ≡ AIG for all parameter values.

:func:`verify` chooses the method: the cut-point proof (:mod:`dcsflow.tmap.cutpoint`, the LUT
claims as cut points) plus ABC ``cec`` of the AIG variant the cover came from against the AIG, or
the global proof, ABC ``cec`` of the composed netlist (:func:`dcsflow.tmap.netlist.compose`) against
the AIG. Every ABC run is recorded with what it proves (:mod:`dcsflow.steps`).
"""

from __future__ import annotations

from dcsflow.aig import Aig

from . import abc
from .cutpoint import cutpoint_proof
from .errors import VerificationError
from .netlist import compose
from .result import MapResult

__all__ = ["verify"]


def verify(res: MapResult, comb: Aig, seconds: float = 600.0, method: str = "auto") -> None:
    """Prove ``res.netlist`` ∘ ``res.ppc`` equivalent to the combinational AIG ``comb`` for all
    parameter values; sets ``res.stats.verified``/``proof``.

    Methods: ``"global"``: ABC ``cec`` of the composed netlist (every TLUT a multiplexer of its PPC
    outputs) against ``comb``. ``"cutpoint"``: :func:`dcsflow.tmap.cutpoint.cutpoint_proof` with the mapper's
    LUT claims as cut points (scales to arithmetic, where the global miter does not), plus ABC
    ``cec`` of ``comb`` against the ABC-optimized variant the cover came from, if any. ``"auto"``:
    cut points when ``res.claims`` is known, and the global proof if that does not succeed (a netlist
    read back from files has no claims). Raises VerificationError when not proved, ValueError for an
    unknown method.
    """
    if method not in ("auto", "global", "cutpoint"):
        raise ValueError(f"unknown proof method {method!r}")
    verdicts = []
    ok = False
    if method != "global" and res.claims is not None:
        ok, verdict = cutpoint_proof(res.netlist, res.ppc, res.variant or comb, res.claims, seconds)
        verdicts.append(verdict)
        if ok and res.variant is not None:
            ok, verdict = abc.cec(comb, res.variant, seconds, what="cec: AIG variant vs AIG")
            verdicts.append(f"ABC-optimized AIG variant vs AIG: {verdict}")
    if not ok and method != "cutpoint":
        composed = compose(res.netlist, res.ppc, comb.input_names)
        ok, verdict = abc.cec(comb, composed, seconds, what="cec: netlist ∘ PPC vs AIG")
        verdicts.append(f"global: {verdict}" if verdicts else verdict)
    res.stats.verified = ok
    res.stats.proof = "; ".join(verdicts) if verdicts else "no claims for a cut-point proof"
    if not ok:
        raise VerificationError(f"equivalence proof failed: {res.stats.proof}")
