"""The build's page: ``BUILD/report.html`` with its figures in ``BUILD/report/``.

Drawn from the files of a finished build (``build.json``, ``report.json``, ``tlut/placement.json``,
and ``firmware_figures.json`` when the firmware was measured) by a Jinja2 template
(``flow/templates/report/report.html.j2``) with matplotlib figures (PNG). Sections: the build
(design, top, device, design hash, parameters), the savings against every conventional baseline
(with the build's line when specialization does not pay), the breakdown of the savings by cause,
conventional vs TLUT resources, the device's utilization (used / available / %) with the LUT-input
histogram and the timing estimate of both implementations, beside Vivado's figures where a user ran
it (:mod:`dcsflow.flow.reportdevice`), the TLUT placement map, frames and ICAP words per rekey, and
the rekey time split into SCG compute and transport. A section whose data the report lacks says "not in
this report" instead. Format of the page and of the firmware figures: docs/formats.md ("Build
page").

Rekey time model (per rekey, the SCG writes each touched frame once: ``icap_words_batched`` words),
every constant from :mod:`dcsflow.scg.timemodel` (with its source) and every time labelled modelled:

* SCG compute: the firmware's instructions per evaluation (``firmware_figures.json``: the largest
  count over the keys measured, Cortex-A9 in QEMU) at the Cortex-A9's clock; on a part without a
  Cortex-A9 (an Artix-7) there is no such line;
* AXI HWICAP: ``backend.rekey.us_per_word_hwicap`` per word;
* PCAP (Zynq-7000 only): 4 bytes per word at the devcfg DMA's rate;
* raw ICAP: 4 bytes per word at the ICAPE2's full rate, driven from the fabric.

:func:`render_page` is what ``dcsflow report BUILD`` runs; :func:`write_build_page` is the outputs
stage's call at the end of every build.
"""

from __future__ import annotations

import io
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.fileio import JSON_LIMIT, load_json_file, write_files_atomic
from dcsflow.schema import SchemaError, validate
from dcsflow.scg.buildfolder import BUILD_FORMAT, BUILD_VERSION, sha256_file
from dcsflow.scg.timemodel import A9_HZ, a9_us, mhz

from .errors import FlowError
from .records import PLACEMENT, REPORT

#: the page and the folder of its figures, relative to the build folder
PAGE = "report.html"
FIGURES_DIR = "report"
#: optional measured firmware figures (written by ``benchmarks/rekey_bench.py --write-figures``)
FIRMWARE_FIGURES = "firmware_figures.json"
FIRMWARE_FORMAT = "dcsflow-firmware-figures"
FIRMWARE_VERSION = 1
#: report.json format and the version the page is made for (baselines, savings breakdown)
REPORT_FORMAT = "dcsflow-report"
PAGE_REPORT_VERSION = 2
#: how to measure the firmware figures of a build (the page says so when they are missing)
FIRMWARE_HOWTO = "python benchmarks/rekey_bench.py --designs {design} --build {design}={build} --write-figures"

#: savings causes (report.json ``savings.breakdown[].cause``) in page order, with a fallback label
CAUSES = {"ppc": "parameter-only logic moved into the PPC", "param_registers": "parameter registers folded",
          "tlut_folding": "logic folded into TLUTs", "mapping": "TMAP without parameters vs the baseline"}
#: short names of the causes on the breakdown figure's axis
SHORT_CAUSES = {"ppc": "parameter-only logic → PPC", "param_registers": "parameter registers",
                "tlut_folding": "folded into TLUTs", "mapping": "mapping, front end"}

#: baseline columns of the savings table: (key, heading)
BASELINE_COLUMNS = (("luts", "LUTs"), ("ffs", "FFs"), ("carry4", "CARRY4"), ("muxf7", "MUXF7"), ("muxf8", "MUXF8"),
                    ("depth", "LUT depth"), ("slices", "slices"), ("slicem", "SLICEM"), ("lut_sites", "LUT sites"))


class ReportPageError(FlowError):
    """The build folder cannot give a page (missing, older or malformed files): one line naming the
    file and what to rerun."""


