"""``dcsflow demo``: the main job (:func:`dcsflow.flow.demo.main_job`)."""

from __future__ import annotations

import click

from ._limits import timeout_option


@click.command("demo")
@click.option("--out", "out_root", type=click.Path(file_okay=False), default="build", show_default=True,
              help="Folder for the build folders (OUT/<design>).")
@click.option("--rtl-sim", is_flag=True, help="First simulate the designs' RTL on their vectors.")
@click.option("--also", multiple=True, metavar="NAME",
              help="Also build and check NAME, a design whose demo entry is optional (`dcsflow designs` marks "
                   "them). Repeatable.")
@click.option("-j", "--jobs", default=None, metavar="N",
              help="Run each build's independent steps on up to N cores [$DCSFLOW_JOBS, else the machine's "
                   "cores]; -j 1 runs them in turn. The results are the same.")
@timeout_option
def COMMAND(out_root, rtl_sim, also, jobs):
    """Main job: build every installed design with a demo entry (TLUT and conventional), check each
    specialized implementation with the design's own check, print the comparisons and a summary.

    Exit status 0 only if every check passed.
    """
    from ..demo import main_job
    from ..jobs import check_jobs

    if main_job(out_root=out_root, progress=True, also=also, rtl_sim=rtl_sim, jobs=check_jobs(jobs)):
        raise click.exceptions.Exit(1)
