"""The build report (``report.json``) and its tables: conventional vs TLUT side by side.

:func:`build_report` assembles report.json (format ``dcsflow-report`` v2, docs/formats.md) from the
stage records, with every conventional candidate (``baselines``, :mod:`dcsflow.flow.baselines`) and
the savings split into their causes (:func:`savings`) and whether specialization pays at all
(:func:`verdict`); :func:`print_table` prints one build's comparison, :func:`print_summary` the main
job's closing table. Every table fits 80 columns (:mod:`dcsflow.flow.termout`).
"""

from __future__ import annotations

REPORT_FORMAT = "dcsflow-report"
REPORT_VERSION = 2


def build_report(ctx, front, mapped, verified, backend, tlut_stats, conv_stats, ppc, baseline_stats=None,
                 cfglut=None) -> dict:
    """report.json of a build from its stage records (:mod:`dcsflow.flow.stages`).

    Args:
        ctx: the build's :class:`~dcsflow.flow.stages.Context`; front, mapped, verified, backend: the
            records of the frontend, tmap, verify and backend stages; tlut_stats / conv_stats:
            :class:`~dcsflow.flow.netlist.NetlistStats` of the TLUT netlist and of the chosen
            conventional candidate; ppc: the PPC AIG; baseline_stats: candidate name ->
            NetlistStats of every conventional candidate; cfglut: a ``cfglut5`` build's chain
            figures (:func:`dcsflow.flow.cfglut.summary`), report.json's ``cfglut``, which the
            verdict reads.
    """
    secs = {"yosys_pre": front.seconds_yosys, "extract": front.seconds_extract, "tmap": mapped.seconds_tmap,
            "tlut_yosys": mapped.seconds_tlut_yosys, "conventional_yosys": mapped.seconds_conventional_yosys,
            "verify": verified.seconds, "backend": backend.seconds}
    be = backend.summary
    chosen = (be.get("conventional") or {}).get("baseline", "yosys-abc")
    runs = {b["name"]: b for b in mapped.baselines}
    baselines = {}
    for name, st in (baseline_stats or {}).items():
        u = (be.get("baselines") or {}).get(name, {})
        r = runs.get(name, {})
        form = {k: r[k] for k in ("variant", "register_bits", "load_words") if r.get(k) is not None}
        how = u.get("how", name)
        if form.get("register_bits") is not None:
            how += f" ({form['register_bits']} register bits, {form['load_words']} words per load)"
        baselines[name] = {
            "how": how, "variant": form.get("variant", "conventional"), **st.as_dict(),
            **{k: form[k] for k in ("register_bits", "load_words") if k in form},
            **{k: u[k] for k in ("slices", "slicem", "lut_sites", "lut6_2_pairs", "hpwl") if k in u},
            "eligible": u.get("eligible"), "chosen": name == chosen,
            "mapper_luts": r.get("mapper_luts"), "mapper_depth": r.get("mapper_depth"), "proved": r.get("proved"),
            "script": r.get("script"),
            "seconds": round(secs["yosys_pre"] + (r.get("seconds") or 0.0), 3)}
    conv_seconds = baselines.get(chosen, {}).get("seconds", round(secs["yosys_pre"] + secs["conventional_yosys"], 3))
    report = {
        "format": REPORT_FORMAT, "version": REPORT_VERSION, "design": ctx.design.name, "top": front.top,
        "device": ctx.options.device, "lut_size": ctx.options.lut_size or 6, "params": front.params,
        "parameter_registers_folded": front.folded,
        "adders": dict(front.adders), "param_fed_cells": dict(front.param_fed),
        **({"dsp_reference": dict(front.dsp_reference)} if getattr(front, "dsp_reference", None) else {}),
        "conventional": {**conv_stats.as_dict(), "ppc_ands": 0, "baseline": chosen, "seconds": conv_seconds},
        "tlut": {**tlut_stats.as_dict(), "ppc_ands": ppc.num_ands, "ppc_outputs": len(ppc.outputs),
                 "tmap_luts": mapped.tmap_luts, "tmap_no_param_luts": mapped.tmap_no_param_luts,
                 "tmap_no_param_depth": mapped.tmap_no_param_depth,
                 "tmap_no_param_param_only_luts": mapped.tmap_no_param_param_only_luts,
                 "tmap_notes": list(mapped.notes), "static_remap": mapped.static_remap,
                 "seconds": round(secs["yosys_pre"] + secs["extract"] + secs["tmap"] + secs["tlut_yosys"], 3)},
        "baselines": baselines,
        "verify": {"random_patterns": verified.random_patterns, "equal": verified.equal,
                   "abc_cec": verified.abc_cec, "frontend_check": verified.frontend_check},
        "backend": be,
        **({"vhdl": front.vhdl} if front.vhdl else {}),
        "stage_seconds": {k: round(v, 3) for k, v in secs.items()},
    }
    report["timing"] = timing(ctx, {"frontend": front, "tmap": mapped, "verify": verified, "backend": backend})
    failed = {b["name"]: b["failed"] for b in mapped.baselines if b.get("failed")}
    if failed:
        report["baselines_failed"] = failed
    skipped = {b["name"]: b["skipped"] for b in mapped.baselines if b.get("skipped")}
    if skipped:
        report["baselines_skipped"] = skipped
    if cfglut is not None:
        report["cfglut"] = cfglut
    report["savings"] = savings(report)
    report["verdict"] = verdict(report, tmap_area=bool(getattr(ctx.options, "area", False)))
    return report