@dataclass
class PageInputs:
    """What the page is drawn from (:func:`load_inputs`)."""

    build_dir: Path
    manifest: dict
    report: dict
    firmware: dict | None = None
    notes: list = field(default_factory=list)      # one line each, shown at the top of the page
    firmware_note: str = ""
    placement: dict | None = None
    unverified: str = ""      # why the folder fails the build-folder reader's checks (drawn with force)


# ----------------------------------------------------------------------------------------- inputs

def _read_json(path: Path, what: str, hint: str) -> dict:
    try:
        doc = load_json_file(path, JSON_LIMIT)
    except FileNotFoundError:
        raise ReportPageError(f"{path}: missing; {hint}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ReportPageError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e}); {hint}") from None
    except ValueError as e:
        raise ReportPageError(f"{path}: not JSON ({e}); {hint}") from None
    except RecursionError:
        raise ReportPageError(f"{path}: not a {what} (nested too deeply to read); {hint}") from None
    if not isinstance(doc, dict):
        raise ReportPageError(f"{path}: not a {what} (a JSON {type(doc).__name__}); {hint}")
    return doc


def rebuild_command(build_dir: Path, manifest: dict | None, report: dict | None) -> str:
    """The ``dcsflow build`` command line that rebuilds ``build_dir``, as far as its manifest and
    report say (an installed design by name, a project by its path, HDL files as a placeholder)."""
    src = (manifest or {}).get("design_source") if isinstance((manifest or {}).get("design_source"), dict) else {}
    name = (manifest or {}).get("design") or (report or {}).get("design") or "DESIGN"
    if src.get("kind") == "project" and isinstance(src.get("path"), str):
        what = shlex.quote(src["path"])
    elif src.get("kind") == "files":
        what = f"<the HDL files of {name}>"
    else:
        what = shlex.quote(str(name))
    return f"dcsflow build {what} --out {shlex.quote(str(build_dir))}"


