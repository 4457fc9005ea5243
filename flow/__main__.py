"""``dcsflow`` / ``python -m dcsflow.flow``: the flow's command line.

The console script starts here rather than in :mod:`dcsflow.flow.cli` so that an install without the
``flow`` extra (the runtime alone, ``pip install dcsflow``) answers with one line saying how to get
the flow, instead of a traceback about a missing module, and so that SIGINT and SIGTERM are handled
from the first instruction of :func:`main`, before the command line's modules are imported
(:mod:`dcsflow.interrupts`).
"""

from __future__ import annotations

import sys

from dcsflow import interrupts

#: third-party modules the flow's command line needs (the ``flow`` extra of setup.py)
FLOW_MODULES = ("click", "rich")


def main() -> None:
    """Run the ``dcsflow`` command (exit status as :func:`dcsflow.flow.cli.main`)."""
    sys.exit(interrupts.run_main(_run, on_interrupt=_end_children, program=True))


def _end_children() -> None:
    from dcsflow.tools import terminate_children

    terminate_children()


def _run() -> int:
    import importlib.util

    missing = [m for m in FLOW_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        print(f"dcsflow: the flow is not installed (missing {', '.join(missing)}): "
              "pip install 'dcsflow[flow]'; the runtime alone: python -m dcsflow.scg --help", file=sys.stderr)
        return 1
    from .cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    main()
