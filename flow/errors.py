"""Error types of the flow.

Every error meant for the user (bad input, missing data, a failed check) derives from
:class:`FlowError`; the CLI prints it as one line ``error: ...`` and exits non-zero.
Other packages (``tmap``, ``scg``, ``designs``) have their own base classes; the CLI treats any
exception with a true ``user_error`` class attribute the same way.
"""


class FlowError(Exception):
    """A user-facing error of the flow: printed as one line by the CLI, exit status 1."""

    user_error = True


class FrontendError(FlowError):
    """Bad front-end input (unknown parameter port, unsupported netlist construct, a bad mark)."""