def best_by_variant(report: dict) -> dict[str, str]:
    """For each RTL variant among report.json's ``baselines`` (``conventional``: the design's
    conventional variant; ``register`` / ``precomputed``: the register forms of the TLUT build's RTL,
    :mod:`dcsflow.flow.loadreg`), the candidate the conventional choice's rule picks among that
    variant's (fewest slices, then LUTs, then LUT depth, among the eligible ones, else among all):
    variant -> candidate name, in report order. The same variant side by side with the TLUT build
    separates what a precomputation gives from what specialization adds."""
    groups: dict[str, list] = {}
    for name, b in (report.get("baselines") or {}).items():
        groups.setdefault(b.get("variant") or "conventional", []).append((name, b))
    out = {}
    for v, cands in groups.items():
        pool = [c for c in cands if c[1].get("eligible") is not False] or cands
        key = [(c[1].get("slices") if c[1].get("slices") is not None else float("inf"), c[1].get("luts", 0),
                c[1].get("depth", 0), i) for i, c in enumerate(pool)]
        out[v] = pool[min(range(len(pool)), key=key.__getitem__)][0]
    return out


def timing(ctx, records: dict) -> dict:
    """report.json's ``timing``: where the build's time went (docs/formats.md).

    ``jobs`` (parallel jobs allowed), ``stages`` (stage -> ``wall``/``cpu`` seconds, ``reused``:
    true when its result came from an earlier run, ``--from``, and ``cached``: how many of its jobs
    came from the job cache, :mod:`dcsflow.flow.cache`), ``wall``/``cpu`` (their sums),
    ``steps`` (every step and external tool run, :mod:`dcsflow.steps`), ``slowest`` (the five
    slowest of them without parts of their own). The ``outputs`` stage counts until report.json is
    written.
    """
    import time

    from dcsflow.steps import slowest

    stages, allsteps = {}, []
    for name, rec in records.items():
        t = getattr(rec, "timing", None) or {}
        stages[name] = {"wall": t.get("wall", 0.0), "cpu": t.get("cpu", 0.0), "reused": name not in ctx.ran,
                        "cached": len(t.get("cached") or [])}
        allsteps += t.get("steps", [])
    if ctx.recorder is not None and "outputs" in ctx.ran:
        w0, c0 = ctx.ran["outputs"]
        stages["outputs"] = {"wall": round(time.perf_counter() - w0, 3), "cpu": round(time.thread_time() - c0, 3),
                             "reused": False}
        allsteps += [r for r in ctx.recorder.as_list() if r["path"].startswith("outputs/")]
    jobs = ctx.jobs.jobs if ctx.jobs is not None else 1
    return {"jobs": jobs, "stages": stages, "wall": round(sum(s["wall"] for s in stages.values()), 3),
            "cpu": round(sum(s["cpu"] for s in stages.values()), 3),
            "slowest": slowest(allsteps, 5), "steps": allsteps}