def load_inputs(build_dir, *, lenient: bool = False, force: bool = False) -> PageInputs:
    """Read and check what the page of ``build_dir`` is drawn from.

    Args:
        build_dir: a finished build folder (``build.json`` of version :data:`BUILD_VERSION`,
            ``report.json`` of format ``dcsflow-report``).
        lenient: the outputs stage's mode: a report older than :data:`PAGE_REPORT_VERSION` is drawn
            with its missing sections marked, and an unusable ``firmware_figures.json`` becomes a
            note on the page instead of an error. Otherwise (``dcsflow report``) the folder must
            pass the build-folder reader's checks too (:func:`dcsflow.scg.buildfolder.load_build`,
            :meth:`~dcsflow.scg.buildfolder.BuildFolder.check_links`), as for every other reader.
        force: draw a folder that fails those checks (or whose ``report.json`` changed since the
            build) anyway: :attr:`PageInputs.unverified` says why, and the page is marked unverified.
    Returns:
        :class:`PageInputs`.
    Raises:
        ReportPageError: one line naming the file and what to rerun: no folder, no or another
            version of ``build.json``, ``report.json`` missing, changed since the build, malformed,
            of version 1 (before baselines and the savings breakdown; unless ``lenient``) or newer
            than this dcsflow reads; a malformed ``firmware_figures.json`` (unless ``lenient``); a
            folder the build-folder reader refuses (unless ``lenient`` or ``force``).
    """
    b = Path(build_dir)
    if not b.is_dir():
        raise ReportPageError(f"{b}: not a folder (give a build folder of dcsflow build)")
    rpath, mpath = b / "report.json", b / "build.json"
    try:
        early = load_json_file(rpath, JSON_LIMIT)
        early = early if isinstance(early, dict) else None
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        early = None
    if not mpath.exists():
        raise ReportPageError(f"{b}: not a finished build folder (no build.json); run: "
                              f"{rebuild_command(b, None, early)}")
    manifest = _read_json(mpath, "build manifest", f"rebuild: {rebuild_command(b, None, early)}")
    rebuild = f"rebuild: {rebuild_command(b, manifest, early)}"
    if manifest.get("format") != BUILD_FORMAT:
        raise ReportPageError(f"{mpath}: not a dcsflow build manifest (format {manifest.get('format')!r})")
    if manifest.get("version") != BUILD_VERSION:
        raise ReportPageError(f"{b}: build folder of format version {manifest.get('version')} (this dcsflow reads "
                              f"{BUILD_VERSION}); {rebuild}")
    report = _read_json(rpath, "build report", rebuild)
    files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    unverified = ""
    if files.get("report.json") and files["report.json"] != sha256_file(rpath):
        unverified = f"{rpath}: does not match build.json (changed since the build); {rebuild}"
        if not force:
            raise ReportPageError(unverified)
    if report.get("format") != REPORT_FORMAT:
        raise ReportPageError(f"{rpath}: not a dcsflow report (format {report.get('format')!r}); {rebuild}")
    ver = report.get("version")
    if not isinstance(ver, int) or isinstance(ver, bool):
        raise ReportPageError(f"{rpath}: report version {ver!r} is not a number; {rebuild}")
    if ver > PAGE_REPORT_VERSION:
        raise ReportPageError(f"{rpath}: report version {ver} is newer than this dcsflow reads "
                              f"({PAGE_REPORT_VERSION}); update dcsflow")
    notes = []
    if ver < PAGE_REPORT_VERSION:
        if not lenient:
            raise ReportPageError(f"{rpath} is report version {ver} (before baselines and savings breakdown); "
                                  f"{rebuild}")
        notes.append(f"report.json is version {ver} (before baselines and the savings breakdown): those sections "
                     "are not in this report")
    _check_report(report, rpath, rebuild)
    if not lenient and not unverified:
        unverified = _reader_refusal(b, manifest)
        if unverified and not force:
            raise ReportPageError(f"{unverified}; dcsflow report --force draws it marked unverified")
    inputs = PageInputs(b, manifest, report, notes=notes, unverified=unverified)
    _load_firmware(inputs, lenient)
    try:
        pl = load_json_file(b / "tlut" / "placement.json", JSON_LIMIT)
        validate(pl, PLACEMENT)
        inputs.placement = pl
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):     # SchemaError too: drawn without it
        inputs.placement = None
    return inputs


def _reader_refusal(b: Path, manifest: dict) -> str:
    """Why the build-folder reader (:func:`dcsflow.scg.buildfolder.load_build` and
    :meth:`~dcsflow.scg.buildfolder.BuildFolder.check_links`) refuses ``b``, or ``""``."""
    from dcsflow.scg.buildfolder import load_build
    from dcsflow.scg.errors import BuildFolderError

    try:
        load_build(b, manifest).check_links()
    except BuildFolderError as e:
        return str(e)
    return ""


def _check_report(r: dict, rpath: Path, rebuild: str) -> None:
    """The keys the page reads have the types it needs (:data:`dcsflow.flow.records.REPORT`;
    ReportPageError naming the first field that does not). Optional sections may be missing; present
    ones must be whole."""
    try:
        validate(r, REPORT)
        vd = r.get("verdict")
        if vd is not None and not vd["pays"] and not isinstance(vd.get("line"), str):
            raise SchemaError("verdict.line", "a string expected when pays is false")
    except SchemaError as e:
        raise ReportPageError(f"{rpath}: malformed report (field {e.field}: {e.reason}); {rebuild}") from None


