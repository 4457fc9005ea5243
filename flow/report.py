"""The build report (``report.json``) and its tables: conventional vs TLUT side by side.

:func:`build_report` assembles report.json (format ``dcsflow-report`` v1, docs/formats.md) from the
stage records; :func:`print_table` prints one build's comparison, :func:`print_summary` the main
job's closing table. Every table fits 80 columns (:mod:`dcsflow.flow.termout`).
"""

from __future__ import annotations

REPORT_FORMAT = "dcsflow-report"
REPORT_VERSION = 1


def build_report(ctx, front, mapped, verified, backend, tlut_stats, conv_stats, ppc) -> dict:
    """report.json of a build from its stage records (:mod:`dcsflow.flow.stages`).

    Args:
        ctx: the build's :class:`~dcsflow.flow.stages.Context`; front, mapped, verified, backend: the
            records of the frontend, tmap, verify and backend stages; tlut_stats / conv_stats:
            :class:`~dcsflow.flow.netlist.NetlistStats` of both netlists; ppc: the PPC AIG.
    """
    secs = {"yosys_pre": front.seconds_yosys, "extract": front.seconds_extract, "tmap": mapped.seconds_tmap,
            "tlut_yosys": mapped.seconds_tlut_yosys, "conventional_yosys": mapped.seconds_conventional_yosys,
            "verify": verified.seconds, "backend": backend.seconds}
    return {
        "format": REPORT_FORMAT, "version": REPORT_VERSION, "design": ctx.design.name, "top": front.top,
        "device": ctx.options.device, "params": front.params, "parameter_registers_folded": front.folded,
        "conventional": {**conv_stats.as_dict(), "ppc_ands": 0,
                         "seconds": round(secs["yosys_pre"] + secs["conventional_yosys"], 3)},
        "tlut": {**tlut_stats.as_dict(), "ppc_ands": ppc.num_ands, "ppc_outputs": len(ppc.outputs),
                 "tmap_luts": mapped.tmap_luts, "tmap_no_param_luts": mapped.tmap_no_param_luts,
                 "tmap_notes": list(mapped.notes),
                 "seconds": round(secs["yosys_pre"] + secs["extract"] + secs["tmap"] + secs["tlut_yosys"], 3)},
        "verify": {"random_patterns": verified.random_patterns, "equal": verified.equal,
                   "abc_cec": verified.abc_cec, "frontend_check": verified.frontend_check},
        "backend": backend.summary,
        **({"vhdl": front.vhdl} if front.vhdl else {}),
        "stage_seconds": {k: round(v, 3) for k, v in secs.items()},
    }


def comparison_rows(report: dict) -> list[tuple[str, str, str]]:
    """(metric, conventional, TLUT) rows of the comparison table (metric names fit its 80 columns)."""
    c, t = report["conventional"], report["tlut"]
    rows = [
        ("LUTs", str(c["luts"]), f"{t['luts']} ({t['tluts']} TLUTs)"),
        ("FFs", str(c["ffs"]), str(t["ffs"])),
        ("LUTs + FFs", str(c["luts"] + c["ffs"]), str(t["luts"] + t["ffs"])),
        ("CARRY4", str(c["carry4"]), str(t["carry4"])),
        ("MUXF7 / MUXF8", f"{c['muxf7']} / {c['muxf8']}", f"{t['muxf7']} / {t['muxf8']}"),
        ("LUT depth", str(c["depth"]), str(t["depth"])),
        ("PPC AND nodes", "-", str(t["ppc_ands"])),
        # TMAP on the extracted logic with and without parameter inputs (same ABC variants, same
        # cuts): the LUTs that specialization itself saves, apart from the mapper and ABC's help
        ("TMAP LUTs: no params / params", "-",
         f"{t['tmap_no_param_luts']} / {t['tmap_luts']}" if t.get("tmap_no_param_luts") else "-"),
        ("run time (s)", f"{c['seconds']:.1f}", f"{t['seconds']:.1f}"),
    ]
    if (report.get("backend") or {}).get("rekey"):
        from .backend.report import table_rows

        rows += table_rows(report["backend"])
    return rows


def print_table(report: dict, file=None) -> None:
    """Print the conventional-vs-TLUT comparison as a rich table (stdout by default; at most 80 columns)."""
    from rich.table import Table

    from .termout import table_console

    tab = Table(title=f"{report['design']} ({report['top']}): conventional vs TLUT")
    tab.add_column("metric")
    tab.add_column("conv.", justify="right")
    tab.add_column("TLUT", justify="right")
    for r in comparison_rows(report):
        tab.add_row(*r)
    table_console(file).print(tab)


#: title of the main job's closing table
SUMMARY_TITLE = "TLUT implementations (checked) vs conventional"


def print_summary(rows: list, file=None, cycles_label: str = "cycles") -> None:
    """The main job's final table: one row per design ``(design, tlut report, conventional report,
    cycles or None, "passed/total" of the check)``; at most 80 columns, design names never cut."""
    from rich.table import Table

    from .termout import table_console

    tab = Table(title=SUMMARY_TITLE)
    tab.add_column("design", no_wrap=True, min_width=max([len(r[0]) for r in rows] + [6]))
    for col in ("LUTs\n(TLUTs)", "FFs", "LUT\ndepth", "conv.\nLUTs/FFs", cycles_label, "check"):
        tab.add_column(col, justify="right")
    for d, t, c, cyc, ok in rows:
        tab.add_row(d, f"{t['luts']} ({t['tluts']})", str(t["ffs"]), str(t["depth"]),
                    f"{c['luts']}/{c['ffs']}", "-" if cyc is None else str(cyc), ok)
    table_console(file).print(tab)