#: the causes of the savings, in table order: key -> label
CAUSES = {
    "mapping": "mapping and front end: the baseline vs TMAP without parameters on the TLUT build's logic",
    "ppc": "parameter-only logic moved into the PPC",
    "tlut_folding": "logic folded into TLUTs",
    "static_remap": "static logic re-mapped by ABC within the conventional candidates' LUT depth",
    "param_registers": "parameter registers folded",
}

#: the causes' short names (terminal tables, the verdict's reasons)
SHORT_CAUSES = {"mapping": "mapping, front end (vs TMAP, no params)", "ppc": "parameter-only logic in the PPC",
                "tlut_folding": "logic folded into TLUTs", "static_remap": "static logic re-mapped (ABC)",
                "param_registers": "parameter registers folded"}


def savings(report: dict) -> dict:
    """The difference between the conventional and the TLUT build, split into its causes (LUTs and
    FFs), from figures report.json already holds:

    - ``mapping`` = conventional LUTs − TMAP's LUTs on the TLUT build's extracted logic without
      parameters (``tlut.tmap_no_param_luts``): the mapper and the front end (e.g. a design's own
      conventional variant, the load logic of parameter registers); negative when the baseline maps
      better than TMAP;
    - ``ppc`` = the LUTs of that no-parameter mapping that compute functions of the parameters alone
      (``tlut.tmap_no_param_param_only_luts``), which the TLUT build evaluates in the PPC;
    - ``tlut_folding`` = the rest of that mapping − TMAP's LUTs with parameters (``tlut.tmap_luts``):
      logic that depends on parameters and regular inputs, folded into TLUT contents;
    - ``static_remap`` = the finished TLUT netlist's LUTs before − after ABC re-mapped its static
      logic (``tlut.static_remap``, :mod:`dcsflow.flow.static_remap`; 0 when not kept);
    - ``param_registers``: the FFs of the parameter registers the front end folded
      (``parameter_registers_folded``); the other FFs saved count under ``mapping`` (the front end:
      e.g. aes128_iter's conventional variant steps a round-key register);
    - ``unexplained_luts``: what remains, the TLUT build's re-import and the rest of synth_xilinx
      (``tlut.tmap_luts`` − ``tlut.luts`` − ``static_remap``); ``unexplained_ffs`` is 0 by construction.

    The causes and the remainder add up to the LUT and FF differences exactly. Without a
    no-parameter mapping (a build without parameter inputs) ``mapping`` takes TMAP's own LUTs and
    ``ppc`` and ``tlut_folding`` are 0.
    """
    c, t = report["conventional"], report["tlut"]
    be = report.get("backend") or {}
    m0 = t.get("tmap_no_param_luts")
    tm = t.get("tmap_luts")
    tm = t["luts"] if tm is None else tm
    if m0 is None:
        m0, ponly = tm, 0
    else:
        ponly = t.get("tmap_no_param_param_only_luts") or 0
    folded = report.get("parameter_registers_folded") or 0
    d_luts, d_ffs = c["luts"] - t["luts"], c["ffs"] - t["ffs"]
    sr = t.get("static_remap") or {}
    sr_luts = sr.get("luts_before", 0) - sr.get("luts_after", 0) if sr.get("result") == "kept" else 0
    luts = {"mapping": c["luts"] - m0, "ppc": ponly, "tlut_folding": m0 - ponly - tm, "static_remap": sr_luts,
            "param_registers": 0}
    ffs = {"mapping": d_ffs - folded, "ppc": 0, "tlut_folding": 0, "static_remap": 0, "param_registers": folded}
    how = {"mapping": f"conventional {c['luts']} LUTs ({c.get('baseline', 'yosys-abc')}) − TMAP without parameters "
                      f"{m0} LUTs; FFs: the FF difference less the parameter registers",
           "ppc": f"{ponly} of TMAP's {m0} LUTs without parameters compute parameter-only functions",
           "tlut_folding": f"{m0} − {ponly} − TMAP with parameters {tm} LUTs",
           "static_remap": (f"finished TLUT netlist {sr['luts_before']} − {sr['luts_after']} LUTs ({sr['script']}, "
                            f"LUT depth {sr['depth']} kept)" if sr_luts else
                            f"not kept ({sr.get('result', 'not run')})"),
           "param_registers": f"{folded} parameter register bits folded by the front end"}
    return {
        "baseline": c.get("baseline", "yosys-abc"),
        "slices": be.get("slices_saved"), "slices_percent": be.get("slices_saved_percent"),
        "luts": d_luts, "ffs": d_ffs,
        "breakdown": [{"cause": k, "label": CAUSES[k], "luts": luts[k], "ffs": ffs[k], "how": how[k]} for k in CAUSES],
        "unexplained_luts": d_luts - sum(luts.values()), "unexplained_ffs": d_ffs - sum(ffs.values()),
    }


