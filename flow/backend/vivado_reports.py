"""Vivado's own reports of a build's TLUT implementation, read back for the build's page.

``vivado/build.tcl`` (the Vivado back end's script) ends with ``report_utilization -file
utilization.rpt`` and ``report_timing_summary -file timing.rpt``. When a user has run it, the page
shows Vivado's worst negative slack, Fmax and utilization beside dcsflow's own estimate
(:mod:`dcsflow.flow.timing_estimate`). The reports are plain text in Vivado's documented layout
(UG906, "Report Timing Summary" and "Report Utilization"):

- ``timing.rpt``: the "Design Timing Summary" section, a header line ``WNS(ns) TNS(ns) ...`` over a
  row of numbers (``inf`` when nothing is constrained), and the "Clock Summary" section, one row
  per clock: name, waveform ``{rise fall}``, period (ns), frequency (MHz);
- ``utilization.rpt``: ``+---+`` framed tables whose header row holds ``Used`` and ``Available``
  (``Site Type`` rows: ``Slice LUTs``, ``Slice Registers``, ``Slice``, ``Block RAM Tile``, ``DSPs``,
  ``Bonded IOB``, ``BUFGCTRL`` ...; sub-rows indented), and the ``Primitives`` table
  (``Ref Name | Used | Functional Category``: ``CARRY4``, ``LUT6`` ...).

Only those parts are read; anything else in the files is ignored. :func:`read_reports` is the
page's entry point.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..errors import FlowError

#: the report files, relative to the build folder
TIMING_REPORT = "vivado/timing.rpt"
UTILIZATION_REPORT = "vivado/utilization.rpt"
#: the most bytes read of a report
REPORT_LIMIT = 16 << 20


class VivadoReportError(FlowError):
    """A Vivado report that cannot be read (missing section, malformed numbers): one line."""


def _number(text: str) -> float:
    t = text.strip().lower()
    if t in ("inf", "-inf"):
        return math.inf if t == "inf" else -math.inf
    return float(t)


def parse_timing_summary(text: str) -> dict:
    """The figures of a ``report_timing_summary`` text.

    Returns:
        a dict: ``wns_ns``, ``tns_ns``, ``whs_ns`` (the worst negative and hold slack, ``inf`` when
        nothing is constrained), ``failing_endpoints``, ``total_endpoints``, ``clocks`` (one dict
        per clock: ``name``, ``period_ns``, ``frequency_mhz``), and for the first clock
        ``period_ns`` and ``fmax_mhz``, the Fmax it allows, 1000 / (period − WNS) (None when the
        WNS is not a number).
    Raises:
        VivadoReportError: no Design Timing Summary or no clock.
    """
    lines = text.splitlines()
    head = next((i for i, ln in enumerate(lines) if ln.strip().startswith("WNS(ns)")), None)
    if head is None:
        raise VivadoReportError("no Design Timing Summary (a WNS(ns) header line)")
    names = re.split(r"\s{2,}", lines[head].strip())
    values = next((ln.split() for ln in lines[head + 1:] if ln.strip() and not set(ln.strip()) <= set("- ")), None)
    if values is None or len(values) < len(names):
        raise VivadoReportError("the Design Timing Summary has no row of figures")
    try:
        row = {n: _number(v) for n, v in zip(names, values)}
    except ValueError:
        raise VivadoReportError(f"the Design Timing Summary's figures are not numbers: {' '.join(values)}") from None
    clocks = []
    for ln in lines:
        m = re.match(r"^(\S+)\s+\{\s*([\d.]+)\s+([\d.]+)\s*\}\s+([\d.]+)\s+([\d.]+)\s*$", ln)
        if m:
            clocks.append({"name": m.group(1), "period_ns": float(m.group(4)), "frequency_mhz": float(m.group(5))})
    if not clocks:
        raise VivadoReportError("no Clock Summary row (name, {waveform}, period, frequency)")
    wns, period = row.get("WNS(ns)", math.nan), clocks[0]["period_ns"]
    fmax = 1000.0 / (period - wns) if math.isfinite(wns) and period - wns > 0 else None
    return {"wns_ns": wns, "tns_ns": row.get("TNS(ns)"), "whs_ns": row.get("WHS(ns)"),
            "failing_endpoints": int(row.get("TNS Failing Endpoints", 0)),
            "total_endpoints": int(row.get("TNS Total Endpoints", 0)), "clocks": clocks,
            "period_ns": period, "fmax_mhz": None if fmax is None else round(fmax, 1)}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_utilization(text: str) -> dict:
    """The tables of a ``report_utilization`` text.

    Returns:
        ``{"sites": {site type: {"used", "available", "util"}}, "primitives": {ref name: used}}``
        (``available``/``util`` None where the row leaves them blank; a row's name as printed,
        without the ``*`` of a footnote).
    Raises:
        VivadoReportError: no table with ``Used`` and ``Available`` columns.
    """
    sites, prims, head = {}, {}, None
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("|"):
            if not s.startswith("+"):
                head = None
            continue
        cells = _cells(s)
        if "Used" in cells and ("Available" in cells or "Functional Category" in cells):
            head = cells
            continue
        if head is None or len(cells) != len(head):
            continue
        row = dict(zip(head, cells))
        name = row[head[0]].rstrip("*").strip()
        try:
            used = int(float(row["Used"]))
        except ValueError:
            continue
        if "Available" in row:
            avail = row["Available"].strip()
            util = row.get("Util%", "").strip().lstrip("<")
            sites[name] = {"used": used, "available": int(float(avail)) if avail else None,
                           "util": float(util) if util else None}
        else:
            prims[name] = used
    if not sites:
        raise VivadoReportError("no utilization table (a header with Used and Available)")
    return {"sites": sites, "primitives": prims}


def report_part(text: str) -> str | None:
    """The part a report's header names (``| Device : 7z020-clg400``), or None."""
    m = re.search(r"^\|\s*Device\s*:\s*(\S+)", text, re.M)
    return m.group(1) if m else None


def read_reports(build_dir, device: str | None = None) -> dict:
    """Vivado's reports of the build folder, where they exist: ``{"timing": dict | None,
    "utilization": dict | None, "errors": [one line per unreadable report]}`` (a missing report is
    no error: Vivado has not been run). ``device``: the part the build is for (``xc7a35t``); a
    report whose header names another part is not used (an error line says so)."""
    out: dict = {"timing": None, "utilization": None, "errors": []}
    for key, rel, parse in (("timing", TIMING_REPORT, parse_timing_summary),
                            ("utilization", UTILIZATION_REPORT, parse_utilization)):
        p = Path(build_dir) / rel
        if not p.is_file():
            continue
        try:
            with open(p, "rb") as f:
                text = f.read(REPORT_LIMIT).decode("utf-8", errors="replace")
            part = report_part(text)
            if device and part and device.lower().removeprefix("xc") not in part.lower():
                raise VivadoReportError(f"a report of part {part}, this build is for {device}: not used")
            out[key] = parse(text)
        except OSError as e:
            out["errors"].append(f"{p}: cannot read ({e.strerror or e})")
        except VivadoReportError as e:
            out["errors"].append(f"{p}: {e}")
    return out
