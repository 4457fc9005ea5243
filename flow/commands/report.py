"""``dcsflow report``: the build's page (``BUILD/report.html``), drawn again from its files."""

from __future__ import annotations

import webbrowser

import click

from ..reportpage import render_page


def open_page(uri: str) -> bool:
    """Open ``uri`` in the user's web browser (:func:`webbrowser.open`); False when no browser could
    be started. Tests replace this module attribute or ``webbrowser.open``."""
    return webbrowser.open(uri)


@click.command("report")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--open", "open_", is_flag=True, help="Open the page in the web browser afterwards.")
def COMMAND(build, open_):
    """Draw BUILD's page again: report.html (savings against every conventional baseline, their
    breakdown, resources, TLUT placement map, frames and ICAP words per rekey, rekey time) with its
    figures in BUILD/report/, and print the page's path. A build of an older report version is
    refused, naming the command that rebuilds it."""
    page = render_page(build)[-1]
    click.echo(str(page))
    if open_ and not open_page(page.resolve().as_uri()):
        click.echo(f"note: no web browser could be started; open {page} yourself", err=True)