#: how the line a build ends with when specialization does not pay begins
NO_PAY = "specialization does not pay here"


def verdict(report: dict, tmap_area: bool = False) -> dict:
    """Whether specialization pays: report.json's ``verdict`` (docs/formats.md).

    It does not pay when the TLUT implementation uses more slices (``backend.tlut.slices`` against
    ``backend.conventional.slices``; not compared without a back end) or has a greater LUT depth
    (``tlut.depth`` against ``conventional.depth``) than the chosen conventional implementation,
    or when it is a ``cfglut5`` build without a CFGLUT5 (``cfglut.cfglut5`` 0): every TLUT then
    reads one parameter function and became a static LUT on a parameter-bit flip-flop, so the build
    is the conventional circuit with its key register loaded through the shift chains and the
    loader, slower to load than a register written over AXI4-Lite (:func:`_cfglut_reason`).
    Equal figures pay: the TLUT implementation is then no worse.

    Args:
        report: report.json's content (``conventional``, ``tlut``, and where present ``backend``
            and ``savings``, whose breakdown names the causes).
        tmap_area: the TLUT build ran TMAP with ``--area`` (area recovery without the depth bound),
            named as the cause of a greater depth.
    Returns:
        ``{"pays": bool, "line": str or None, "reasons": [str, ...]}``: when it does not pay, the
        one line a build ends with (``specialization does not pay here: ...``) and its causes, one
        short phrase each, most slices first; when it pays, ``line`` None and no reasons.
    """
    c, t = report["conventional"], report["tlut"]
    be = report.get("backend") or {}
    cs, ts = (be.get("conventional") or {}).get("slices"), (be.get("tlut") or {}).get("slices")
    more_slices = cs is not None and ts is not None and ts > cs
    deeper = t["depth"] > c["depth"]
    plain = _cfglut_reason(report)
    if not (more_slices or deeper or plain):
        return {"pays": True, "line": None, "reasons": []}
    parts = [f"the cfglut5 build has no CFGLUT5: {plain}"] if plain else []
    reasons = (_slice_reasons(report) if more_slices else []) + (_depth_reasons(report, tmap_area) if deeper else [])
    if more_slices or deeper:
        what = ([f"uses {ts} slices against {cs}"] if more_slices else []) \
            + ([f"has LUT depth {t['depth']} against {c['depth']}"] if deeper else [])
        parts.append(f"the TLUT implementation {' and '.join(what)} for the conventional one "
                     f"({c.get('baseline') or 'yosys-abc'})" + (": " + "; ".join(reasons) if reasons else ""))
    return {"pays": False, "line": f"{NO_PAY}: " + "; ".join(parts), "reasons": ([plain] if plain else []) + reasons}


