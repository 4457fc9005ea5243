"""The build page's device context: utilization of the device built for, the LUT-input histogram,
the timing estimate of both implementations and, where a user ran Vivado, Vivado's own figures.

:func:`device_context` gives the template's variables (``device_rows``, ``histogram``, ``timing``,
``vivado``, ``baseline_note``, and for the rekey-time section ``cortex_a9`` and ``model_constants``);
:func:`histogram_figure` draws the LUT-input histogram. Sources:
:mod:`dcsflow.flow.utilization` (counts from report.json, the device's from ``devices.json``),
:mod:`dcsflow.flow.timing_estimate` (the estimate, from the netlists and placements in the build
folder), :mod:`dcsflow.flow.backend.vivado_reports` (``vivado/timing.rpt``, ``vivado/utilization.rpt``).
A part of it whose data the build lacks says so on the page instead.
"""

from __future__ import annotations

import math

#: Vivado's utilization rows the page shows beside dcsflow's counts (site type of report_utilization)
VIVADO_ROWS = ("Slice LUTs", "LUT as Logic", "LUT as Memory", "Slice Registers", "Slice", "SLICEL", "SLICEM",
               "F7 Muxes", "F8 Muxes", "Block RAM Tile", "RAMB36/FIFO", "RAMB18", "DSPs", "Bonded IOB", "BUFGCTRL")


def has_cortex_a9(device: str) -> bool:
    """True when ``device`` (a part name) has the Zynq-7000 processing system: a Cortex-A9 to run
    the SCG and the PCAP (``devices.json`` ``processor``); False for an Artix-7 or an unknown part."""
    from dcsflow.scg.device import device_facts
    from dcsflow.scg.errors import DeviceError

    try:
        return device_facts(device).processor == "Cortex-A9"
    except DeviceError:
        return False


def _pct(x) -> str:
    return "–" if x is None else (f"{x:.2f} %" if x >= 0.01 or x == 0 else "<0.01 %")


def _num(x) -> str:
    return "–" if x is None else f"{x:,}"


def utilization_rows(report: dict) -> tuple[list[dict], str]:
    """The page's rows of :func:`dcsflow.flow.utilization.device_utilization` (formatted) and the
    source of the available counts; no rows for a part the device facts do not know."""
    from dcsflow.scg.device import device_facts
    from dcsflow.scg.errors import DeviceError

    from .utilization import device_utilization

    try:
        facts = device_facts(report["device"])
    except DeviceError:
        return [], ""
    rows = []
    for r in device_utilization(report, facts.resources):
        rows.append({"label": r["label"], "available": _num(r["available"]),
                     "conventional": _num(r["conventional"]["used"]), "conventional_pct": _pct(r["conventional"]["percent"]),
                     "tlut": _num(r["tlut"]["used"]), "tlut_pct": _pct(r["tlut"]["percent"])})
    return rows, facts.resources_source


def histogram(inputs) -> dict:
    """The LUT-input histogram of both implementations (:func:`dcsflow.flow.utilization.lut_histogram`),
    TLUTs apart when ``template.json`` can be read."""
    from dcsflow.fileio import NETLIST_LIMIT, load_json_file

    from .utilization import lut_histogram, tlut_sizes

    try:
        mods = load_json_file(inputs.build_dir / "template.json", NETLIST_LIMIT).get("modules") or {}
        sizes = tlut_sizes(next(iter(mods.values()))) if len(mods) == 1 else None
    except (OSError, ValueError, AttributeError, RecursionError, UnicodeDecodeError):
        sizes = None
    return lut_histogram(inputs.report, sizes)


def histogram_figure(h: dict):
    """Grouped bars: LUTs by input count (LUT1..LUT6) of the conventional implementation and of the
    TLUT implementation (its static LUTs and its TLUTs stacked); returns a matplotlib Figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = list(range(1, 7))
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar([x - 0.2 for x in xs], h["conventional"], 0.4, label="conventional", color="#1f77b4")
    ax.bar([x + 0.2 for x in xs], h["tlut_static"], 0.4, label="TLUT impl.: static LUTs", color="#ff7f0e")
    if h.get("tlut"):
        ax.bar([x + 0.2 for x in xs], h["tlut"], 0.4, bottom=h["tlut_static"], label="TLUT impl.: TLUTs",
               color="#d62728")
    ax.set_xticks(xs, [f"LUT{k}" for k in xs])
    ax.set_ylabel("LUTs")
    ax.set_title("LUTs by number of inputs")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _estimate_view(e, missing: str | None) -> dict:
    if e is None:
        return {"missing": missing or "no estimate"}
    return {"missing": None, "period": f"{e.period_ns:.2f}", "fmax": f"{e.fmax_mhz:,.0f}", "levels": e.lut_levels,
            "endpoints": f"{e.endpoints:,}", "placed": e.placed,
            "untimed": "; ".join(f"{n:,} {why}" for why, n in e.untimed.items()),
            "path": [{"cell": s.cell, "type": s.type, "site": s.site or "–", "what": s.what,
                      "incr": f"{s.incr_ns:.3f}", "at": f"{s.at_ns:.3f}"} for s in e.path]}


def timing_view(inputs) -> dict:
    """The timing estimates of both implementations (:func:`dcsflow.flow.timing_estimate.estimate_build`)
    for the template, with the delay model's sources; ``{"error": line}`` when the model is unreadable."""
    from .timing_estimate import TimingEstimateError, estimate_build, load_delays

    try:
        est = estimate_build(inputs.build_dir, inputs.report, inputs.placement)
        d = load_delays()
    except TimingEstimateError as e:
        return {"error": str(e)}
    out = {impl: _estimate_view(est.get(impl), est["missing"].get(impl)) for impl in ("conventional", "tlut")}
    out["error"] = None
    out["source"] = d["source"]
    out["net_source"] = d["net"]["source"]
    out["speed_grade"] = d["speed_grade"]
    out["_tlut"] = est.get("tlut")
    return out


