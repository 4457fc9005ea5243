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
@click.option("--pinned", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Build in the CI form: each design FILE (a build-figures file, e.g. "
                   "tests/data/build_figures.json) has an entry for gets the TLUT implementation and only "
                   "the conventional candidate FILE names, within the LUT depths FILE records: the same "
                   "figures as a full build for a fraction of the work, but the table shows that one "
                   "candidate, not the strongest of all. The test suite's form.")
@timeout_option
def COMMAND(out_root, rtl_sim, also, jobs, pinned):
    """Main job: build every installed design with a demo entry (TLUT and conventional), check each
    specialized implementation with the design's own check, print the comparisons and a summary.

    Exit status 0 only if every check passed.
    """
    from ..demo import main_job
    from ..jobs import check_jobs

    figures = None
    if pinned is not None:
        from ..ciform import read_figures

        figures = read_figures(pinned)
    if main_job(out_root=out_root, progress=True, also=also, rtl_sim=rtl_sim, jobs=check_jobs(jobs), pinned=figures):
        raise click.exceptions.Exit(1)
