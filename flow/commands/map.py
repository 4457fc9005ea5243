"""``dcsflow map``: map an AIGER circuit onto TLUTs, build and prove the PPC, compare with ABC."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import click

from dcsflow.tmap.options import FULL_MODE_ANDS

from ..clitypes import int_range
from ..errors import FlowError
from ._limits import timeout_option


def _check_out_dir(out_dir: str) -> Path:
    """Make sure files can be written into the ``--out`` folder (or, when it does not exist yet, into
    the folder it would be created in), before any mapping time is spent; nothing is created (the
    outputs are written as one group that creates the folder, :meth:`dcsflow.tmap.result.MapResult.write`).
    Raises FlowError (one line naming the folder)."""
    d = Path(out_dir)
    if d.exists() and not d.is_dir():
        raise FlowError(f"--out {out_dir}: is a file, not a folder")
    probe_in = d
    while not probe_in.exists() and probe_in != probe_in.parent:
        probe_in = probe_in.parent
    try:
        fd, probe = tempfile.mkstemp(prefix=".dcsflow-probe-", dir=probe_in)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise FlowError(f"--out {out_dir}: cannot write there: {e.strerror or e}") from None
    return d


@click.command("map", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("aiger", type=click.Path(dir_okay=False))
@click.option("--params", "params_file", type=click.Path(dir_okay=False),
              help="File with parameter input names, one per line (AIGER symbol names, e.g. key[3]; also "
                   "key<3> or a whole port key). Names that are not inputs are skipped with a warning.")
@click.option("--strict", is_flag=True, help="Make a --params name that is not an input of the AIG an error.")
@click.option("-K", "K", type=int_range(2, 6), default=6, show_default=True,
              help="LUT size: maximum regular inputs per LUT/TLUT.")
@click.option("-C", "cuts", type=int_range(1, 64), default=None,
              help=f"Priority cuts kept per AIG node [default: 16, or 8 above {FULL_MODE_ANDS} AND nodes].")
@click.option("--out", "out_dir", type=click.Path(),
              help="Write netlist.json, netlist.blif, ppc.aig, ppc.json into this folder.")
@click.option("--area", is_flag=True, help="Trade depth for area (no depth constraint).")
@click.option("--param-latches", is_flag=True,
              help="Also treat latches fed only by parameters and such latches as parameters, including "
                   "load-enabled registers (q' = load ? parameter : q, e.g. key registers).")
@click.option("--abc-opt/--no-abc-opt", default=None,
              help="Also map ABC-optimized variants of the AIG (dc2, &syn2) and, with parameters, its "
                   "Shannon-expanded variant, and keep the best cover "
                   f"[default: on up to {FULL_MODE_ANDS} AND nodes]. `-C 8 --no-abc-opt` is the "
                   "previous default mode.")
@click.option("--wide/--no-wide", default=None,
              help="Map 7- and 8-input functions as 2 or 4 LUT6 plus MUXF7/MUXF8 where that gives fewer LUTs "
                   "or a smaller LUT depth and neither more [default: on at K=6, except for AIGs with parameters above "
                   "100,000 AND nodes, whose proof does not scale with them].")
@click.option("--no-verify", is_flag=True, help="Skip the ABC equivalence proof (not recommended).")
@click.option("--proof", "proof_method", type=click.Choice(["auto", "cutpoint", "global"]), default="auto",
              show_default=True,
              help="Proof method: cut points at the LUTs (per-entry cec; scales to arithmetic), one global "
                   "cec of the composed netlist, or cut points with the global cec as fallback.")
@click.option("--no-baseline", is_flag=True, help="Skip the ABC baseline mapping.")
@click.option("--json", "as_json", is_flag=True, help="End with one JSON object line of the figures.")
@timeout_option
def COMMAND(aiger, params_file, strict, K, cuts, out_dir, area, param_latches, abc_opt, wide, no_verify,
            proof_method, no_baseline, as_json):
    """Map the AIGER circuit AIGER onto LUTs with at most K regular inputs.

    Inputs named in --params are parameter inputs: logic depending only on them moves into the
    partial parameterized configuration (PPC), and LUTs whose truth tables depend on them become
    TLUTs. The result is proved equivalent to the input for all parameter values (ABC cec, with
    the LUTs as cut points) and
    compared with ABC's own LUT mapping (parameters as ordinary inputs).
    """
    from rich.console import Console

    from dcsflow.aig import read_aiger
    from dcsflow.tmap.options import ABC_AIG_SCRIPTS, MapOptions
    from dcsflow.tmap.params import read_param_file, resolve_params

    err = Console(stderr=True)
    aig = read_aiger(aiger)
    sel = resolve_params(aig, read_param_file(params_file), strict) if params_file else None
    if out_dir:
        _check_out_dir(out_dir)
    params = sel.used if sel else []
    if sel and sel.missing:
        err.print(f"warning: {sel.warning()}", markup=False, highlight=False, soft_wrap=True)
    scripts = None if abc_opt is None else (ABC_AIG_SCRIPTS if abc_opt else ())  # None: default mode
    opts = MapOptions(K=K, cuts_per_node=cuts, area=area, verify=not no_verify, param_latches=param_latches,
                      aig_scripts=scripts, proof_method=proof_method, wide=wide)
    res, base = _map(err, aig, params, opts, out_dir, not no_baseline, f"map {Path(aiger).name}")
    for note in res.notes:
        err.print(f"note: {note}")
    _print_figures(res.stats, base, K, aiger)
    if out_dir:
        click.echo(f"wrote {out_dir}/netlist.json, netlist.blif, ppc.aig, ppc.json")
    if as_json:
        s = res.stats
        click.echo(json.dumps({"luts": s.luts, "tluts": s.tluts, "muxf7": s.muxf7, "muxf8": s.muxf8,
                               "depth": s.depth, "ppc_ands": s.ppc_ands,
                               "verified": s.verified, "baseline_luts": base.luts if base else None,
                               "baseline_depth": base.depth if base else None, "seconds": round(s.seconds, 4),
                               "baseline_seconds": round(base.seconds, 4) if base else None,
                               "params_used": list(params), "params_missing": sel.missing if sel else []}))
    return 0


def _map(err, aig, params: list, opts, out_dir: str | None, with_baseline: bool, title: str):
    """``(result, baseline)``: TMAP's mapping of ``aig`` (:func:`dcsflow.tmap.mapper.map_tluts`), written
    to ``out_dir`` if given before the ABC baseline runs (a failing ABC does not lose it), and ABC's
    own LUT mapping (None without ``with_baseline``); progress on the console ``err``.

    Raises:
        FlowError: ``out_dir`` cannot be written. ToolError: the ABC baseline failed (the message
            says where TMAP's result is).
    """
    from dcsflow.tmap.abc import BASELINE_AREA_SCRIPT, baseline
    from dcsflow.tmap.errors import ToolError
    from dcsflow.tmap.mapper import map_tluts

    from ..termout import stage

    with err.status("mapping") as st:
        with stage(err, title, "TMAP"):
            res = map_tluts(aig, params, opts, progress=lambda s: st.update(s))
        if out_dir:
            st.update("writing outputs")
            with stage(err, title, "outputs"):
                try:
                    res.write(out_dir)
                except OSError as e:
                    raise FlowError(f"--out {out_dir}: cannot write {e.filename or out_dir}: "
                                    f"{e.strerror or e} (no output written)") from None
        base = None
        if with_baseline:
            st.update("ABC baseline")
            with stage(err, title, "ABC baseline"):
                try:
                    base = baseline(aig, opts.K, BASELINE_AREA_SCRIPT)
                except ToolError as e:
                    kept = f"; TMAP's result is in {out_dir}" if out_dir else ""
                    raise ToolError(f"ABC baseline: {e}{kept} (--no-baseline skips it)") from None
    return res, base


def _print_figures(s, base, K: int, aiger: str) -> None:
    """The table of TMAP's figures ``s`` (:class:`dcsflow.tmap.result.MapStats`) beside the ABC
    baseline's ``base`` (None: not run) on stdout, then the proof and the baseline's script."""
    from rich.table import Table

    from ..termout import table_console

    proof = {True: "proved", False: "FAILED", None: "not run"}[s.verified]
    tab = Table(title=f"TMAP K={K}: {aiger}")     # a long path wraps in the title
    tab.add_column("figure")
    tab.add_column("TMAP", justify="right")
    tab.add_column("ABC baseline", justify="right")
    tab.add_row("AIG AND nodes", str(s.aig_ands), str(s.aig_ands))
    tab.add_row("parameter inputs", str(s.params), "0 (as inputs)")
    tab.add_row("LUTs (incl. TLUTs)", str(s.luts), str(base.luts) if base else "-")
    tab.add_row("TLUTs", str(s.tluts), "-")
    tab.add_row("MUXF7 / MUXF8", f"{s.muxf7} / {s.muxf8}", "-")
    tab.add_row("LUT depth", str(s.depth), str(base.depth) if base else "-")
    tab.add_row("PPC AND nodes / outputs", f"{s.ppc_ands} / {s.ppc_outputs}", "-")
    tab.add_row("equivalence proof", proof, "-")
    tab.add_row("seconds", f"{s.seconds:.2f}", f"{base.seconds:.2f}" if base else "-")
    table_console(sys.stdout).print(tab)
    if s.proof:
        click.echo(f"proof: {s.proof}")
    if base:
        click.echo(f"baseline script: {base.script}")