def _cfglut_reason(report: dict) -> str | None:
    """For a ``cfglut5`` build without a CFGLUT5 (report.json ``cfglut``: ``cfglut5`` 0, parameter
    bits only), what it is: the conventional circuit with a key register that the loader shifts in,
    its chain words per rekey against the AXI4-Lite writes of a register of the same bits (32 per
    write), and the cheaper ways. None for any other build."""
    cf = report.get("cfglut")
    if not isinstance(cf, dict) or cf.get("cfglut5") or not cf.get("param_bits"):
        return None
    bits, n = cf["param_bits"], cf.get("param_bit_luts")
    computed = (report.get("tlut") or {}).get("ppc_ands")
    return ((f"each of its {_plural(n, 'TLUT')} reads" if n else "every TLUT reads")
            + " one parameter function and became a static LUT on a parameter-bit flip-flop, so the build is the "
            f"conventional circuit with a shift-loaded key register ({_plural(bits, 'parameter bit')}"
            + (", computed from the parameter inputs by the SCG" if computed else "")
            + f"; {_plural(cf.get('words', 0), 'chain word')} per rekey through the loader, where a register "
            f"written over AXI4-Lite takes {_plural(-(-bits // 32), 'write')}); the conventional build with "
            "such a register, or `--tlut frames`, is the cheaper way")