def _load_firmware(inputs: PageInputs, lenient: bool) -> None:
    """``firmware_figures.json`` of the build (format docs/formats.md), used only when it was
    measured on this very build (same design hash, PPC and frame map as build.json records)."""
    b, m = inputs.build_dir, inputs.manifest
    path = b / FIRMWARE_FIGURES
    design = m.get("design") or inputs.report.get("design")
    howto = FIRMWARE_HOWTO.format(design=shlex.quote(str(design)), build=shlex.quote(str(b)))
    if not path.exists():
        inputs.firmware_note = f"No firmware figures for this build: measure them with {howto}"
        return
    try:
        doc = load_json_file(path, JSON_LIMIT)
        if not isinstance(doc, dict) or doc.get("format") != FIRMWARE_FORMAT:
            raise ValueError(f"not format {FIRMWARE_FORMAT}")
        if doc.get("version") != FIRMWARE_VERSION:
            raise ValueError(f"version {doc.get('version')!r}, this dcsflow reads {FIRMWARE_VERSION}")
        for k in ("scg_instructions", "keys"):
            if not isinstance(doc.get(k), int) or isinstance(doc.get(k), bool) or doc[k] < 0:
                raise ValueError(f"{k} is not a count")
    except RecursionError:
        msg = f"{path}: unusable firmware figures (nested too deeply to read); measure again: {howto}"
        if not lenient:
            raise ReportPageError(msg) from None
        inputs.firmware_note = msg
        return
    except (OSError, ValueError, UnicodeDecodeError) as e:
        msg = f"{path}: unusable firmware figures ({e}); measure again: {howto}"
        if not lenient:
            raise ReportPageError(msg) from None
        inputs.firmware_note = msg
        return
    files = m.get("files") or {}
    same = (doc.get("design_hash") == m.get("design_hash") and doc.get("ppc_sha256") == files.get("ppc.aig")
            and doc.get("framemap_sha256") == files.get("tlut/framemap.json"))
    if not same:
        inputs.firmware_note = (f"{FIRMWARE_FIGURES} was measured on another build (design hash, PPC or frame map "
                                f"differ): not used; measure again: {howto}")
        return
    inputs.firmware = doc


# ------------------------------------------------------------------------------------ the figures

