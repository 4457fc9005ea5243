"""``dcsflow rekey``: host SCG — passes its arguments to the runtime's command line
(``python -m dcsflow.scg rekey``, :mod:`dcsflow.scg.cli`), where every option is defined once.

The one thing the flow adds: a ``--param NAME=TEXT`` whose NAME is a named parameter value of the
build's design (:class:`dcsflow.flow.design.NamedParam`, e.g. ``program=pi32`` for a processor
whose program is a parameter input) is converted to ``PORT=HEX`` values before the runtime sees
them (the runtime knows no designs)."""

from __future__ import annotations

import json
from pathlib import Path

import click

#: runtime options of ``rekey`` that take a value (their value is never the BUILD argument)
_VALUE_OPTIONS = ("--param", "--to")


def _build_arg(args: list[str]) -> str | None:
    """The BUILD argument of a ``rekey`` argument list (the first word that is neither an option
    nor an option's value), or None."""
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in _VALUE_OPTIONS:
            skip = True
        elif not a.startswith("-"):
            return a
    return None


def expand_args(args: list[str]) -> list[str]:
    """``args`` with the named parameter values of the build's design converted (module docstring);
    unchanged when there is no readable ``BUILD/build.json`` (the runtime reports that) or the design
    has no named values. Raises NamedParamError / DesignError (one-line user errors)."""
    from ..design import expand_named_params
    from ..registry import design_of

    build = _build_arg(args)
    if build is None:
        return list(args)
    try:
        manifest = json.loads((Path(build) / "build.json").read_text())
        ports = {str(k): int(v) for k, v in dict(manifest.get("params") or {}).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return list(args)
    design = design_of(manifest, build)
    if design is None or not design.named_params:
        return list(args)
    from dcsflow.scg.buildfolder import load_build
    from dcsflow.scg.errors import ScgError

    try:
        widths = load_build(build).ports     # what the runtime's parser expects
    except (ScgError, OSError, ValueError):
        widths = None                        # the runtime reports the folder; the value is still checked
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--param" and i + 1 < len(args):
            for item in expand_named_params(design, [args[i + 1]], ports, widths):
                out += ["--param", item]
            i += 2
            continue
        if a.startswith("--param="):
            out += [f"--param={x}" for x in expand_named_params(design, [a[len("--param="):]], ports, widths)]
        else:
            out.append(a)
        i += 1
    return out


@click.command(name="rekey", context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
               add_help_option=False,
               help="Host SCG: new parameter values, each touched frame written once.",
               short_help="Host SCG: new parameter values, each touched frame written once.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def COMMAND(args):
    """Run the runtime's ``rekey`` with ``args`` (named parameter values converted: :func:`expand_args`)."""
    from dcsflow.scg.cli import main

    status = main(["rekey", *expand_args(list(args))], prog="dcsflow")
    if status:
        raise click.exceptions.Exit(status)
