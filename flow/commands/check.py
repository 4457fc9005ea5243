"""``dcsflow check``: specialized netlists of a build against its design's check."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import click

from dcsflow.tools import progress

from ..clitypes import ASCII_INT, int_range
from ..check import check_build
from ..design import MAX_KEYS, CheckOptions
from ._limits import timeout_option


@click.command("check")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--vectors", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Vector file in the design's own format (e.g. π-Cipher reference records, a CAVP .rsp "
                   "file); default: the design's own vectors.")
@click.option("--keys", type=int_range(min=1, max=MAX_KEYS), default=None,
              help=f"Random parameter values for designs checked without vectors (a dcsflow.toml's cocotb "
                   f"test), 1 to {MAX_KEYS} [3, or the project's check.keys].")
@click.option("--seed", type=ASCII_INT, default=None, help="Seed of those random values (default: fresh ones).")
@click.option("--frames", is_flag=True,
              help="Configuration-level check: specialize the template FRAMES (SCG patches), decode every "
                   "LUT INIT back from them and simulate the netlist rebuilt from INITs + placement.")
@click.option("--param-in-loader", is_flag=True,
              help="cfglut5 build: write each key's raw parameter words into the generated parameter generator "
                   "(which computes the chain words in logic) instead of streaming the chain words.")
@click.option("--quiet", is_flag=True, help="No progress display.")
@timeout_option
def COMMAND(build, vectors, keys, seed, frames, param_in_loader, quiet):
    """Specialize BUILD for the parameter values of its design's check (e.g. the key of every
    vector, or random values for a cocotb test), simulate each specialized netlist, compare with
    the expected outputs and print 'passed N/M'. Exit status 0 only when all pass and at least one
    case ran (a cocotb test that is skipped fails its parameter value). A cfglut5 build (dcsflow build
    --tlut cfglut5) is simulated with its CFGLUT5 loader: two keys per simulation, the second loaded
    between two data items."""
    opts = CheckOptions(vectors=vectors, keys=keys, seed=seed)
    with progress(None) if quiet else nullcontext():      # --quiet: no progress lines of long tool runs either
        if frames:
            from ..backend.verify import check_frames

            res = check_frames(build, opts, progress=not quiet)
        else:
            res = check_build(build, opts, progress=not quiet, param_in_loader=param_in_loader)
    if res.total == 0:
        click.echo(f"error: {build}: the check ran no case (no parameter value was tested)", err=True)
        raise SystemExit(1)
    for label, ok, why in res.cases if res.each_line else []:
        click.echo(f"{label}: passed" if ok else f"{label}: FAILED ({why})")
    if not res.each_line:
        for num, why in res.failures:
            click.echo(f"vector {num}: {why}")
    click.echo(f"passed {res.passed}/{res.total}")
    raise SystemExit(0 if res.passed == res.total else 1)
