"""``dcsflow designs``: the installed designs (entry-point group ``dcsflow.designs``)."""

from __future__ import annotations

import json

import click


@click.command("designs")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def COMMAND(as_json):
    """List the installed designs: name, top, whether `dcsflow demo` builds it (yes, or only with
    --also NAME), and a description (--json adds sources, parameters, sims and origin).

    A design package registers its designs under the entry-point group dcsflow.designs; a design
    of your own without a package: dcsflow build -p dcsflow.toml.
    """
    from rich.table import Table

    from ..registry import installed
    from ..termout import table_console

    designs = installed()
    if as_json:
        click.echo(json.dumps({n: {"top": d.top, "sources": [str(p) for p in d.sources], "params": list(d.params),
                                   "user_params": dict(d.transform.user_params) if d.transform else None,
                                   "named_params": {x.name: {"sets": list(x.sets), "help": x.help}
                                                    for x in d.named_params},
                                   "check": d.check is not None,
                                   "demo": None if d.demo is None else ("default" if d.demo.default else "optional"),
                                   "sims": sorted(d.sims), "origin": d.origin, "description": d.description}
                               for n, d in designs.items()}, indent=1))
        return
    tab = Table(title=f"installed designs ({len(designs)})")
    tab.add_column("design", no_wrap=True)
    tab.add_column("top", no_wrap=True)
    tab.add_column("demo", no_wrap=True)
    tab.add_column("description")
    for n, d in designs.items():
        demo = "-" if d.demo is None else ("yes" if d.demo.default else "--also")
        tab.add_row(n, d.top or "-", demo, d.description + ("" if d.check else " (no check)"))
    table_console().print(tab)