def verdict_line(report: dict) -> str | None:
    """The line a build ends with when specialization does not pay (:func:`verdict`), else None:
    report.json's own ``verdict``, or for a report without one, the verdict of its figures."""
    v = report.get("verdict")
    if not isinstance(v, dict) or not isinstance(v.get("pays"), bool):
        v = verdict(report)
    return None if v["pays"] else v.get("line")


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _slice_reasons(report: dict) -> list[str]:
    """Why the TLUT implementation takes more slices: the parts that grew (LUTs, with the savings
    breakdown's causes; LUT sites lost to fewer LUT6_2 pairs; FFs, CARRY4, MUXF7/MUXF8; empty sites
    in the slices that hold only TLUTs), most slices' worth first; first of all, TLUTs that replaced
    no logic."""
    c, t = report["conventional"], report["tlut"]
    be = report.get("backend") or {}
    bc, bt = be.get("conventional") or {}, be.get("tlut") or {}
    sv = report.get("savings") or {}
    base = c.get("baseline") or "yosys-abc"
    rows = {b["cause"]: b for b in sv.get("breakdown") or [] if isinstance(b, dict) and "cause" in b}
    first, ranked = [], []      # ranked: (slices' worth, phrase)
    n_tl = t.get("tluts") or 0
    by_tluts = sum(rows[k]["luts"] for k in ("ppc", "tlut_folding") if k in rows)
    if n_tl and rows and by_tluts <= 0:
        m0 = t.get("tmap_no_param_luts")
        first.append(f"the {_plural(n_tl, 'TLUT')} replace no logic (TMAP maps it to {t.get('tmap_luts')} LUTs "
                     f"with the parameters and {m0} without, none of them a function of the parameters alone)"
                     if m0 is not None and t.get("tmap_luts") is not None else
                     f"the {_plural(n_tl, 'TLUT')} replace no logic (no LUTs moved into the PPC or folded into TLUTs)")
    d = t["luts"] - c["luts"]
    if d > 0:
        grew = {"mapping": f"TMAP without the parameters needs {{}} more LUTs than {base} (mapping, front end)",
                "tlut_folding": "TMAP needs {} more LUTs with the parameters than without",
                "ppc": "{} more LUTs for parameter-only logic"}
        neg = [grew.get(k, f"{rows[k].get('label') or k}: {{}} more LUTs").format(-r["luts"])
               for k, r in rows.items() if r["luts"] < 0]
        if (sv.get("unexplained_luts") or 0) < 0:
            neg.append(f"the TLUT netlist's re-import into Yosys adds {-sv['unexplained_luts']} LUTs")
        pos = [(r["luts"], SHORT_CAUSES.get(k) or r.get("label") or k) for k, r in rows.items() if r["luts"] > 0]
        text = f"{d} more LUTs ({t['luts']} against {c['luts']})"
        if neg:
            text += ": " + ", ".join(neg)
            if pos:
                text += (f", more than the {sum(n for n, _ in pos)} LUTs saved by "
                         + " and ".join(lbl for _, lbl in pos) + " make up for")
        ranked.append((d / 4, text))
    cp = (bc.get("lut6_2_pairs") or 0) + (bc.get("tluts") or 0) - (bc.get("tlut_sites") or 0)
    tp = (bt.get("lut6_2_pairs") or 0) + (bt.get("tluts") or 0) - (bt.get("tlut_sites") or 0)
    csites, tsites = bc.get("lut_sites"), bt.get("lut_sites")
    if cp > tp and csites is not None and tsites is not None and tsites > csites:
        text = (f"{tsites} LUT sites against {csites}, with {_plural(tp, 'LUT6_2 pair')} (two LUTs in one site) "
                f"against {cp}")
        whole = bt.get("tlut_sites") or 0
        if whole and whole == bt.get("tluts"):
            text += (f" and each of the {_plural(whole, 'TLUT')} a CFGLUT5 in a whole LUT site of a SLICEM"
                     if "cfglut_slices" in bt else f" and each of the {_plural(whole, 'TLUT')} in a whole LUT6 site")
        ranked.append(((cp - tp) / 4, text))
    for key, name, per in (("ffs", "FFs", 8), ("carry4", "CARRY4 (carry chains)", 1), ("muxf7", "MUXF7", 2),
                           ("muxf8", "MUXF8", 1)):
        dd = (t.get(key) or 0) - (c.get(key) or 0)
        if dd > 0:
            ranked.append((dd / per, f"{dd} more {name} ({t.get(key) or 0} against {c.get(key) or 0})"))
    empty = 4 * (bt.get("tlut_slices") or 0) - (bt.get("tlut_sites") or 0)
    if empty > 0 and "cfglut_slices" not in bt:       # static LUTs share CFGLUT5 slices
        ranked.append((empty / 4, f"{_plural(empty, 'LUT site')} empty in the {_plural(bt['tlut_slices'], 'slice')} "
                                  "holding only TLUTs (no static logic shares them)"))
    ranked.sort(key=lambda r: -r[0])
    reasons = first + [txt for _, txt in ranked]
    if not reasons:
        reasons.append("no LUTs, LUT sites, FFs, CARRY4 or MUXF7/MUXF8 more than the conventional one, "
                       f"packed into more slices ({bt.get('tlut_slices', 0)} of them "
                       + ("are SLICEMs holding CFGLUT5s)" if "cfglut_slices" in bt else "hold only TLUTs)"))
    return reasons


def _depth_reasons(report: dict, tmap_area: bool) -> list[str]:
    """Why the TLUT implementation is deeper: TMAP run with ``--area``, or TMAP's mapping already
    deeper without the parameters (the mapper, not the specialization), else the depths it has."""
    c, t = report["conventional"], report["tlut"]
    base = c.get("baseline") or "yosys-abc"
    d0 = t.get("tmap_no_param_depth")
    if tmap_area:
        return ["TMAP ran with --area (area recovery without keeping the depth)"]
    if d0 is not None and d0 > c["depth"]:
        return [f"TMAP maps the logic {d0} LUTs deep even without the parameters, where {base} reaches "
                f"{c['depth']} (the mapper, not the specialization)"]
    return [f"the TLUT netlist's longest path crosses {t['depth']} LUTs, where {base} reaches {c['depth']}"
            + (f" and TMAP without the parameters {d0}" if d0 is not None else "")]


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
    be = report.get("backend") or {}
    if be.get("tlut") and be.get("conventional") and "slices_saved" in be:
        from .backend.report import table_rows

        rows += table_rows(be)
    rows += cfglut_rows(report.get("cfglut"))
    return rows


