"""``dcsflow rekey BUILD --param NAME=HEX --to TARGET``: host SCG (thin layer over :mod:`scg.rekey`)."""

from __future__ import annotations

import json

import click


@click.command(name="rekey")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--param", "params", multiple=True, metavar="NAME=HEX",
              help="Parameter value in hex (all parameter ports of the build, each once).")
@click.option("--to", "target", default="emulator", show_default=True, metavar="TARGET",
              help="emulator | bitfile:PATH(.bit/.bin, mode 0600; full after `dcsflow import`) | "
                   "partial:PATH(.bit/.bin) | devmem:BASE[@/dev/uioN] | fpgamgr[:NAME.bin] (Linux FPGA manager, PCAP)")
@click.option("--verify", is_flag=True, help="Read the frames back and compare (rollback on mismatch).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def COMMAND(build, params, target, verify, as_json):
    """Evaluate the PPC of BUILD for new parameter values and write each touched frame once.

    Refuses when the design hash or the device IDCODE differs from the template's; on a write or
    read-back failure the previous frames are written back (exit 1).
    """
    from dcsflow.scg.rekey import load_build, parse_params, rekey

    b = load_build(build)
    assignment = parse_params(b, params)
    res = rekey(b, assignment, target, verify=verify)
    if as_json:
        click.echo(json.dumps(res.as_dict()))
        return
    d = res.as_dict()
    click.echo(f"rekey via {d['target']}: {d['frames']} frames in {d['runs']} runs, {d['icap_words']} ICAP words, "
               f"{d['register_accesses']} register accesses, {d['seconds'] * 1e3:.1f} ms"
               + (", read-back verified" if verify else ""))
