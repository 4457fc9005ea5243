"""``python -m dcsflow.scg``: the runtime's command line (:mod:`dcsflow.scg.cli`).

SIGINT and SIGTERM are handled from the first instruction of :func:`main`, before the command
line's modules are imported (:mod:`dcsflow.interrupts`)."""

from __future__ import annotations

import sys

from dcsflow import interrupts


def main() -> None:
    """Run the runtime's command line (exit status as :func:`dcsflow.scg.cli.main`)."""
    sys.exit(interrupts.run_main(_run, program=True))


def _run() -> int:
    from .cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    main()