def vivado_view(inputs, tlut_estimate) -> dict:
    """Vivado's figures of the TLUT implementation from ``vivado/*.rpt`` (when a user ran
    ``vivado/build.tcl``) and how the estimate compares: ``timing``, ``utilization`` rows,
    ``errors``, ``comparison`` (one sentence) — or ``{}`` when neither report exists."""
    from .backend.vivado_reports import read_reports

    rep = read_reports(inputs.build_dir, inputs.report.get("device"))
    if not (rep["timing"] or rep["utilization"] or rep["errors"]):
        return {}
    out: dict = {"errors": rep["errors"], "timing": None, "utilization": [], "comparison": ""}
    t = rep["timing"]
    if t:
        wns = t["wns_ns"]
        out["timing"] = {"wns": "inf" if math.isinf(wns) else f"{wns:.3f}", "period": f"{t['period_ns']:.3f}",
                         "clock": t["clocks"][0]["name"], "fmax": "–" if t["fmax_mhz"] is None else
                         f"{t['fmax_mhz']:,.1f}", "failing": t["failing_endpoints"], "endpoints": t["total_endpoints"]}
        if t["fmax_mhz"] and tlut_estimate is not None:
            viv = t["period_ns"] - wns
            diff = tlut_estimate.period_ns - viv
            out["comparison"] = (f"The estimate's {tlut_estimate.period_ns:.2f} ns is {abs(diff):.2f} ns "
                                 f"({abs(diff) / viv * 100:.0f} %) {'above' if diff > 0 else 'below'} the "
                                 f"{viv:.2f} ns Vivado reports for the TLUT implementation (period − WNS).")
    u = rep["utilization"]
    if u:
        out["utilization"] = [{"name": n, "used": _num(u["sites"][n]["used"]),
                               "available": _num(u["sites"][n]["available"]),
                               "util": "–" if u["sites"][n]["util"] is None else f"{u['sites'][n]['util']:g} %"}
                              for n in VIVADO_ROWS if n in u["sites"]]
        if "CARRY4" in u["primitives"]:
            out["utilization"].append({"name": "CARRY4 (primitives)", "used": _num(u["primitives"]["CARRY4"]),
                                       "available": "–", "util": "–"})
    return out


def model_constants(cortex_a9: bool) -> list[dict]:
    """Rows of the page's table of the rekey-time model's constants (:mod:`dcsflow.scg.timemodel`):
    ``what``, ``value`` (with its unit), ``source``; the PCAP and Cortex-A9 ones only for a part
    with a Cortex-A9."""
    from dcsflow.scg import timemodel as tm

    used = [tm.HWICAP_US_PER_TLUT_RMW, tm.HWICAP_US_PER_WORD, tm.ICAPE2_HZ, tm.ICAPE2_BYTES]
    if cortex_a9:
        used += [tm.PCAP_BYTES_PER_S, tm.A9_HZ, tm.A9_IPC]
    text = tm.substitutions()
    return [{"what": c.what, "value": text[c.name.lower()], "source": c.source} for c in used]


def device_context(inputs) -> dict:
    """The template's variables of the device sections (module docstring)."""
    from .dspref import describe

    r = inputs.report
    rows, source = utilization_rows(r)
    timing = timing_view(inputs)
    tl = timing.pop("_tlut", None)
    h = histogram(inputs)
    hist_rows = [{"k": k + 1, "conventional": h["conventional"][k], "static": h["tlut_static"][k],
                  "tluts": "–" if h["tlut"] is None else h["tlut"][k]} for k in range(6)]
    a9 = has_cortex_a9(r["device"])
    return {"device_rows": rows, "device_source": source, "histogram": hist_rows, "timing": timing,
            "vivado": vivado_view(inputs, tl), "baseline_note": describe(r.get("dsp_reference")),
            "cortex_a9": a9, "model_constants": model_constants(a9)}
