"""Error types of the TMAP package.

Every class here has ``user_error = True``: the ``dcsflow`` CLI prints such an error as one line
``error: ...`` and exits with status 1 (see :mod:`dcsflow.flow.cli`). Stdlib only. (AIGER errors are
:class:`dcsflow.aig.AigerError`.)
"""

from __future__ import annotations


class TmapError(Exception):
    """Base class of user-facing TMAP errors (bad input, failed proof, failed tool)."""

    user_error = True


class ParamError(TmapError):
    """Parameter names that are not inputs of the AIG (the message lists close matches)."""


class VerificationError(TmapError):
    """The formal equivalence proof (ABC ``cec``) of TLUT netlist ∘ PPC against the AIG failed."""


class ToolError(TmapError):
    """An external tool (``yosys-abc``) failed; the message carries its output tail. (A missing tool
    is :class:`dcsflow.tools.ToolMissing`.)"""


class ToolTimeout(ToolError):
    """An external tool (``yosys-abc``) ran past its time limit."""
