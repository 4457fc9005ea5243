"""Stage ``frontend``: Yosys up to LUT mapping and extraction of the gate logic.

Writes ``frontend/pre.json`` (shared by both builds; ``pre_conventional.json`` when the
conventional build's front end differs), ``frontend/logic.aag`` (the gate logic as an AIGER with the
parameter inputs marked and parameter registers folded) and ``frontend/extract.json``; a VHDL design
first goes through GHDL (``frontend/ghdl/``).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from .. import frontend as fe
from ..frontcheck import check_latches
from . import Context, FrontendResult


def _vhdl_sources(ctx: Context) -> tuple[list[Path], dict]:
    """GHDL: VHDL -> ``frontend/ghdl/top.v`` (the Verilog the Yosys front end reads); the design's
    chparams become top-level generics. Returns (sources, the record's ``vhdl`` entry)."""
    from ..vhdl import ghdl_version, translate

    vt = ctx.vhdl
    top_v = translate(list(ctx.design.sources), vt, ctx.out / "frontend" / "ghdl",
                      generics=dict(ctx.design.chparams), status=ctx.step)
    return [top_v], {"ghdl": ghdl_version(), "top": vt.top, "params": vt.marked,
                     "verilog": str(top_v.relative_to(ctx.out))}


def run(ctx: Context) -> FrontendResult:
    """Run the stage (module docstring).

    Raises:
        YosysError, FrontendError, VhdlError, ParamArithError, LatchError (a latch in pre.json) (one
        line each).
    """
    fdir = ctx.out / "frontend"
    if fdir.exists():
        shutil.rmtree(fdir)
    d = ctx.design
    vhdl = None
    if ctx.vhdl is not None:
        sources, vhdl = _vhdl_sources(ctx)
    else:
        sources = list(d.sources)
    spec = fe.DesignSpec(sources=sources, top=ctx.top, chparams={} if ctx.vhdl is not None else dict(d.chparams),
                         params=list(ctx.params), mul_chunk=ctx.options.mul_chunk,
                         conventional_chparams=dict(d.conventional_chparams))
    ctx.step("yosys synth_xilinx -run :map_luts")
    pre_path, top, t_pre = fe.synthesize_pre(spec, fdir, lambda s: ctx.step(f"yosys {s}"))
    pre = json.loads(pre_path.read_text())
    check_latches(pre, top, "vhdl" if vhdl else "verilog", sources[0] if vhdl else None, d.sources)
    ctx.step("extracting gate logic")
    t0 = time.perf_counter()
    ext, _ = fe.extract_logic(pre, top, list(ctx.params), fdir)
    files = [f"frontend/{n}" for n in ("pre.json", fe.CONVENTIONAL_PRE, "logic.aag", "extract.json")
             if (fdir / n).is_file()]
    return FrontendResult(design=d.name, top=top, params=dict(ext.param_ports), folded=len(ext.folded),
                          aig_ands=ext.ands, gates=ext.gates, seconds_yosys=t_pre,
                          seconds_extract=time.perf_counter() - t0, vhdl=vhdl, files=files)
