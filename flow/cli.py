"""Command-line interface ``dcsflow`` — a thin layer over the library.

Subcommands live one per module in :mod:`dcsflow.flow.commands`; each module defines ``COMMAND`` (a
click command or group) and is found automatically, so adding a subcommand touches no other file.
Installed designs may add commands of their own (``Design.commands``, e.g. a golden model's CLI).
User errors (any exception whose class has ``user_error = True``) print one line ``error: ...`` on
stderr and exit with status 1; never a traceback. So do, as a last resort, an OS error on a file or
program no command turned into its own message (it names the file or program and the reason),
input nested too deeply to read, running out of memory and text that cannot be encoded
(:func:`dcsflow.scg.commands.last_resort_message`); names that are not UTF-8 are printed escaped. Ctrl-C exits with status 130 (``interrupted``),
SIGTERM with 143 (``terminated``), at any moment from the first instruction of the entry point
(:mod:`dcsflow.interrupts`), as the runtime's command line does; either way every external program
still running (also in parallel branches of a build) is ended first
(:func:`dcsflow.tools.terminate_children`).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from dcsflow import __version__, interrupts
from dcsflow.tools import terminate_children
from . import commands as _commands_pkg


def _command_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(_commands_pkg.__path__) if not m.name.startswith("_"))


def _design_commands() -> dict:
    """Commands the installed designs bring (:attr:`dcsflow.flow.design.Design.commands`) by name."""
    from .registry import installed

    out: dict = {}
    for d in installed().values():
        for cmd in d.commands:
            out.setdefault(cmd.name, cmd)
    return out


class _LazyGroup(click.Group):
    """A click group whose subcommands are the modules of :mod:`dcsflow.flow.commands` (imported on
    use) and the commands the installed designs bring."""

    def list_commands(self, ctx):
        own = [m.replace("_", "-") for m in _command_modules()]
        return own + sorted(n for n in _design_commands() if n not in own)

    def get_command(self, ctx, name):
        mod_name = name.replace("-", "_")
        if mod_name not in _command_modules():
            return _design_commands().get(name)
        mod = importlib.import_module(f"dcsflow.flow.commands.{mod_name}")
        return mod.COMMAND


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dcsflow")
def cli():
    """dcsflow — parameterized configurations (TLUTs, PPC, SCG) for Xilinx 7-series FPGAs.

    Maps a design whose slowly changing inputs (e.g. a cipher key) are parameter inputs onto
    tunable LUTs, emits a template configuration and a partial parameterized configuration (PPC),
    and specializes configuration frames when the parameters change.
    """


def _is_user_error(exc: BaseException) -> bool:
    return bool(getattr(type(exc), "user_error", False))


Terminated = interrupts.Terminated      # the SIGTERM handler's exception (dcsflow.interrupts)


def main(argv: list[str] | None = None, program: bool = False) -> int:
    """Run the ``dcsflow`` command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status.
    SIGINT and SIGTERM end it at any moment with one line and 130 / 143, after every external program
    still running was ended (:func:`dcsflow.interrupts.run_main`; ``program``: the caller is the
    program's entry point, the handlers stay installed), so that temporary folders (which may hold
    key material) are removed on the way out."""
    return interrupts.run_main(lambda: _main(argv), on_interrupt=terminate_children, program=program)


def _main(argv: list[str] | None) -> int:
    from dcsflow.scg.commands import lenient_output

    lenient_output()            # names that are not UTF-8 are printed escaped, not a traceback
    try:
        rv = cli.main(args=argv, prog_name="dcsflow", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.UsageError as e:          # one line, like every other bad input
        where = e.ctx.command_path if e.ctx is not None else "dcsflow"
        click.echo(f"error: {e.format_message()} (see {where} --help)", err=True)
        return e.exit_code
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.exceptions.Abort:         # click turns Ctrl-C into Abort
        if interrupts.received() is not None:
            raise
        terminate_children()
        click.echo("interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # noqa: BLE001 - user errors become one line; others re-raise
        if interrupts.received() is not None:
            raise                          # ended by a signal: run_main says so in one line
        if _is_user_error(e):
            click.echo(f"error: {e}", err=True)
            return 1
        from dcsflow.scg.commands import last_resort_message

        message = last_resort_message(e)     # OS errors, too deep nesting, out of memory, encoding
        if message is None:
            raise
        click.echo(f"error: {message}", err=True)
        return 1


def run() -> None:
    """Program entry: ``sys.exit(main(program=True))``."""
    sys.exit(main(program=True))


if __name__ == "__main__":
    run()
