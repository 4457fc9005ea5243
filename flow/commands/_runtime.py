"""The runtime's commands inside ``dcsflow``: ``rekey``, ``bit``, ``import``, ``codegen``.

Each parses its argument list once with the runtime's parser (:func:`dcsflow.scg.commands.parse_args`,
where every option is defined once, so ``dcsflow NAME --help`` and a usage error read as those of
``python -m dcsflow.scg NAME``) and runs the runtime's command in this process
(:func:`dcsflow.scg.commands.run_command`). Errors and signals are then the flow's command line's
(:mod:`dcsflow.flow.cli`): one line ``error: ...`` and status 1, 130 on Ctrl-C, 143 on SIGTERM.
"""

from __future__ import annotations

import argparse
from typing import Callable

import click

from ..errors import FlowError


class RuntimeOSError(FlowError):
    """An OS error on a named file or device that a runtime command did not turn into an error of
    its own: one line, worded as the runtime's command line words it
    (:func:`dcsflow.scg.commands.os_error_message`)."""


def parse_runtime_args(name: str, args) -> argparse.Namespace:
    """``args`` of ``dcsflow NAME`` parsed by the runtime's parser (usage lines name ``dcsflow NAME``).

    Raises:
        click.exceptions.Exit: ``--help`` (status 0, help printed) or a usage error (status 2,
            usage and one error line printed on stderr by argparse).
    """
    from dcsflow.scg.commands import parse_args

    try:
        return parse_args([name, *args], prog="dcsflow")
    except SystemExit as e:
        raise click.exceptions.Exit(e.code if isinstance(e.code, int) else (0 if e.code is None else 2)) from None


def runtime_command(name: str, short_help: str, run: Callable[[argparse.Namespace], int] | None = None
                    ) -> click.Command:
    """A click command ``name`` that hands its arguments unparsed to :func:`parse_runtime_args`, then
    runs ``run(namespace)`` (default: the runtime's command, :func:`dcsflow.scg.commands.run_command`)
    and exits with its status. An OS error no command turned into its own error becomes a
    :class:`RuntimeOSError`."""

    @click.command(name=name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
                   add_help_option=False, help=short_help, short_help=short_help)
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args):
        from dcsflow.scg.commands import lenient_output, os_error_message, run_command

        lenient_output()
        a = parse_runtime_args(name, args)
        try:
            status = (run or run_command)(a)
        except OSError as e:
            if isinstance(e, BrokenPipeError) or getattr(type(e), "user_error", False):
                raise
            raise RuntimeOSError(os_error_message(e)) from None
        if status:
            raise click.exceptions.Exit(status)

    return command
