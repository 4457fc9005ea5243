"""``dcsflow`` / ``python -m dcsflow.flow``: the flow's command line.

The console script starts here rather than in :mod:`dcsflow.flow.cli` so that an install without the
``flow`` extra (the runtime alone, ``pip install dcsflow``) answers with one line saying how to get
the flow, instead of a traceback about a missing module.
"""

from __future__ import annotations

import importlib.util
import sys

#: third-party modules the flow's command line needs (the ``flow`` extra of setup.py)
FLOW_MODULES = ("click", "rich")


def main() -> None:
    """Run the ``dcsflow`` command (exit status as :func:`dcsflow.flow.cli.main`)."""
    missing = [m for m in FLOW_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        print(f"dcsflow: the flow is not installed (missing {', '.join(missing)}): "
              "pip install 'dcsflow[flow]'; the runtime alone: python -m dcsflow.scg --help", file=sys.stderr)
        sys.exit(1)
    from .cli import run

    run()


if __name__ == "__main__":
    main()
