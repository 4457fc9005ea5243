"""Stage ``frontend``: Yosys up to LUT mapping and extraction of the gate logic.

Writes ``frontend/pre.json`` (shared by both builds; ``pre_conventional.json`` when the
conventional build's front end differs), ``frontend/logic.aag`` (the gate logic as an AIGER with the
parameter inputs marked and parameter registers folded) and ``frontend/extract.json``; a VHDL design
first goes through GHDL (``frontend/ghdl/``). A separate conventional front end runs as a job while
the TLUT build's netlist is extracted; the front-end check (a job of the ``verify`` stage) starts
before the stage waits for it.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path

from dcsflow import limits
from dcsflow.fileio import JSON_LIMIT, NETLIST_LIMIT, load_json_file

from .. import cache
from .. import frontend as fe
from .. import dspref
from ..frontcheck import check_latches, submit_for_build
from . import STAGES, Context, FrontendResult, no_params_error


def _vhdl_sources(ctx: Context) -> tuple[list[Path], dict]:
    """GHDL: VHDL -> ``frontend/ghdl/top.v`` (the Verilog the Yosys front end reads); a VHDL top's
    chparams become top-level generics. Returns (the Verilog sources for Yosys: GHDL's and, in a mixed
    design, the Verilog files; the record's ``vhdl`` entry)."""
    from ..vhdl import ghdl_options, ghdl_version, translate

    vt = ctx.vhdl
    d = ctx.design
    mixed = d.language == "mixed"
    top_v = translate(list(d.vhdl_sources), vt, ctx.out / "frontend" / "ghdl",
                      generics=dict(d.chparams) if vt.top is not None else None, status=ctx.step,
                      options=tuple(ctx.options.ghdl_options), mixed=mixed)
    return [top_v, *d.verilog_sources], {
        "ghdl": ghdl_version(), "top": vt.top, "params": vt.marked, "ghdl_options": ghdl_options(ctx.options.ghdl_options),
        "verilog": str(top_v.relative_to(ctx.out))}


def _marks(ctx: Context, module: dict, top: str, verilog: list[Path]) -> dict[str, str]:
    """How each parameter input was marked (name -> one phrase with file:line), before widths are known."""
    vt = ctx.vhdl
    if vt is not None and vt.top is not None:
        kinds = {"block": "--PARAM block", "comment": "--PARAM comment", "attribute": "attribute PARAM",
                 "--param": "--param"}
        return {n: f"{kinds.get(k, k)}, {vt.where.get(n, '')}".rstrip(", ") for n, k in vt.marked.items()}
    from ..marks import verilog_marks

    marks = verilog_marks(module, top, verilog)
    for n in ctx.design.params:
        marks.setdefault(n, "design description")
    for n in ctx.options.params:
        marks.setdefault(n, "--param")
    return marks


def run(ctx: Context) -> FrontendResult:
    """Run the stage (module docstring).

    Raises:
        YosysError, FrontendError, VhdlError, ParamArithError, LatchError (a latch in pre.json) (one
        line each); BuildError when no parameter input is found (unless ``allow_no_params``).
    """
    fdir = ctx.out / "frontend"
    if fdir.exists():
        shutil.rmtree(fdir)
    key = _cache_key(ctx)
    rec = cache.lookup(key, JOB, ctx.out)
    if rec is cache.MISS:
        rec = _run(ctx, fdir)
        cache.store(key, JOB, ctx.out, ["frontend"], replace(rec, timing={}))
    elif STAGES.index(ctx.options.stop) >= STAGES.index("verify"):
        ctx.started["frontcheck"] = submit_for_build(ctx, rec)
    return rec


#: the job cache's name of the whole stage (:mod:`dcsflow.flow.cache`)
JOB = "frontend stage"


def _cache_key(ctx: Context) -> str | None:
    """The job cache's key of the stage: the design's sources (and the files beside them), its
    description's fields the front end reads, and the options that change the front end."""
    d, o = ctx.design, ctx.options
    what = {"design": d.name, "sources": [str(p) for p in d.sources], "top": ctx.top, "params": list(ctx.params),
            "design_params": list(d.params), "chparams": dict(d.chparams),
            "conventional_chparams": dict(d.conventional_chparams), "mul_chunk": o.mul_chunk, "adders": o.adders,
            "lut_size": o.lut_size, "allow_no_params": o.allow_no_params, "ghdl_options": list(o.ghdl_options),
            "language": d.language}
    return cache.key_of(JOB, what, cache.hdl_inputs(d.sources), ctx.out)


def _run(ctx: Context, fdir: Path) -> FrontendResult:
    """The stage's work when the cache has no result for it (:func:`run`)."""
    d = ctx.design
    vhdl = None
    defaults = fe.frontend_limits(d.sources)   # Yosys and GHDL: a default time limit scaled from the HDL
    if ctx.vhdl is not None:
        with limits.tool_defaults(defaults):
            sources, vhdl = _vhdl_sources(ctx)  # GHDL's errors first
    else:
        sources = list(d.sources)
    vhdl_top = ctx.vhdl is not None and ctx.vhdl.top is not None
    if vhdl_top and not ctx.params and not ctx.options.allow_no_params:
        raise no_params_error(d.name, ctx.top)  # before Yosys runs
    spec = fe.DesignSpec(sources=sources, top=ctx.top, chparams={} if vhdl_top else dict(d.chparams),
                         params=list(ctx.params), mul_chunk=ctx.options.mul_chunk,
                         adders=ctx.options.adders, lut_size=ctx.options.lut_size,
                         conventional_chparams=dict(d.conventional_chparams))
    ctx.step("yosys synth_xilinx -run :map_luts")
    # the conventional front end (if the design has one) runs on as a job while the TLUT build's
    # netlist is checked and extracted, and the front-end check starts (it needs only pre.json)
    pending: list = []
    with limits.tool_defaults(defaults):
        pre_path, top, t_pre = fe.synthesize_pre(spec, fdir, lambda s: ctx.step(f"yosys {s}"),
                                                 submit=ctx.jobs.submit if ctx.jobs is not None else None,
                                                 pending=pending)
    pre = load_json_file(pre_path, NETLIST_LIMIT)
    check_latches(pre, top, "vhdl" if vhdl else "verilog", sources[0] if vhdl else None,
                  list(d.vhdl_sources))
    module = pre["modules"].get(top, {})
    marks = _marks(ctx, module, top, list(d.verilog_sources))
    ctx.step("extracting gate logic")
    t0 = time.perf_counter()
    ext, folded_module = fe.extract_logic(pre, top, list(dict.fromkeys([*ctx.params, *marks])), fdir)
    if not ext.param_ports and not ctx.options.allow_no_params:
        raise no_params_error(d.name, top)
    fed = fe.param_fed_cells(folded_module, ext)
    fe.check_hard_cells(folded_module, fed)
    adders = load_json_file(fdir / fe.ADDERS_FILE, JSON_LIMIT) if (fdir / fe.ADDERS_FILE).is_file() else {}
    rec = FrontendResult(design=d.name, top=top, params=dict(ext.param_ports), folded=len(ext.folded),
                         aig_ands=ext.ands, gates=ext.gates, seconds_yosys=t_pre,
                         seconds_extract=time.perf_counter() - t0, vhdl=vhdl, files=[],
                         marks={n: marks.get(n, "(* PARAM *)") for n in ext.param_ports},
                         parameter_defaults=module.get("parameter_default_values", {}),
                         param_fed={t: len(ns) for t, ns in fed.items()},
                         adders={k: adders[k] for k in ("mode", "K", "fed_by_parameters", "carry") if k in adders}
                         | {"logic": len(adders.get("logic", []))} if adders else {})
    if STAGES.index(ctx.options.stop) >= STAGES.index("verify"):
        ctx.started["frontcheck"] = submit_for_build(ctx, rec)     # beside the conventional front end
    ref = None
    if dspref.needed(fdir, ctx.options.mul_chunk):      # the baseline's alternative: a DSP48E1
        ctx.step("yosys synth_xilinx with DSP48E1 (the baseline's reference)")
        if ctx.jobs is not None:
            ref = ctx.jobs.submit("dsp reference", dspref.run, fdir, top)
        else:
            rec = replace(rec, dsp_reference=dspref.run(fdir, top))
    if pending:
        ctx.step("waiting for the conventional build's front end")
        rec = replace(rec, seconds_yosys=t_pre + sum(wait() for wait in pending))
    if ref is not None:
        rec = replace(rec, dsp_reference=ref.result())
    # the files the later stages read, the conventional front end's among them once it is written
    names = ("pre.json", fe.CONVENTIONAL_PRE, "logic.aag", "extract.json")
    return replace(rec, files=[f"frontend/{n}" for n in names if (fdir / n).is_file()])
