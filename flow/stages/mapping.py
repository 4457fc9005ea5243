"""Stage ``tmap``: LUT mapping of both implementations.

TLUT build: TMAP maps the front end's AIG (``tmap/``: netlist.json, ppc.aig, ppc.json); the TLUT
netlist goes back into Yosys, which finishes synth_xilinx (``tlut/netlist.json``). Then ABC re-maps
the static logic where that saves LUTs within the shallowest conventional candidate's LUT depth
(never below TMAP's own; :mod:`dcsflow.flow.static_remap`; off with ``--no-static-remap``):
``tmap/netlist.json`` is then the netlist kept. Beside it, the conventional candidates
(:mod:`dcsflow.flow.baselines`: Yosys's own mapping, TMAP and ABC without parameters) each finish
``pre_conventional.json`` (or ``pre.json``) into ``baselines/<name>/netlist.json``; the back end
chooses among them. Everything maps to LUTs of the build's LUT size K (``BuildOptions.lut_size``):
TMAP, the candidates and the rest of synth_xilinx (:mod:`dcsflow.flow.baselines`).

Jobs (:class:`dcsflow.flow.jobs.Jobs`, parallel with ``-j N``): TMAP with parameters; TMAP's
reference mapping without them (a figure of the report); every conventional candidate; the TLUT
netlist's finishing run; one job per static re-mapping candidate (after the finishing run). Only the
choice of the re-mapping waits for the conventional candidates (their depth is its bound). When the
run goes on to the back end, each candidate is also packed as soon as it is made (a job of the
``backend`` stage started here, :func:`_pack_early`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from dcsflow.fileio import NETLIST_LIMIT, load_json_file, read_input_text, write_files_atomic, write_text_atomic

from .. import frontend as fe
from ..cache import cached
from ..baselines import REFERENCE, candidate_runs, check_lut_width, check_names, submit_candidates
from ..jobs import Jobs
from ..cfglut import CFGLUT5_INPUTS
from ..mapping import map_logic, reference_figures, uses_tmap
from ..records import top_module
from . import BuildError, Context, FrontendResult, MapResult

#: work folder of the static re-mapping candidates (removed when the stage ends)
REMAP_DIR = "tmap/static_remap"


def _read(path: Path, stage: str) -> str:
    if not path.exists():
        raise BuildError(f"{path} missing: run the '{stage}' stage first (--from {stage})")
    return read_input_text(path, NETLIST_LIMIT)


@cached(inputs=lambda out, *a, **k: ["frontend/logic.aag"], outputs=lambda out, *a, **k: ["tmap"])
def map_tluts_job(out: Path, params: list[str], area: bool, K: int = 6, tlut_k: int | None = None) -> dict:
    """Job: TMAP on ``frontend/logic.aag`` into ``tmap/`` with ``K``-input LUTs (TLUTs of at most
    ``tlut_k`` inputs when given). Returns the outcome's stats, seconds and PPC path (the netlist is
    in ``tmap/netlist.json``)."""
    tdir = Path(out) / "tmap"
    if tdir.exists():
        shutil.rmtree(tdir)
    mo = map_logic(Path(out) / "frontend" / "logic.aag", params, tdir, area=area, K=K, tlut_k=tlut_k)
    return {"stats": mo.stats, "seconds": mo.seconds, "ppc": str(mo.ppc_path.relative_to(out))}


def _prepare_tlut_module(out: Path, top: str) -> tuple[fe.Extraction, dict]:
    """The extraction record and the folded module the TLUT netlist is re-imported into (the front
    end's extraction made again: deterministic), checked against ``frontend/extract.json``.
    Raises BuildError when the front end's files changed since it ran."""
    fdir = Path(out) / "frontend"
    ext = fe.Extraction.from_json(_read(fdir / "extract.json", "frontend"))
    pre = json.loads(_read(fdir / "pre.json", "frontend"))
    ext2, module = fe.extract_logic(pre, top, list(ext.param_ports), None)   # as the front end found them
    if ext2.to_json() != ext.to_json():
        raise BuildError("frontend files changed since the frontend stage; run it again (--from frontend)")
    return ext2, module


def finish_tlut(netlist: dict, into: Path, top: str, ext: fe.Extraction, module: dict, defaults: dict,
                K: int = 6) -> dict:
    """Re-import the TLUT netlist ``netlist`` into ``module``, finish synth_xilinx in folder ``into``
    (``mapped.json``, ``post.json``, the Yosys script and log) for LUT size ``K`` and return the
    finished document (:func:`dcsflow.flow.frontend.finalize_tluts`, the front end's parameter
    defaults kept). Raises BaselineError when a LUT of it is wider than ``K``."""
    doc = fe.reimport({}, module, ext, netlist)
    into.mkdir(parents=True, exist_ok=True)
    write_text_atomic(into / "mapped.json", json.dumps(doc))
    fe.continue_synthesis(into / "mapped.json", top, "", into / "post.json", into, "yosys",
                          what="rest of synth_xilinx (TLUT netlist)", lut_width=K)
    final = fe.finalize_tluts(load_json_file(into / "post.json", NETLIST_LIMIT), top)
    if K != 6:
        check_lut_width(final["modules"][top], K, "TLUT netlist")
    final["modules"][top]["parameter_default_values"] = defaults
    return final


@cached(inputs=lambda out, *a, **k: ["frontend/extract.json", "frontend/pre.json", "tmap/netlist.json"],
        outputs=lambda out, *a, **k: ["tmap/module.json", "tlut"])
def finish_tmap_job(out: Path, top: str, defaults: dict, K: int = 6) -> dict:
    """Job: TMAP's netlist finished into ``tlut/`` (``tlut/netlist.json``); writes ``tmap/module.json``
    (the module the re-mapping candidates are re-imported into). Returns the Yosys seconds."""
    import time

    from dcsflow import steps

    out = Path(out)
    with steps.step("re-import"):
        ext, module = _prepare_tlut_module(out, top)
        write_text_atomic(out / "tmap" / "module.json", json.dumps(module))
        netlist = load_json_file(out / "tmap" / "netlist.json", NETLIST_LIMIT)
    t0 = time.perf_counter()
    final = finish_tlut(netlist, out / "tlut", top, ext, module, defaults, K)
    write_text_atomic(out / "tlut" / "netlist.json", json.dumps(final))
    return {"yosys_seconds": time.perf_counter() - t0}


@cached(inputs=lambda out, *a, **k: ["frontend/extract.json", "tmap/module.json", "tmap/netlist.json"],
        outputs=lambda out, top, tail, *a, **k: [f"{REMAP_DIR}/t{tail}"])
def remap_candidate_job(out: Path, top: str, tail: int, kept: set, defaults: dict, K: int = 6) -> dict:
    """Job: one static re-mapping candidate (:func:`dcsflow.flow.static_remap.candidate`) finished in
    ``tmap/static_remap/t<tail>/`` (``final.json`` the finished document). Returns its result dict
    (the re-mapped netlist as a JSON object under ``netlist``)."""
    from dcsflow.tmap.netlist import TlutNetlist

    from ..static_remap import candidate

    out = Path(out)
    into = out / REMAP_DIR / f"t{tail}"
    extract = out / "frontend" / "extract.json"
    ext = fe.Extraction.from_json(read_input_text(extract, NETLIST_LIMIT), str(extract))
    module = load_json_file(out / "tmap" / "module.json", NETLIST_LIMIT)
    net = TlutNetlist.from_json_obj(load_json_file(out / "tmap" / "netlist.json", NETLIST_LIMIT))

    def finish(n: TlutNetlist) -> dict:
        final = finish_tlut(n.to_json_obj(), into, top, ext, module, defaults, K)
        write_text_atomic(into / "final.json", json.dumps(final))
        return final["modules"][top]

    r = candidate(net, tail, kept, finish)
    if "netlist" in r:
        r["netlist"] = r["netlist"].to_json_obj()
    return r


def _static_remap(ctx: Context, jobs: Jobs, top: str, defaults: dict, after, conv: dict) -> dict:
    """Plan, run (as jobs) and choose the static re-mapping (:mod:`dcsflow.flow.static_remap`);
    writes the kept candidate's netlist into ``tmap/netlist.json`` and its finished netlist and
    working files into ``tlut/``. Returns the record."""
    import time

    from dcsflow.tmap.netlist import TlutNetlist

    from ..static_remap import plan, prove_remap, select

    out = ctx.out
    t0 = time.perf_counter()
    after.result()                                      # TMAP's netlist finished
    net = TlutNetlist.from_json_obj(load_json_file(out / "tmap" / "netlist.json", NETLIST_LIMIT))
    base = top_module(load_json_file(out / "tlut" / "netlist.json", NETLIST_LIMIT), top, out / "tlut" / "netlist.json",
                      BuildError)
    K = ctx.options.lut_size
    futs = [jobs.submit(f"static remap T={tail}", remap_candidate_job, out, top, tail, kept, defaults, K, priority=1)
            for tail, kept in plan(net, base)]
    ctx.step("TLUT: static re-mapping; waiting for the conventional candidates (their LUT depth is its bound)")
    results = [f.result() for f in futs]
    seconds = time.perf_counter() - t0
    bounds = getattr(ctx.options, "depth_bounds", None)
    depths = [r.depth for r in candidate_runs(conv) if r.netlist]
    bound = bounds[1] if bounds else (min(depths) if depths else None)
    best, rec = select(base, results, bound,
                       prove=lambda r: jobs.submit(f"static remap proof T={r['tail']}", prove_remap, r["proof"],
                                                   priority=1).result())
    if best is not None:
        r = results[best]
        src = out / REMAP_DIR / f"t{r['tail']}"
        # one group (temporaries first, renames last): never a mix of the two runs' files
        files = {out / "tmap" / "netlist.json": json.dumps(r["netlist"])}
        files.update({out / "tlut" / name: (src / name).read_bytes()
                      for name in ("mapped.json", "post.json", "yosys.ys", "yosys.log")})
        files[out / "tlut" / "netlist.json"] = (src / "final.json").read_bytes()
        write_files_atomic(files)
    rec["seconds"] = round(seconds, 3)
    return rec


def _pack_early(ctx: Context, jobs: Jobs, conv: dict, top: str) -> None:
    """When this run goes on to the ``backend`` stage: pack each conventional candidate as soon as
    it is made (jobs recorded under ``backend``; in priority after the stage's own jobs but TMAP's
    reference figures), into
    ``ctx.started["packs"]`` (name -> future of
    :func:`dcsflow.flow.backend.stage.pack_candidate_job`). The back end then finds them packed and
    places the TLUT build and the chosen candidate side by side, instead of packing them all first."""
    from ..backend import BackendError, get_backend
    from ..backend.stage import pack_candidate_job
    from . import STAGES

    o = ctx.options
    if STAGES.index(o.stop) < STAGES.index("backend"):
        return
    try:
        get_backend(o.backend)
    except BackendError:        # an unknown back end: the backend stage says so
        return
    ctx.started["packs"] = {
        name: jobs.submit(f"pack baseline {name}", pack_candidate_job, ctx.out, f, top, o.backend, o.tlut_pairs,
                          o.lut_size, under="backend", priority=5)
        for name, f in conv.items()}


def _param_bit_registers(path: Path, top: str) -> None:
    """A ``cfglut5`` build's finished TLUT netlist ``path`` with its parameter bits as flip-flops of
    the chains (:func:`dcsflow.flow.cfglut.param_bit_registers`), rewritten in place."""
    from ..cfglut import param_bit_registers

    doc = load_json_file(path, NETLIST_LIMIT)
    if param_bit_registers(doc["modules"][top]):
        write_text_atomic(path, json.dumps(doc))


def run(ctx: Context, front: FrontendResult) -> MapResult:
    """Run the stage (module docstring): the TLUT build and the conventional candidates, as jobs.

    Raises:
        BuildError: the front end's files are missing or changed; MapperError, YosysError,
        BaselineError.
    """
    out = ctx.out
    _read(out / "frontend" / "pre.json", "frontend")
    ext = fe.Extraction.from_json(_read(out / "frontend" / "extract.json", "frontend"))
    top, params = ext.top, [n for n, _ in ext.params]
    bounds = getattr(ctx.options, "depth_bounds", None)
    names = check_names(ctx.options.baselines, reference=bounds is None)
    defaults = dict(front.parameter_defaults)
    for d in ("tmap", "tlut"):
        shutil.rmtree(out / d, ignore_errors=True)
    jobs = ctx.jobs if ctx.jobs is not None else Jobs(1)
    ctx.step(f"TMAP mapping {ext.ands} AND nodes, {len(params)} parameter bits; conventional candidates")
    # priorities (flow.jobs): the Yosys reference first (the longest; abc-wide's choice waits for it),
    # then the TLUT chain (TMAP, its finishing run, the static re-mapping), the other candidates, and
    # last TMAP's reference figures (nothing waits for them)
    K = ctx.options.lut_size
    conv = submit_candidates(jobs, out, top, names, defaults, K, list(ext.param_ports),
                             ref_depth=bounds[0] if bounds else None)
    _pack_early(ctx, jobs, conv, top)
    tlut_k = min(K, CFGLUT5_INPUTS) if ctx.options.tlut == "cfglut5" else None
    f_map = jobs.submit("tmap", map_tluts_job, out, params, ctx.options.area, K, tlut_k, priority=1)
    f_ref = (jobs.submit("tmap reference", reference_figures, out / "frontend" / "logic.aag", params, K,
                         area=ctx.options.area, priority=6) if params and uses_tmap() else None)
    f_fin = jobs.submit("tlut finish", finish_tmap_job, out, top, defaults, K, after=(f_map,), priority=1)
    # on an error the build ends the jobs still running (Jobs.close)
    mo = f_map.result()
    st = dict(mo["stats"])
    st["static_remap"] = None
    if ctx.options.static_remap and params:
        try:
            st["static_remap"] = _static_remap(ctx, jobs, top, defaults, f_fin, conv)
        finally:
            shutil.rmtree(out / REMAP_DIR, ignore_errors=True)
    t_y = f_fin.result()["yosys_seconds"]
    if ctx.options.tlut == "cfglut5":
        _param_bit_registers(out / "tlut" / "netlist.json", top)
    if f_ref is not None:
        st.update(f_ref.result())
    runs = candidate_runs(conv, reference=bounds is None)
    t_conv = next((r.seconds for r in runs if r.name == REFERENCE), 0.0)
    files = [out / mo["ppc"], out / "tmap" / "ppc.json", out / "tmap" / "netlist.json", out / "tlut" / "netlist.json",
             *(out / r.netlist for r in runs if r.netlist)]
    return MapResult(ppc_file=mo["ppc"], tmap_luts=st.get("luts"),
                     tmap_no_param_luts=st.get("no_param_luts"), notes=list(st.get("notes") or []),
                     tmap_no_param_depth=st.get("no_param_depth"),
                     tmap_no_param_param_only_luts=st.get("no_param_param_only_luts"),
                     static_remap=st.get("static_remap"),
                     baselines=[r.as_dict() for r in runs],
                     abc_cec=st.get("verified"), seconds_tmap=st.get("seconds", mo["seconds"]),
                     seconds_tlut_yosys=t_y, seconds_conventional_yosys=t_conv,
                     files=[str(f.relative_to(out)) for f in files if f.is_file()])
