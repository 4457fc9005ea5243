"""``dcsflow report``: the build's page (``BUILD/report.html``), drawn again from its files."""

from __future__ import annotations

import webbrowser

import click

from dcsflow.scg.folderlock import locked_folder

from ..reportpage import load_inputs, render_inputs


def open_page(uri: str) -> bool:
    """Open ``uri`` in the user's web browser (:func:`webbrowser.open`); False when no browser could
    be started. Tests replace this module attribute or ``webbrowser.open``."""
    return webbrowser.open(uri)


@click.command("report")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--open", "open_", is_flag=True, help="Open the page in the web browser afterwards.")
@click.option("--force", is_flag=True,
              help="Draw a build folder that fails the checks every reader makes (files changed since the build, "
                   "a template or frame map of another build, a broken Vivado import link), the page marked "
                   "UNVERIFIED.")
def COMMAND(build, open_, force):
    """Draw BUILD's page again: report.html (savings against every conventional baseline, their
    breakdown, resources, TLUT placement map, frames and ICAP words per rekey, rekey time) with its
    figures in BUILD/report/, and print the page's path. The folder is checked like every other
    reader checks it (a damaged one is refused, or with --force drawn and marked unverified); a build
    of an older report version is refused, naming the command that rebuilds it."""
    inputs = load_inputs(build, force=force)
    if inputs.unverified:
        click.echo(f"note: {build} fails dcsflow's checks ({inputs.unverified}); the page is marked UNVERIFIED",
                   err=True)
    with locked_folder(build, "report"):      # not while a build or an import writes the folder
        page = render_inputs(inputs)[-1]
    click.echo(str(page))
    if open_ and not open_page(page.resolve().as_uri()):
        click.echo(f"note: no web browser could be started; open {page} yourself", err=True)
