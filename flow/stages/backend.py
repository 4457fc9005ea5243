"""Stage ``backend``: both implementations through the chosen back end (:mod:`dcsflow.flow.backend`):
pack, place, template configuration, frame map, the back end's own export, report page."""

from __future__ import annotations

import time

from ..backend.stage import run_backend
from . import BackendResult, Context, FrontendResult, MapResult


def run(ctx: Context, front: FrontendResult, mapped: MapResult) -> BackendResult:
    """Run the stage. Raises BackendError, PackError, PlaceError (one line each)."""
    o = ctx.options
    t0 = time.perf_counter()
    res = run_backend(ctx.out, top=front.top, design_hash=ctx.design_hash, ppc_path=ctx.out / mapped.ppc_file,
                      params=list(front.params), device_name=o.device, seed=o.seed, backend=o.backend,
                      board=o.board, tlut_pairs=o.tlut_pairs, board_ports=ctx.design.board_ports,
                      baselines=[(b["name"], b["netlist"], b.get("depth")) for b in mapped.baselines
                                 if b.get("netlist")],
                      jobs=ctx.jobs, step=ctx.step, lut_size=o.lut_size, tlut=o.tlut or "frames",
                      chain_luts=o.chain_luts, handshake=ctx.design.handshake, transport=o.transport or "hwicap",
                      packed=ctx.started.pop("packs", None))
    return BackendResult(summary=res.summary, files=res.files, seconds=time.perf_counter() - t0)
