"""Stage ``outputs``: template netlist, PPC with manifest, report, and the build manifest.

Writes ``template.json`` (the TLUT netlist, top-module attributes ``dcs_design_hash`` = the build's
design hash and ``dcs_ppc_sha256`` = SHA-256 of the PPC), ``template.v``, ``conventional.v`` (the conventional candidate the back end chose), ``ppc.aig`` + ``ppc.json`` (TLUT cell -> PPC outputs,
affine records), ``report.json``, ``build.json`` (format ``dcsflow-build``: design, its
source (to find the design description again), device, design hash, parameters and the SHA-256 of
every file the runtime trusts) and last the build's page ``report.html`` with ``report/*.png``
(:mod:`dcsflow.flow.reportpage`; not in build.json: ``dcsflow report`` draws it again). A
``cfglut5`` build also writes its CFGLUT5 chains, netlist and loader (:func:`dcsflow.flow.cfglut.write_outputs`),
listed in build.json, which records ``"tlut": "cfglut5"``. A design whose parameter transform has a
program (:class:`dcsflow.flow.design.ParamTransform`) gets it as ``transform.json``, listed in
build.json (key ``transform``). Formats: docs/formats.md.
"""

from __future__ import annotations

import json
import shutil

from dcsflow.aig import read_aiger
from dcsflow.fileio import JSON_LIMIT, NETLIST_LIMIT, load_json_file, write_text_atomic
from dcsflow.scg.buildfolder import BUILD_FORMAT, BUILD_VERSION, IMPORTED_TEMPLATE, sha256_file

from .. import netlist as nl
from ..records import top_module
from ..registry import identity
from ..report import build_report
from ..reportpage import write_build_page
from . import BackendResult, BuildError, Context, FrontendResult, MapResult, VerifyResult, failed_checks

#: files of every finished build whose hashes build.json records (besides the back end's)
OUTPUT_FILES = ("template.json", "ppc.aig", "ppc.json", "template.v", "conventional.v", "report.json")


def _affine_records(tmap_manifest, entries: dict[str, list[int]]) -> dict:
    """TMAP's affine TLUT records (``tmap.affine``) keyed by template cell name (``$dcs$<name>``),
    for the TLUT cells whose entries are TMAP's entries repeated over the cell's inputs (a TLUT
    Yosys changed keeps the generic path). Empty when TMAP wrote none."""
    try:
        doc = load_json_file(tmap_manifest, JSON_LIMIT)
    except (OSError, ValueError):
        return {}
    aff, tl = doc.get("affine") or {}, doc.get("tluts") or {}
    out = {}
    for cell, ent in entries.items():
        name = cell[len("$dcs$"):] if cell.startswith("$dcs$") else cell
        rec, own = aff.get(name), tl.get(name)
        if rec and own and len(ent) % len(own) == 0 \
                and all(e == own[i % len(own)] for i, e in enumerate(ent)):
            out[cell] = rec
    return out


def _drop_import(out) -> None:
    """Remove an earlier ``dcsflow import`` (``tlut/imported``): the new ``build.json`` does not name
    it, and the reader refuses a folder holding an import its manifest does not name.

    Raises:
        BuildError: it cannot be removed.
    """
    d = out / IMPORTED_TEMPLATE
    if not d.exists():
        return
    try:
        shutil.rmtree(d)
    except OSError as e:
        raise BuildError(f"{d}: cannot remove the earlier Vivado import ({e.strerror or e}); remove it and "
                         "run dcsflow build --from outputs") from None


def _write_transform(ctx: Context, params: dict) -> str | None:
    """Write the design's parameter transform program (:attr:`dcsflow.flow.design.ParamTransform.program`)
    as ``transform.json`` (tied to the build's design hash); returns its name, or None when the design
    has none.

    Raises:
        BuildError: its inputs are not the design's user parameters (names, order, widths), or it
            does not compute every circuit parameter at its width.
    """
    from dcsflow.scg import transform as tf

    t = ctx.design.transform
    if t is None or t.program is None:
        return None
    prog = t.program()
    if list(prog.input_widths.items()) != list(dict(t.user_params).items()):
        raise BuildError(f"design {ctx.design.name}: its transform program takes {dict(prog.input_widths)}, "
                         f"its user parameters are {dict(t.user_params)}")
    outs = prog.output_widths
    wrong = [p for p, w in params.items() if outs.get(p) != w]
    if wrong:
        raise BuildError(f"design {ctx.design.name}: its transform program does not compute the circuit "
                         f"parameter {wrong[0]} ({params[wrong[0]]} bits)")
    write_text_atomic(ctx.out / tf.FILE, json.dumps(prog.with_design_hash(ctx.design_hash).to_json(),
                                                    separators=(",", ":")) + "\n")
    return tf.FILE


def _load(path, stage: str) -> dict:
    if not path.exists():
        raise BuildError(f"{path} missing: run the '{stage}' stage first (--from {stage})")
    return load_json_file(path, NETLIST_LIMIT)


