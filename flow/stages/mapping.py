"""Stage ``tmap``: LUT mapping of both implementations.

TLUT build: TMAP maps the front end's AIG (``tmap/``: netlist.json, ppc.aig, ppc.json); the TLUT
netlist goes back into Yosys, which finishes synth_xilinx (``tlut/netlist.json``). Then ABC re-maps
the static logic where that saves LUTs within the shallowest conventional candidate's LUT depth
(never below TMAP's own; :mod:`dcsflow.flow.static_remap`; off with ``--no-static-remap``): ``tmap/netlist.json`` is then the
netlist kept. Beside it, the
conventional candidates (:mod:`dcsflow.flow.baselines`: Yosys's own mapping in a second Yosys
process, TMAP and ABC without parameters) each finish ``pre_conventional.json`` (or ``pre.json``)
into ``baselines/<name>/netlist.json``; the back end chooses among them.
"""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from dcsflow.fileio import write_text_atomic

from .. import frontend as fe
from ..baselines import REFERENCE, check_names, finished_depth, run_candidates
from ..mapping import map_logic
from . import BuildError, Context, FrontendResult, MapResult


def _read(path: Path, stage: str) -> str:
    if not path.exists():
        raise BuildError(f"{path} missing: run the '{stage}' stage first (--from {stage})")
    return path.read_text()


def _conv_depth(out: Path, top: str, runs) -> int | None:
    """The smallest finished LUT depth among the conventional candidates made (None: none made)."""
    ds = [finished_depth(out, top, r) for r in runs if r.netlist]
    return min(ds) if ds else None


def _tlut_build(ctx: Context, pre: dict, conv_runs=lambda: []) -> tuple[object, float]:
    """TMAP, re-import, rest of synth_xilinx, static-logic area recovery bounded by the LUT depth of
    the shallowest conventional candidate (``conv_runs()``: the candidates, waited for).
    Returns (TMAP's outcome, Yosys seconds)."""
    out = ctx.out
    fdir = out / "frontend"
    ext = fe.Extraction.from_json(_read(fdir / "extract.json", "frontend"))
    top = ext.top
    # re-run the (deterministic) extraction to get the folded module
    ext2, module = fe.extract_logic(pre, top, list(ext.param_ports), None)   # as the front end found them
    if ext2.to_json() != ext.to_json():
        raise BuildError("frontend files changed since the frontend stage; run it again (--from frontend)")
    tdir = out / "tmap"
    if tdir.exists():
        shutil.rmtree(tdir)
    ctx.step(f"TMAP mapping {ext.ands} AND nodes, {len(ext.params)} parameter bits")
    mo = map_logic(fdir / "logic.aag", [n for n, _ in ext.params], tdir, area=ctx.options.area,
                   status=lambda s: ctx.step(f"TMAP: {s}"))
    ldir = out / "tlut"
    t_y = 0.0

    def finish(netlist: dict, into: Path) -> dict:
        """Re-import ``netlist`` into Yosys, finish synth_xilinx in ``into``; the finished module."""
        nonlocal t_y
        doc = fe.reimport(pre, module, ext2, netlist)
        into.mkdir(parents=True, exist_ok=True)
        (into / "mapped.json").write_text(json.dumps(doc))
        t_y += fe.continue_synthesis(into / "mapped.json", top, "", into / "post.json", into, "yosys",
                                     lambda s: ctx.step(f"TLUT: yosys {s}"))
        final = fe.finalize_tluts(json.loads((into / "post.json").read_text()), top)
        final["modules"][top]["parameter_default_values"] = pre["modules"][top].get("parameter_default_values", {})
        return final

    ctx.step("re-importing TLUT netlist into Yosys")
    final = finish(mo.netlist, ldir)
    mo.stats["static_remap"] = None
    if ctx.options.static_remap and mo.netlist.get("params"):
        from dcsflow.tmap.netlist import TlutNetlist

        from ..static_remap import recover

        work = out / "tmap" / "static_remap"
        try:
            ctx.step("TLUT: waiting for the conventional candidates (their LUT depth bounds the area recovery)")
            bound = _conv_depth(out, top, conv_runs())
            better, rec = recover(TlutNetlist.from_json_obj(mo.netlist),
                                  lambda n: finish(n.to_json_obj(), work)["modules"][top], final["modules"][top],
                                  bound=bound, status=lambda s: ctx.step(f"TLUT: {s}"))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        mo.stats["static_remap"] = rec
        if better is not None:
            mo.netlist = better.to_json_obj()
            write_text_atomic(tdir / "netlist.json", json.dumps(mo.netlist))
            final = finish(mo.netlist, ldir)
    write_text_atomic(ldir / "netlist.json", json.dumps(final))
    return mo, t_y


def run(ctx: Context, front: FrontendResult) -> MapResult:
    """Run the stage (module docstring): the TLUT build, and the conventional candidates in a
    second thread.

    Raises:
        BuildError: the front end's files are missing or changed; MapperError, YosysError,
        BaselineError.
    """
    pre = json.loads(_read(ctx.out / "frontend" / "pre.json", "frontend"))
    names = check_names(ctx.options.baselines)
    bdir = ctx.out / "baselines"
    if bdir.exists():
        shutil.rmtree(bdir)
    with ThreadPoolExecutor(1) as ex:
        conv_job = ex.submit(run_candidates, ctx.out, front.top, pre, names, ctx.step)
        try:
            mo, t_y = _tlut_build(ctx, pre, conv_job.result)
        finally:
            runs = conv_job.result()
    t_conv = next((r.seconds for r in runs if r.name == REFERENCE), 0.0)
    st = mo.stats
    return MapResult(ppc_file=str(mo.ppc_path.relative_to(ctx.out)), tmap_luts=st.get("luts"),
                     tmap_no_param_luts=st.get("no_param_luts"), notes=list(st.get("notes") or []),
                     tmap_no_param_depth=st.get("no_param_depth"),
                     tmap_no_param_param_only_luts=st.get("no_param_param_only_luts"),
                     static_remap=st.get("static_remap"),
                     baselines=[r.as_dict() for r in runs],
                     abc_cec=st.get("verified"), seconds_tmap=st.get("seconds", mo.seconds),
                     seconds_tlut_yosys=t_y, seconds_conventional_yosys=t_conv,
                     files=[str(f.relative_to(ctx.out)) for f in (mo.ppc_path, mo.ppc_path.with_name("ppc.json"),
                                                                   ctx.out / "tmap" / "netlist.json",
                                                                   ctx.out / "tlut" / "netlist.json",
                                                                   *(ctx.out / r.netlist for r in runs if r.netlist))
                            if f.is_file()])