def cfglut_rows(cf: dict | None) -> list[tuple[str, str, str]]:
    """(metric, conventional, TLUT) rows of a ``cfglut5`` build (``report["cfglut"]``): CFGLUT5s and
    chains, parameter-bit flip-flops and their registers, the TLUTs made static LUTs on them, chain
    words (one AXI4-Lite write each) and the shift; with ``--param-in-loader`` the raw
    parameter words and the generator's LUTs. None: no rows."""
    if not cf:
        return []
    rows = [("CFGLUT5s: chains x length", "-", f"{cf['cfglut5']}: {cf['chains']} x {cf['chain_luts']}"),
            ("parameter-bit FFs (registers)", "-", f"{cf.get('param_bits', 0)} ({cf.get('registers', 0)})"),
            ("TLUTs made static on param. bits", "-", str(cf.get("param_bit_luts", "-"))),
            ("chain words per rekey", "-", str(cf["words"])),
            ("shift: cycles / µs (modelled)", "-", f"{cf['shift_cycles']} / {cf['shift_us']} at {cf['shift_mhz']:g} MHz")]
    pil = cf.get("param_in_loader")
    if pil:
        rows.append(("parameter in loader: words, LUTs", "-", f"{pil['param_words']}, +{pil['luts']}"))
    return rows


def print_table(report: dict, file=None) -> None:
    """Print the conventional-vs-TLUT comparison as a rich table (stdout by default; at most 80 columns)."""
    from rich.table import Table

    from .termout import table_console

    con = table_console(file)
    base = (report.get("conventional") or {}).get("baseline")
    k = report.get("lut_size", 6)
    tab = Table(title=f"{report['design']} ({report['top']}): conventional"
                      + (f" ({base})" if base else "") + " vs TLUT" + (f", {k}-input LUTs" if k != 6 else ""))
    tab.add_column("metric")
    tab.add_column("conv.", justify="right")
    tab.add_column("TLUT", justify="right")
    for r in comparison_rows(report):
        tab.add_row(*r)
    con.print(tab)
    if report.get("baselines"):
        con.print(baselines_table(report))
    for name, why in (report.get("baselines_failed") or {}).items():
        con.print(f"candidate {name} not made: {why}", markup=False, highlight=False)
    by_why: dict = {}
    for name, why in (report.get("baselines_skipped") or {}).items():
        by_why.setdefault(why, []).append(name)
    for why, names in by_why.items():
        con.print(f"{'candidate' if len(names) == 1 else 'candidates'} {', '.join(names)} skipped: {why}",
                  markup=False, highlight=False)
    if report.get("savings"):
        con.print(savings_table(report))


def baselines_table(report: dict):
    """The conventional candidates (rich Table, at most 80 columns): LUTs, FFs, LUT depth, slices,
    and which one is the conventional implementation (``*``; ``-`` for deeper than the reference)."""
    from rich.table import Table

    tab = Table(title="conventional candidates (fewest slices at no greater LUT depth)")
    tab.add_column("candidate", no_wrap=True)
    for col in ("LUTs", "FFs", "MUXF7/F8", "depth", "slices", ""):     # "depth": the title says LUT depth
        tab.add_column(col, justify="right")
    for name, b in report["baselines"].items():
        mark = "*" if b.get("chosen") else ("" if b.get("eligible", True) else "deeper")
        tab.add_row(name, str(b["luts"]), str(b["ffs"]), f"{b['muxf7']}/{b['muxf8']}", str(b["depth"]),
                    str(b.get("slices", "-")), mark)
    return tab


def savings_table(report: dict):
    """Where the savings come from (rich Table, at most 80 columns): LUTs and FFs per cause of
    :func:`savings`, the remainder and the total."""
    from rich.table import Table

    sv = report["savings"]
    short = SHORT_CAUSES
    tab = Table(title=f"LUTs and FFs saved against {sv['baseline']}, by cause")
    tab.add_column("cause")
    tab.add_column("LUTs", justify="right")
    tab.add_column("FFs", justify="right")
    for b in sv["breakdown"]:
        tab.add_row(short.get(b["cause"], b["cause"]), str(b["luts"]), str(b["ffs"]))
    tab.add_row("other (TLUT re-import into Yosys)", str(sv["unexplained_luts"]), str(sv["unexplained_ffs"]))
    tab.add_row("total", str(sv["luts"]), str(sv["ffs"]), style="bold")
    return tab


