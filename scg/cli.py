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

SIGTERM: while :func:`main` runs in the main thread of a process that has no SIGTERM handler of its
own, SIGTERM raises :class:`Terminated` (a ``BaseException``), so every ``finally`` and cleanup block
runs — temporary files of the atomic writer and the FPGA manager's firmware file (key material) are
removed — and the command exits with status 143 after one line ``terminated`` on stderr.
"""

from __future__ import annotations

import signal
import sys
import threading

from .commands import last_resort_message, lenient_output, parse_args, run_command

PROG = "python -m dcsflow.scg"


class Terminated(BaseException):
    """Raised by the SIGTERM handler :func:`main` installs: unwinds the command so that its cleanup
    runs (a ``BaseException``, so ``except Exception`` blocks do not swallow it)."""


def _is_user_error(exc: BaseException) -> bool:
    return bool(getattr(type(exc), "user_error", False))


def _on_sigterm(signum, frame):
    raise Terminated()


def _install_sigterm():
    """Install the SIGTERM handler if this is the main thread and SIGTERM has its default action;
    returns the previous handler to restore, or None when nothing was installed."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return None          # the embedding program (e.g. the flow's CLI) handles SIGTERM itself
        return signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):
        return None


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Run the runtime's command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status
    (0 done, 1 user error printed as one line ``error: ...`` on stderr, 2 usage error, 130
    interrupted, 143 terminated by SIGTERM after the cleanup ran). ``prog`` is the command name shown
    in usage and help."""
    previous = _install_sigterm()
    try:
        lenient_output()
        return _main(argv, prog)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv, prog) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else list(argv), prog)
        return run_command(args)
    except SystemExit as e:       # argparse: --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except Terminated:
        print("terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # noqa: BLE001 - user errors become one line; others re-raise
        if _is_user_error(e):
            print(f"error: {e}", file=sys.stderr)
            return 1
        message = last_resort_message(e)     # OS errors, too deep nesting, out of memory, encoding
        if message is None:
            raise
        print(f"error: {message}", file=sys.stderr)
        return 1


def run() -> None:
    """``python -m dcsflow.scg``: ``sys.exit(main())``."""
    sys.exit(main())
