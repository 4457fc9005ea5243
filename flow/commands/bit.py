"""``dcsflow bit``: inspect, query and compare 7-series bitstreams (.bit or raw .bin).

A thin layer over :mod:`scg.bitstream` and :mod:`scg.device`; every bad input (unreadable or
malformed file, unknown site) is a one-line ``error: ...`` with exit status 1.
"""

from __future__ import annotations

import json

import click

from dcsflow.fileio import write_text_atomic


def _load(path: str, strict: bool = True, need_frames: bool = True):
    from dcsflow.scg.bitstream import BitstreamError, parse

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BitstreamError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        bs = parse(data, strict=strict)
    except BitstreamError as e:
        raise BitstreamError(f"{path}: {e}") from None
    if need_frames and bs.frames is None:
        raise BitstreamError(f"{path}: no IDCODE and no part in the header: cannot place frames")
    return bs


@click.group(name="bit")
def COMMAND():
    """Inspect and compare 7-series bitstreams (.bit with header, or raw .bin)."""


@COMMAND.command("info")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--ecc/--no-ecc", default=True, show_default=True,
              help="Count nonzero frames whose word-50 ECC differs from the computed one.")
def info(file, as_json, ecc):
    """Part, IDCODE, frame counts, CRC status and header fields of FILE.

    A CRC mismatch is reported (crc: mismatch), not raised; structural damage is an error.
    """
    bs = _load(file, strict=False, need_frames=False)
    s = bs.summary()
    s["file"] = file
    if ecc and bs.frames is not None:
        s["nonzero_frames"] = len(bs.frames.nonzero_fars())
        s["ecc_mismatch_frames"] = len(bs.frames.ecc_mismatches())
    if as_json:
        click.echo(json.dumps(s, indent=1))
        return
    from rich.table import Table

    from ..termout import table_console

    t = Table(title=f"bitstream {file}", show_header=False)
    t.add_column("field", style="bold")
    t.add_column("value")
    for key in ("part", "idcode", "stream_words", "fdri_frames", "frames_written",
                "distinct_frames_written", "pad_frames", "device_frames", "partial",
                "nonzero_frames", "ecc_mismatch_frames", "crc", "desync"):
        if key in s:
            t.add_row(key, str(s[key]))
    for c in s["crc_checks"]:
        t.add_row(f"CRC @word {c['word']}", f"{c['expected']} {'ok' if c['ok'] else 'MISMATCH, computed ' + c['computed']}")
    for k, name in (("a", "design"), ("b", "header part"), ("c", "date"), ("d", "time")):
        if k in s["header"]:
            t.add_row(name, s["header"][k])
    t.add_row("commands", " ".join(s["commands"]))
    table_console().print(t)


@COMMAND.command("lut")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("site_bel", metavar="SITE/BEL")
def lut(file, site_bel):
    """Print the INIT of the LUT at SITE/BEL (e.g. SLICE_X54Y10/A6LUT) as 16 hex digits."""
    from dcsflow.scg.device import parse_site_bel

    site, bel = parse_site_bel(site_bel)
    bs = _load(file)
    click.echo(f"{bs.frames.get_lut(site, bel):016X}")


@COMMAND.command("diff")
@click.argument("a", type=click.Path(dir_okay=False))
@click.argument("b", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def diff(a, b, as_json):
    """Frames and LUT INITs that differ between bitstreams A and B (same part).

    If either is a partial bitstream, only the frames written by both are compared.
    """
    from dcsflow.scg.errors import BitstreamError

    ba, bb = _load(a), _load(b)
    if ba.device.name != bb.device.name:
        raise BitstreamError(f"{a} is for {ba.device.name}, {b} for {bb.device.name}: not comparable")
    partial = ba.is_partial or bb.is_partial
    fars = ba.frames.diff(bb.frames, only_written=partial)
    luts = ba.frames.lut_diff(bb.frames, only_written=partial)
    if as_json:
        click.echo(json.dumps({"compared": "frames written by both" if partial else "all frames",
                               "frames": [f"0x{f:08X}" for f in fars],
                               "luts": [{"site": s, "bel": e, "a": f"{x:016X}", "b": f"{y:016X}"}
                                        for s, e, x, y in luts]}, indent=1))
        return
    if partial:
        click.echo("partial bitstream: comparing only the frames written by both")
    if not fars:
        click.echo("identical frames")
        return
    click.echo(f"{len(fars)} frame(s) differ:")
    for f in fars:
        fa, fb = ba.frames.frame(f), bb.frames.frame(f)
        words = [i for i in range(len(fa)) if fa[i] != fb[i]]
        click.echo(f"  FAR 0x{f:08X}  words {','.join(map(str, words))}")
    click.echo(f"{len(luts)} LUT(s) differ:")
    for s, e, x, y in luts:
        click.echo(f"  {s}/{e}  {x:016X} -> {y:016X}")


@COMMAND.command("frames")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Frame file to write (docs/formats.md, 'frame file').")
@click.option("--all", "all_frames", is_flag=True, help="Dump every frame, not only written/nonzero ones.")
def frames(file, output, all_frames):
    """Dump the frames of FILE as a text frame file (Project X-Ray .frm compatible)."""
    bs = _load(file)
    fars = list(bs.device.frame_addresses) if all_frames else None
    write_text_atomic(output, bs.frames.to_frm(fars))
    click.echo(f"wrote {output}")
