"""Device utilization of both implementations of a build, as Vivado's ``report_utilization`` gives it:
used, available and % of the device built for.

"Available" is the part's count from the device facts (``devices.json`` ``resources``, data sheet
tables; :class:`dcsflow.scg.device.DeviceFacts`); "used" is counted from the build's records: the
netlists' cells (``report.json`` ``conventional.cells`` / ``tlut.cells``: LUT1..LUT6, FD*, CARRY4,
MUXF7/MUXF8, DSP48E1, RAMB36E1/RAMB18E1, I/O buffers, BUFG) and the built-in back end's packing
(``backend.<impl>``: slices, SLICEMs, LUT sites, LUT sites as distributed RAM, LUT sites holding
TLUTs). LUTs are counted as Vivado's "Slice LUTs" count them, by LUT site (a LUT6_2 pair is one),
and split into logic, memory and TLUT. :func:`lut_histogram` gives the LUT-input histogram, TLUTs
apart.
"""

from __future__ import annotations

from collections import Counter

#: (row label, resource of devices.json, how "used" is counted: a function of (report impl, backend impl))
_IOB_TYPES = ("IBUF", "OBUF", "IOBUF", "OBUFT", "IBUFG")


def _cells(impl: dict, *types: str) -> int:
    cells = impl.get("cells") or {}
    return sum(int(cells.get(t, 0)) for t in types)


def _rows() -> list[tuple[str, str, object]]:
    """The table's rows: (label, resource, used(report impl, backend impl) -> int or None)."""
    def sites(key):
        return lambda r, b: b.get(key) if b else None

    def logic(r, b):
        if not b or b.get("lut_sites") is None:
            return None
        return b["lut_sites"] - (b.get("lutram_sites") or 0) - (b.get("tlut_sites") or 0)

    return [
        ("Slice LUTs (LUT sites)", "luts", sites("lut_sites")),
        ("  LUT as logic (route-throughs included)", "luts", logic),
        ("    of them route-throughs (a LUT passing a signal to a CARRY4 or flip-flop)", None,
         lambda r, b: (b.get("route_throughs") or 0) if b else None),
        ("  LUT as memory (distributed RAM, SRL)", "lutram", lambda r, b: (b.get("lutram_sites") or 0) if b else None),
        ("  LUT as TLUT", "luts", lambda r, b: (b.get("tlut_sites") or 0) if b else None),
        ("Slice registers (flip-flops)", "ffs", lambda r, b: r.get("ffs")),
        ("Slices", "slices", sites("slices")),
        ("  SLICEL", None, lambda r, b: (b["slices"] - (b.get("slicem") or 0)) if b and b.get("slices") is not None
         else None),
        ("  SLICEM", "slicem", sites("slicem")),
        ("CARRY4", "carry4", lambda r, b: r.get("carry4")),
        ("F7 muxes (MUXF7)", "muxf7", lambda r, b: r.get("muxf7")),
        ("F8 muxes (MUXF8)", "muxf8", lambda r, b: r.get("muxf8")),
        ("DSP48E1", "dsp48e1", lambda r, b: _cells(r, "DSP48E1")),
        ("Block RAM: RAMB36E1", "ramb36", lambda r, b: _cells(r, "RAMB36E1")),
        ("Block RAM: RAMB18E1", "ramb18", lambda r, b: _cells(r, "RAMB18E1")),
        ("Bonded IOB (every top-level port bit a pin)", "iob", lambda r, b: _cells(r, *_IOB_TYPES)),
        ("BUFG", "bufg", lambda r, b: _cells(r, "BUFG", "BUFGCTRL")),
    ]


def device_utilization(report: dict, device_resources: dict) -> list[dict]:
    """Rows of the device utilization table of ``report`` (report.json) on a part offering
    ``device_resources`` (``DeviceFacts.resources``): ``label``, ``available`` (None for a row the
    data sheet does not count), and per implementation (``conventional``, ``tlut``) ``used`` and
    ``percent`` (None where the report lacks the figure, e.g. no back end ran)."""
    be = report.get("backend") or {}
    rows = []
    for label, res, used in _rows():
        avail = device_resources.get(res) if res else None
        row = {"label": label, "available": avail}
        for impl in ("conventional", "tlut"):
            u = used(report.get(impl) or {}, be.get(impl) if isinstance(be.get(impl), dict) else None)
            row[impl] = {"used": u, "percent": None if u is None or not avail else round(100.0 * u / avail, 2)}
        rows.append(row)
    return rows


def tlut_sizes(module: dict) -> Counter:
    """LUT type (``LUT1``..``LUT6``) -> TLUTs of that type in a netlist module (Yosys JSON; a TLUT
    carries the attribute ``dcs_tlut``)."""
    return Counter(str(c.get("type")) for c in (module.get("cells") or {}).values()
                   if "dcs_tlut" in (c.get("attributes") or {}) and str(c.get("type", "")).startswith("LUT"))


def lut_histogram(report: dict, tluts: Counter | None) -> dict:
    """LUTs by number of inputs: ``{"conventional": [n1..n6], "tlut_static": [...], "tlut": [...]}``
    (``INV`` counts as a 1-input LUT; ``tlut`` None when the TLUTs' sizes are unknown, and then
    ``tlut_static`` holds every LUT of the TLUT implementation)."""
    def counts(impl):
        cells = (report.get(impl) or {}).get("cells") or {}
        out = [int(cells.get(f"LUT{k}", 0)) for k in range(1, 7)]
        out[0] += int(cells.get("INV", 0))
        return out

    conv, tl = counts("conventional"), counts("tlut")
    if tluts is None:
        return {"conventional": conv, "tlut_static": tl, "tlut": None}
    t = [int(tluts.get(f"LUT{k}", 0)) for k in range(1, 7)]
    return {"conventional": conv, "tlut_static": [a - b for a, b in zip(tl, t)], "tlut": t}