def _write_cfglut(ctx: Context, front: FrontendResult, module: dict, ppc, entries: dict[str, list[int]],
                  tstats) -> tuple[tuple, dict]:
    """Write a ``cfglut5`` build's CFGLUT5 chains, netlist and loader (and, with the parameter generator
    in the loader, its Verilog, whose LUT cost Yosys measures); returns the files written (names in
    the build folder) and the report's CFGLUT5 summary.

    Raises:
        BuildError: the CFGLUT5 outputs cannot be made, or the tmap stage's netlist is missing.
    """
    from .. import cfglut

    out, top = ctx.out, front.top
    pil = ctx.options.param_in_loader
    try:
        layout = cfglut.write_outputs(out, module, top, ctx.design_hash, ctx.options.chain_luts,
                                      ctx.design.handshake,
                                      (ppc, entries, dict(front.params)) if pil else None)
    except cfglut.CfglutBuildError as e:
        raise BuildError(str(e)) from None
    cfglut_summary = cfglut.summary(layout, tstats.luts,
                                    cfglut.param_bit_luts(_load(out / "tmap" / "netlist.json", "tmap")))
    cfglut_files = cfglut.OUTPUT_FILES
    if pil:
        ctx.step("CFGLUT5: parameter generator's LUT cost (synth_xilinx)")
        cfglut_summary["param_in_loader"] = {
            "param_words": len(cfglut.param_words({p: 0 for p in front.params}, dict(front.params))),
            **cfglut.generator_cost(out / cfglut.PARAM_FILE, out / "cfglut" / "work")}
        cfglut_files = (*cfglut_files, cfglut.PARAM_FILE)
    return cfglut_files, cfglut_summary


def run(ctx: Context, front: FrontendResult, mapped: MapResult, verified: VerifyResult,
        backend: BackendResult) -> dict:
    """Run the stage (module docstring); returns the report (report.json's content).

    Raises:
        BuildError: files of earlier stages missing, a verify or tmap record that says a check failed.
    """
    out = ctx.out
    top = front.top
    bad = failed_checks(verified) or failed_checks(mapped)
    if bad:       # never certified: the pipeline reruns a reused record like this (check_reused)
        raise BuildError(f"the verify stage's record says a check failed ({', '.join(bad)}): nothing certified; "
                         "run from the verify stage (--from verify)")
    final = _load(out / "tlut" / "netlist.json", "tmap")
    chosen = (backend.summary.get("conventional") or {}).get("baseline")
    cand = {b["name"]: top_module(_load(out / b["netlist"], "tmap"), top, out / b["netlist"], BuildError)
            for b in mapped.baselines if b.get("netlist")}
    if chosen not in cand:
        raise BuildError(f"the back end chose baseline {chosen!r}, which the tmap stage did not make; "
                         "run from the tmap stage (--from tmap)")
    conv = {"modules": {top: cand[chosen]}}
    ppc_src = out / mapped.ppc_file
    shutil.copyfile(ppc_src, out / ".ppc.aig.tmp")
    (out / ".ppc.aig.tmp").replace(out / "ppc.aig")
    ppc_hash = sha256_file(out / "ppc.aig")
    module = top_module(final, top, out / "tlut" / "netlist.json", BuildError)
    module.setdefault("attributes", {})["dcs_ppc_sha256"] = ppc_hash
    module["attributes"]["dcs_design_hash"] = ctx.design_hash          # tied to this build, like every artifact
    write_text_atomic(out / "template.json", json.dumps(final))
    entries = nl.tlut_entries(module)
    ppc = read_aiger(str(out / "ppc.aig"))
    manifest = {"format": "dcsflow-build-ppc", "version": 1, "aiger": "ppc.aig", "sha256": ppc_hash,
                "params": list(ppc.input_names), "outputs": len(ppc.outputs), "ands": ppc.num_ands,
                "netlist": "template.json", "tluts": entries,
                "affine": _affine_records(ppc_src.with_name("ppc.json"), entries)}
    write_text_atomic(out / "ppc.json", json.dumps(manifest, indent=1) + "\n")
    write_text_atomic(out / "template.v", nl.write_verilog(module, top))
    write_text_atomic(out / "conventional.v", nl.write_verilog(conv["modules"][top], top))
    tstats = nl.stats(module)
    cfglut_files: tuple = ()
    cfglut_summary = None
    if ctx.options.tlut == "cfglut5":
        cfglut_files, cfglut_summary = _write_cfglut(ctx, front, module, ppc, entries, tstats)
    report = build_report(ctx, front, mapped, verified, backend, tstats, nl.stats(conv["modules"][top]),
                          ppc, {n: nl.stats(m) for n, m in cand.items()}, cfglut_summary)
    write_text_atomic(out / "report.json", json.dumps(report, indent=1) + "\n")
    program = _write_transform(ctx, dict(front.params))
    files = {n: sha256_file(out / n) for n in (*OUTPUT_FILES, *cfglut_files, *([program] if program else []))}
    if backend.summary.get("tlut"):
        # the runtime trusts the TLUT build's files and the chosen conventional one (conv/), not the
        # other candidates' figures (baselines/, read by the report only)
        files.update({n: sha256_file(out / n) for n in backend.files if not n.startswith("baselines/")})
    d = ctx.design
    bj = {"format": BUILD_FORMAT, "version": BUILD_VERSION, "design": d.name, "design_source": identity(d),
          "top": top, "device": ctx.options.device, "design_hash": ctx.design_hash, "params": front.params,
          "user_params": dict(d.transform.user_params) if d.transform else None, "files": files}
    if ctx.options.tlut == "cfglut5":
        bj["tlut"] = "cfglut5"
    if program:
        bj["transform"] = program
    _drop_import(out)
    write_text_atomic(out / "build.json", json.dumps(bj, indent=1) + "\n")
    write_build_page(out)              # report.html + report/*.png, drawn from the files above
    return report
