"""``dcsflow demo``: the main job on the bundled π16-Cipher design.

Builds ``picipher`` and ``picipher_cis`` (TLUT and conventional implementations), checks each
specialized implementation against the official no-AD/no-SMN vectors and prints the comparison
(:func:`flow.build.main_job`). ``--rtl-sim`` first simulates the RTL of both key sizes on the
official vectors (``dcsflow sim``).
"""

from __future__ import annotations

import click
from rich.console import Console

from dcsflow.designs.picipher.sim import SIMULATORS

from ._picipher import print_report, run_check


def _rtl_sim(simulator: str) -> bool:
    out, err = Console(), Console(stderr=True)
    passed = total = 0
    for design in ("picipher", "picipher128"):
        rep, path = run_check(design, None, 0, simulator, None, err)
        print_report(out, f"{design} (picipher_mp RTL) on {path.name}", rep)
        passed += rep.passed
        total += rep.total
    out.print(f"RTL simulation: passed {passed}/{total}")
    return bool(total) and passed == total


@click.command("demo")
@click.option("--out", "out_root", type=click.Path(file_okay=False), default="build", show_default=True,
              help="Folder for the build folders (OUT/picipher, OUT/picipher_cis).")
@click.option("--rtl-sim", is_flag=True, help="First simulate the RTL of both key sizes on the official vectors.")
@click.option("--simulator", type=click.Choice(SIMULATORS), default="icarus", show_default=True,
              help="Simulator for --rtl-sim.")
@click.option("--aes-pipe", is_flag=True,
              help="Also build aes128_pipe (10 unrolled rounds) and check it on the GFSbox KAT file; "
                   "adds ~20 min on 2 cores (mostly its conventional build).")
def COMMAND(out_root, rtl_sim, simulator, aes_pipe):
    """Main job: build picipher and picipher_cis, check both on the official vectors, compare;
    then aes128_iter (and with --aes-pipe aes128_pipe) on a CAVP KAT file.

    Exit status 0 only if every check passed.
    """
    from dcsflow.flow.build import main_job

    ok = _rtl_sim(simulator) if rtl_sim else True
    status = main_job(out_root=out_root, progress=True, aes_pipe=aes_pipe)
    if status or not ok:
        raise click.exceptions.Exit(1)