def print_slowest(records: list[dict], file=None, n: int = 5) -> None:
    """The ``n`` slowest steps of a build (:func:`dcsflow.steps.slowest`: tool runs and innermost
    steps), one line each: wall and CPU seconds, the step's path and what it did; at most 80
    columns."""
    from dcsflow.steps import slowest

    from .termout import TABLE_WIDTH, table_console

    top = slowest(records, n)
    if not top:
        return
    con = table_console(file)
    con.print(f"slowest steps (wall / CPU s; {sum(1 for r in records if r['kind'] == 'tool')} tool runs in all):",
              markup=False, highlight=False)
    for r in top:
        line = f"{r['wall']:7.1f} {r['cpu']:7.1f}  {r['path']}"
        if r.get("what") and r["kind"] == "tool":
            line += f": {r['what']}"
        if r.get("failed"):
            line += f" [{r['failed']}]"
        con.print(line if len(line) <= TABLE_WIDTH else line[:TABLE_WIDTH - 3] + "...", markup=False,
                  highlight=False)


#: title of the main job's closing table
SUMMARY_TITLE = "TLUT implementations (checked) vs conventional"


def print_summary(rows: list, file=None, cycles_label: str = "cycles", verdicts: dict | None = None) -> None:
    """The main job's final table: one row per design ``(design, tlut report, conventional report,
    cycles or None, "passed/total" of the check)``; at most 80 columns, design names never cut.
    ``verdicts``: design -> the line of :func:`verdict_line` for each design where specialization
    does not pay, printed after the table as ``design: specialization does not pay here: ...``
    (wrapped at 80 columns)."""
    from rich.table import Table

    from .termout import table_console

    tab = Table(title=SUMMARY_TITLE)
    tab.add_column("design", no_wrap=True, min_width=max([len(r[0]) for r in rows] + [6]))
    for col in ("LUTs\n(TLUTs)", "FFs", "LUT\ndepth", "conv.\nLUTs/FFs", cycles_label, "check"):
        tab.add_column(col, justify="right")
    for d, t, c, cyc, ok in rows:
        tab.add_row(d, f"{t['luts']} ({t['tluts']})", str(t["ffs"]), str(t["depth"]),
                    f"{c['luts']}/{c['ffs']}", "-" if cyc is None else str(cyc), ok)
    con = table_console(file)
    con.print(tab)
    for d, line in (verdicts or {}).items():
        if line:
            con.print(f"{d}: {line}", markup=False, highlight=False)


def final_line(report: dict) -> str:
    """The one line a build ends with: when specialization does not pay, :func:`verdict_line`;
    else the TLUT implementation's slices and LUT depth against the conventional one's (the chosen
    candidate named). Either way followed, for a design whose multiplier has a parameter operand,
    by the baseline it is compared with (:func:`dcsflow.flow.dspref.describe`)."""
    from .dspref import describe

    line = verdict_line(report)
    if line is None:
        c, t = report["conventional"], report["tlut"]
        be = report.get("backend") or {}
        cs, ts = (be.get("conventional") or {}).get("slices"), (be.get("tlut") or {}).get("slices")
        what = (f"{ts} slices against {cs}" if cs is not None and ts is not None
                else f"{t['luts']} LUTs against {c['luts']}")
        line = (f"{report['design']}: specialization pays: the TLUT implementation uses {what} and LUT depth "
                f"{t['depth']} against {c['depth']} for the conventional one ({c.get('baseline') or 'yosys-abc'})")
    base = describe(report.get("dsp_reference"))
    return line + (f"; baseline: {base}" if base else "")