def rekey_split(rekey: dict, firmware: dict | None, device: str = "") -> list[dict]:
    """Modelled time of one rekey per transport of ``device``, split into SCG compute and transport
    (constants: :mod:`dcsflow.scg.timemodel`).

    Args:
        rekey: ``report["backend"]["rekey"]`` (``icap_words_batched``, ``us_per_word_hwicap``).
        firmware: the firmware figures (``scg_instructions``) or None (compute unknown).
        device: the part built for; the PCAP and the Cortex-A9's compute belong to a Zynq-7000
            only (:func:`dcsflow.flow.reportdevice.has_cortex_a9`), so an Artix-7 gets AXI HWICAP
            and raw ICAP without compute.
    Returns:
        one dict per transport (AXI HWICAP, PCAP on a Zynq-7000, raw ICAP): ``transport``, ``how``
        (the rate and its source), ``words``, ``transport_us``, ``compute_us`` (None without
        firmware figures or without a Cortex-A9), ``total_us`` (None then too); times in
        microseconds, modelled.
    """
    from dcsflow.scg import timemodel as tm

    from .reportdevice import has_cortex_a9

    words = rekey["icap_words_batched"]
    zynq = has_cortex_a9(device)
    driver = "the Cortex-A9" if zynq else "a soft processor in the fabric"
    rates = [("AXI HWICAP", rekey["us_per_word_hwicap"],
              f"{rekey['us_per_word_hwicap']:g} µs per word, written word by word by {driver} "
              f"({tm.HWICAP_US_PER_WORD.source})")]
    if zynq:
        rates.append(("PCAP", tm.pcap_us(1), f"{tm.mbytes(tm.PCAP_BYTES_PER_S)} (Zynq-7000 devcfg DMA; "
                                             f"{tm.PCAP_BYTES_PER_S.source.split(':', 1)[0]})"))
    rates.append(("raw ICAP", tm.icap_us_per_word(),
                  f"{tm.icap_bytes_per_s() / 1e6:g} MB/s (ICAPE2, 32 bit x {tm.mhz(tm.ICAPE2_HZ)}, from the fabric)"))
    compute = tm.a9_us(firmware["scg_instructions"]) if firmware and zynq else None
    out = []
    for name, us_word, how in rates:
        t = words * us_word
        out.append({"transport": name, "how": how, "words": words, "transport_us": t, "compute_us": compute,
                    "total_us": None if compute is None else t + compute})
    return out


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def breakdown_figure(savings: dict):
    """Horizontal bars: LUTs and FFs saved per cause of ``savings`` (report.json ``savings``), and the
    LUTs no cause explains; returns a matplotlib Figure."""
    plt = _pyplot()
    rows = [(SHORT_CAUSES.get(r["cause"]) or r.get("label") or r["cause"], r["luts"], r["ffs"])
            for r in savings["breakdown"]]
    if savings.get("unexplained_luts"):
        rows.append(("other", savings["unexplained_luts"], 0))
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(rows) + 1.4))
    ys = list(range(len(rows)))
    ax.barh([y - 0.2 for y in ys], [r[1] for r in rows], 0.4, label="LUTs", color="#1f77b4")
    ax.barh([y + 0.2 for y in ys], [r[2] for r in rows], 0.4, label="FFs", color="#ff7f0e")
    for y, (_, lu, ff) in zip(ys, rows):
        for v, dy in ((lu, -0.2), (ff, 0.2)):
            if v:
                ax.annotate(str(v), (v, y + dy), xytext=(3 if v > 0 else -3, 0), textcoords="offset points",
                            va="center", ha="left" if v > 0 else "right", fontsize=8)
    ax.set_yticks(ys, [r[0] for r in rows])
    ax.invert_yaxis()
    ax.axvline(0, color="#555555", lw=0.8)
    ax.set_xlabel(f"saved against {savings.get('baseline', 'the baseline')}")
    ax.set_title("Where the savings come from")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def rekey_figure(split: list[dict]):
    """Stacked horizontal bars: modelled rekey time per transport, SCG compute (when measured) +
    transport, in microseconds; returns a matplotlib Figure."""
    from dcsflow.scg.timemodel import A9_HZ, mhz

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 2.8))
    ys = list(range(len(split)))
    comp = [s["compute_us"] or 0.0 for s in split]
    trans = [s["transport_us"] for s in split]
    if any(comp):
        ax.barh(ys, comp, 0.5, label=f"SCG compute (Cortex-A9, {mhz(A9_HZ)})", color="#2ca02c")
    ax.barh(ys, trans, 0.5, left=comp, label="transport of the frames", color="#9467bd")
    for y, c, t in zip(ys, comp, trans):
        ax.annotate(f"{c + t:,.1f} µs", (c + t, y), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize=8)
    ax.set_yticks(ys, [s["transport"] for s in split])
    ax.invert_yaxis()
    ax.set_xlabel("µs per rekey (modelled)")
    ax.set_xlim(0, max(c + t for c, t in zip(comp, trans)) * 1.2 or 1)
    ax.set_title("Rekey time: SCG compute + transport")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def _figures(inputs: PageInputs) -> tuple[dict, dict]:
    """PNG bytes by file name (inside :data:`FIGURES_DIR`) and notes for figures that cannot be
    drawn, by figure key."""
    from .backend.report import device_map_figure, utilization_figure

    r = inputs.report
    be = r.get("backend") or {}
    pngs, missing = {}, {}
    sv = r.get("savings")
    if sv and sv.get("breakdown"):
        pngs["breakdown.png"] = _png(breakdown_figure(sv))
    if isinstance(be.get("tlut"), dict) and isinstance(be.get("conventional"), dict):
        pngs["utilization.png"] = _png(utilization_figure(be))
    if inputs.placement is not None:
        try:
            from dcsflow.scg.device import get_device

            dev = get_device(inputs.placement.get("device") or r["device"])
            used = [s["site"] for s in inputs.placement["slices"]]
            tls = [s["site"] for s in inputs.placement["slices"] if s.get("tlut")]
            pngs["device_map.png"] = _png(device_map_figure(dev, used, tls, f"{r['top']}: TLUT implementation on "
                                                                              f"{dev.name}"))
        except (KeyError, TypeError, ValueError, LookupError) as e:
            missing["device_map"] = f"tlut/placement.json cannot be drawn ({type(e).__name__}: {e})"
    else:
        missing["device_map"] = "no TLUT placement in this build (tlut/placement.json)"
    if be.get("rekey"):
        pngs["rekey_time.png"] = _png(rekey_figure(rekey_split(be["rekey"], inputs.firmware, r["device"])))
    from .reportdevice import histogram, histogram_figure

    pngs["lut_histogram.png"] = _png(histogram_figure(histogram(inputs)))
    return pngs, missing


