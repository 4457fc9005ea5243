"""Error types of the TMAP package.

Every class here has ``user_error = True``: the ``dcsflow`` CLI prints such an error as one line
``error: ...`` and exits with status 1 (see :mod:`dcsflow.flow.cli`). Standard library and the core
layer only. (AIGER errors are :class:`dcsflow.aig.AigerError`.)
"""

from __future__ import annotations

from dcsflow import tools


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


class ToolTimeout(ToolError, tools.ToolTimeout):
    """An external tool (``yosys-abc``) ran past its time limit: also a
    :class:`dcsflow.tools.ToolTimeout` (its one-line message names the run and the limit)."""
