"""The runtime's command line: ``python -m dcsflow.scg COMMAND ...`` (standard library only).

Commands: ``rekey`` (host SCG to the emulator, a bitstream file, AXI HWICAP through ``/dev/mem``
or the Linux FPGA manager), ``bit`` (inspect, query, compare bitstreams), ``import`` (a routed
Vivado bitstream becomes the build's template) and ``codegen`` (C sources of the firmware SCG).
Their arguments and what they do are in :mod:`dcsflow.scg.commands`, which the flow's
``dcsflow rekey|bit|import|codegen`` use too; this module adds the exit status and the signals.

Exit status: 0 done; 1 a user error (any exception whose class has a true ``user_error``
attribute, e.g. :class:`dcsflow.scg.errors.RekeyError`, :class:`dcsflow.scg.errors.BitstreamError`,
:class:`dcsflow.aig.AigerError`, :class:`dcsflow.fileio.OutputError`, an OS error on a named
file or program, input nested too deeply to read, running out of memory; see
:func:`dcsflow.scg.commands.last_resort_message`), printed as one line ``error: ...`` on stderr,
never a traceback; 2 a usage error (argparse);
130 interrupted (Ctrl-C); 143 terminated (SIGTERM).

Signals (:mod:`dcsflow.interrupts`): from the first instruction of :func:`main` (and of
``python -m dcsflow.scg``), SIGINT raises :class:`dcsflow.interrupts.Interrupted` and SIGTERM
:class:`Terminated` (both ``KeyboardInterrupt``), so every ``finally`` and cleanup block runs —
temporary files of the atomic writer and the FPGA manager's firmware file (key material) are
removed — and the command exits with status 130 / 143 after one line ``interrupted`` /
``terminated`` on stderr, however the work then ended. A handler is installed only where the
signal has its default action (an embedding program's own SIGTERM handler stays), and put back
when :func:`main` returns.
"""

from __future__ import annotations

import sys

from dcsflow import interrupts

from .commands import last_resort_message, lenient_output, parse_args, run_command

PROG = "python -m dcsflow.scg"


Terminated = interrupts.Terminated      # the SIGTERM handler's exception (dcsflow.interrupts)


def _is_user_error(exc: BaseException) -> bool:
    return bool(getattr(type(exc), "user_error", False))


def main(argv: list[str] | None = None, prog: str = PROG, program: bool = False) -> int:
    """Run the runtime's command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status
    (0 done, 1 user error printed as one line ``error: ...`` on stderr, 2 usage error, 130
    interrupted, 143 terminated by SIGTERM after the cleanup ran). ``prog`` is the command name shown
    in usage and help; ``program``: the caller is the program's entry point (the signal handlers
    stay installed, :func:`dcsflow.interrupts.run_main`)."""
    return interrupts.run_main(lambda: _main(argv, prog), program=program)


def _main(argv, prog) -> int:
    lenient_output()
    try:
        args = parse_args(sys.argv[1:] if argv is None else list(argv), prog)
        return run_command(args)
    except SystemExit as e:       # argparse: --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except BrokenPipeError:
        return 1
    except Exception as e:  # noqa: BLE001 - user errors become one line; others re-raise
        if interrupts.received() is not None:
            raise                 # ended by a signal: run_main says so in one line
        if _is_user_error(e):
            print(f"error: {e}", file=sys.stderr)
            return 1
        message = last_resort_message(e)     # OS errors, too deep nesting, out of memory, encoding
        if message is None:
            raise
        print(f"error: {message}", file=sys.stderr)
        return 1


def run() -> None:
    """Program entry: ``sys.exit(main(program=True))``."""
    sys.exit(main(program=True))