# ------------------------------------------------------------------------------------------ page

def _fmt(x, nd: int = 1) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:,.{nd}f}"
    return f"{x:,}" if isinstance(x, int) else str(x)


def page_context(inputs: PageInputs, images: dict, missing: dict) -> dict:
    """The template's variables (strings and lists of rows) for ``inputs``; ``images``: figure key ->
    relative path of the PNG; ``missing``: figure key -> why it is not drawn."""
    from dcsflow import __version__

    from .report import comparison_rows

    r, m = inputs.report, inputs.manifest
    be = r.get("backend") or {}
    ctx: dict = {
        "title": f"{r['design']} ({r['top']}) on {r['device']}", "design": r["design"], "top": r["top"],
        "device": r["device"], "idcode": be.get("idcode") or "", "design_hash": m.get("design_hash") or "",
        "params": [(p, w) for p, w in r["params"].items()], "folded": r.get("parameter_registers_folded") or 0,
        "report_version": r.get("version"), "dcsflow_version": __version__, "notes": inputs.notes,
        "backend": be.get("backend") or "", "seed": be.get("seed"), "images": images, "missing": missing,
        "verify": r.get("verify") or {}, "lut_size": r.get("lut_size", 6), "unverified": inputs.unverified,
    }
    # savings against every baseline
    bl = r.get("baselines")
    sv = r.get("savings")
    chosen = (sv or {}).get("baseline") or (r.get("conventional") or {}).get("baseline")
    ctx["chosen"] = chosen
    ctx.update(_baseline_context(r, bl, chosen) if bl else {"baselines": None})
    ctx["baseline_columns"] = [h for _, h in BASELINE_COLUMNS]
    ctx["savings"] = _savings_context(sv, chosen) if sv else None
    ctx["comparison"] = comparison_rows(r)
    ctx["verdict"] = _verdict_line(r)
    # frames, ICAP words and rekey time
    rk = be.get("rekey")
    if rk:
        ctx["rekey"], ctx["split"] = _rekey_context(rk, be, inputs.firmware, r["device"])
    else:
        ctx["rekey"], ctx["split"] = None, None
    cf = r.get("cfglut")
    ctx["cfglut"] = None if not cf else _cfglut_context(cf)
    fw = inputs.firmware
    ctx["firmware"] = None if not fw else _firmware_context(fw)
    ctx["firmware_note"] = inputs.firmware_note
    ctx["cpu_mhz"] = mhz(A9_HZ)
    return ctx


def _baseline_context(r: dict, bl: dict, chosen: str | None) -> dict:
    """The page's baseline table for report ``r`` whose ``baselines`` are ``bl``: ``baselines`` (a row
    per candidate with its figures and the slices the TLUT build saves against it), ``tlut_row`` (the
    TLUT build's figures in the same columns, :data:`BASELINE_COLUMNS`) and ``tluts``."""
    be = r.get("backend") or {}
    tl_slices = (be.get("tlut") or {}).get("slices")
    rows = []
    for name, d in bl.items():
        saved = None if tl_slices is None or d.get("slices") is None else d["slices"] - tl_slices
        pct = None if saved is None or not d.get("slices") else 100.0 * saved / d["slices"]
        rows.append({"name": name, "how": d.get("how") or "", "chosen": bool(d.get("chosen")) or name == chosen,
                     "eligible": d.get("eligible"),
                     "cells": [_fmt(d.get(k)) for k, _ in BASELINE_COLUMNS],
                     "seconds": _fmt(d.get("seconds")), "saved": _fmt(saved),
                     "saved_pct": "–" if pct is None else f"{pct:.1f} %"})
    t, bt = r["tlut"], be.get("tlut") or {}
    tl_row = {"luts": t["luts"], "ffs": t["ffs"], "carry4": t["carry4"], "muxf7": t["muxf7"], "muxf8": t["muxf8"],
              "depth": t["depth"], "slices": bt.get("slices"), "slicem": bt.get("slicem"),
              "lut_sites": bt.get("lut_sites")}
    return {"baselines": rows, "tlut_row": [_fmt(tl_row.get(k)) for k, _ in BASELINE_COLUMNS],
            "tluts": t.get("tluts")}


def _savings_context(sv: dict, chosen: str | None) -> dict:
    """The page's savings block from report.json ``savings``: slices, LUTs and FFs saved against the
    chosen baseline, and the breakdown by cause with its sums."""
    brows = [{"cause": x["cause"], "label": x.get("label") or CAUSES.get(x["cause"], x["cause"]),
              "luts": _fmt(x["luts"]), "ffs": _fmt(x["ffs"]), "how": x.get("how") or ""}
             for x in sv.get("breakdown", [])]
    return {"baseline": sv.get("baseline") or chosen or "", "slices": _fmt(sv["slices"]),
            "slices_percent": f"{sv['slices_percent']:.1f} %", "luts": _fmt(sv["luts"]),
            "ffs": _fmt(sv["ffs"]), "breakdown": brows,
            "unexplained_luts": _fmt(sv.get("unexplained_luts")),
            "sum_luts": _fmt(sum(x["luts"] for x in sv.get("breakdown", []))
                             + (sv.get("unexplained_luts") or 0)),
            "sum_ffs": _fmt(sum(x["ffs"] for x in sv.get("breakdown", [])))}


def _rekey_context(rk: dict, be: dict, firmware: dict | None, device: str) -> tuple[dict, list]:
    """The page's rekey block from the back end's ``rekey`` (frames, ICAP words batched and
    read-modify-write, the TLUTs' frame sets) and the rows of the rekey time split
    (:func:`rekey_split`, microseconds as text)."""
    rekey = {"tluts": _fmt(rk["tluts"]), "frames": _fmt(rk["frames_per_rekey"]),
             "frames_bound": _fmt(rk["frames_lower_bound"]), "words": _fmt(rk["icap_words_batched"]),
             **_word_split(rk),
             "words_rmw": _fmt(rk["icap_words_per_tlut_rmw"]),
             "rmw_per_tlut": _fmt(rk.get("rmw_words_per_tlut")),
             "ratio": _fmt(rk.get("ratio_rmw_to_batched")),
             "frame_sets": be.get("tlut_frame_sets") or []}
    split = [{**s, "transport_us": _fmt(s["transport_us"], 2), "compute_us": _fmt(s["compute_us"], 2),
              "total_us": _fmt(s["total_us"], 2)} for s in rekey_split(rk, firmware, device)]
    return rekey, split


def _cfglut_context(cf: dict) -> dict:
    """The page's CFGLUT5 block from report.json ``cfglut``: chains, parameter bits, chain words and
    shift time, and the parameter generator's cost when the loader computes the words."""
    return {
        "cfglut5": _fmt(cf["cfglut5"]), "chains": _fmt(cf["chains"]), "chain_luts": _fmt(cf["chain_luts"]),
        "param_bits": _fmt(cf.get("param_bits", 0)), "registers": _fmt(cf.get("registers", 0)),
        "param_bit_luts": _fmt(cf.get("param_bit_luts")),
        "words": _fmt(cf["words"]), "shift_cycles": _fmt(cf["shift_cycles"]), "shift_us": _fmt(cf["shift_us"], 2),
        "shift_mhz": f"{cf['shift_mhz']:g}", "build_id": cf.get("build_id") or "",
        "param_in_loader": None if not cf.get("param_in_loader") else {
            "words": _fmt(cf["param_in_loader"]["param_words"]), "luts": _fmt(cf["param_in_loader"]["luts"]),
            "ffs": _fmt(cf["param_in_loader"].get("ffs"))}}


def _firmware_context(fw: dict) -> dict:
    """The page's firmware block from the build's firmware figures: SCG and PPC instruction counts,
    keys, code style, where they were measured, and the modelled Cortex-A9 time (:func:`a9_us`)."""
    return {
        "instructions": _fmt(fw["scg_instructions"]), "ppc_instructions": _fmt(fw.get("ppc_instructions")),
        "keys": fw["keys"], "style": fw.get("code_style") or "", "measured_with": fw.get("measured_with") or "",
        "date": fw.get("date") or "", "us": _fmt(a9_us(fw["scg_instructions"]), 2)}


def _word_split(rk: dict) -> dict:
    """``frame_words`` and ``packet_words`` of a rekey's ICAP words (report.json ``backend.rekey``), as
    text; "–" for a report without ``frame_words_batched``."""
    fw = rk.get("frame_words_batched")
    return {"frame_words": _fmt(fw), "packet_words": _fmt(None if fw is None else rk["icap_words_batched"] - fw)}


def _verdict_line(report: dict) -> str | None:
    """The build's line when specialization does not pay (:func:`dcsflow.flow.report.verdict_line`:
    report.json's ``verdict``, or for an older report the verdict of its figures), else None; None
    too when an older report's figures cannot give one."""
    from .report import verdict_line

    try:
        return verdict_line(report)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


TEMPLATES_DIR = Path(__file__).resolve().parent / "templates" / "report"


def render_html(inputs: PageInputs, images: dict, missing: dict | None = None) -> str:
    """The page's HTML for ``inputs`` (``images``: figure key -> relative PNG path, as written by
    :func:`render_page`). Raises ReportPageError when the template fails (one line)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)), undefined=jinja2.StrictUndefined,
                             autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    from .reportdevice import device_context

    try:
        return env.get_template("report.html.j2").render({**page_context(inputs, images, missing or {}),
                                                          **device_context(inputs)})
    except jinja2.TemplateError as e:
        raise ReportPageError(f"report page template: {e}") from None


def render_page(build_dir, *, lenient: bool = False, force: bool = False) -> list[Path]:
    """Write ``BUILD/report.html`` and its figures ``BUILD/report/*.png`` (module docstring).

    All files are written as one group (temporaries first, renames last: an error leaves the old
    page as it was); figures of an earlier page that this one no longer has are removed. Nothing is
    written through a symbolic link: ``report`` or ``report.html`` that is one is replaced by a fresh
    folder or file, and what it pointed to stays as it was.

    Args:
        build_dir: finished build folder.
        lenient: see :func:`load_inputs` (the outputs stage's mode).
        force: see :func:`load_inputs` (``dcsflow report --force``: a damaged folder drawn, marked
            unverified).
    Returns:
        the paths written, the page last.
    Raises:
        ReportPageError: the folder cannot give a page (:func:`load_inputs`), one line.
        dcsflow.fileio.OutputError: a file cannot be written (one line).
    """
    return render_inputs(load_inputs(build_dir, lenient=lenient, force=force))


def render_inputs(inputs: PageInputs) -> list[Path]:
    """Write the page of ``inputs`` (:func:`load_inputs`) as :func:`render_page` does; returns the
    paths written, the page last.

    Raises:
        ReportPageError: the template fails. dcsflow.fileio.OutputError: a file cannot be written.
    """
    b = inputs.build_dir
    pngs, missing = _figures(inputs)
    images = {name.rsplit(".", 1)[0]: f"{FIGURES_DIR}/{name}" for name in pngs}
    html = render_html(inputs, images, missing)
    fdir = b / FIGURES_DIR
    try:
        if fdir.is_symlink():       # never write into (or clean) a folder elsewhere: a fresh folder
            fdir.unlink()
        fdir.mkdir(exist_ok=True)
    except OSError as e:
        from dcsflow.fileio import OutputError

        raise OutputError(fdir, e.strerror or str(e)) from None
    files: dict = {fdir / n: data for n, data in pngs.items()}
    files[b / PAGE] = html
    written = write_files_atomic(files)
    for old in fdir.glob("*.png"):
        if old.name not in pngs:
            old.unlink(missing_ok=True)
    return [Path(p) for p in written]


def write_build_page(build_dir) -> list[Path]:
    """The outputs stage's call, after ``build.json`` is written: :func:`render_page` in lenient
    mode (a report of an older version is drawn with its missing sections marked)."""
    return render_page(build_dir, lenient=True)
