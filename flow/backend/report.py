"""Rekey cost model (ICAP words, modelled time), back-end table rows and figures (the build's page,
:mod:`dcsflow.flow.reportpage`, shows them).

ICAP word counts (FACTS.md "Frame read and write sequences", UG470):
(a) per-TLUT read-modify-write as the vendor-style drivers do: for every TLUT, read its 4 frames
    (command words + dummy frame + 4 frames) and write them back (sync, RCRC, IDCODE, FAR, WCFG,
    FDRI with 4 frames + 1 pad frame, RCRC, parked FAR, DESYNC);
(b) frame-batched: the SCG patches shadow frames and writes each touched frame once, one
    write sequence per run of consecutive frames (:func:`dcsflow.scg.rekey.rekey_icap_words`, the words the
    host driver and the firmware actually send; ``dcsflow rekey --json`` counts the same).
Modelled time: words x the AXI HWICAP's cost per word, or x the ICAPE2's at its full rate
(:mod:`dcsflow.scg.timemodel` holds both constants and their sources).
"""

from __future__ import annotations

import math

from dcsflow.scg.bitstream import frame_runs
from dcsflow.scg.device import FRAME_WORDS, Device
from dcsflow.scg.driver import rekey_icap_words
from dcsflow.scg.rekey import frame_words
from dcsflow.scg.timemodel import HWICAP_US_PER_WORD, icap_us_per_word

#: LUTs per 4-frame set: 4 LUTs x 50 rows of one slice column in a clock region (FACTS.md).
LUTS_PER_FRAME_SET = 200


def vendor_read_words(n_frames: int) -> tuple[int, int]:
    """(words written to the ICAP, words read back) to read ``n_frames`` frames (FACTS.md sequence):
    6 sync words, CMD RCRC + 6 NOOP, CMD RCFG + NOOP, FAR, FDRO type-1 + type-2, 32 NOOP, CMD DESYNC;
    the read returns a dummy frame first."""
    written = 6 + 2 + 6 + 2 + 1 + 2 + 2 + 32 + 2
    return written, (n_frames + 1) * FRAME_WORDS


def vendor_write_words(n_frames: int) -> int:
    """Words written to the ICAP to write ``n_frames`` consecutive frames (FACTS.md sequence): sync
    (4), CMD RCRC + 2 NOOP, IDCODE, FAR, CMD WCFG + NOOP, FDRI type-1 + type-2, frames + 1 pad frame,
    CMD RCRC + 2 NOOP, parked FAR, CMD DESYNC."""
    return 4 + 4 + 2 + 2 + 3 + 2 + (n_frames + 1) * FRAME_WORDS + 4 + 2 + 2


def rmw_words_per_tlut() -> int:
    """ICAP words (written + read) of one per-TLUT read-modify-write of its 4 frames."""
    w, r = vendor_read_words(4)
    return w + r + vendor_write_words(4)


def rekey_model(n_tluts: int, tlut_fars: list, device: Device) -> dict:
    """Frames and ICAP words per rekey and modelled times (module docstring).

    Returns dict: tluts, frames_per_rekey, frames_lower_bound (4 × ⌈TLUTs/200⌉), icap_words_batched
    (the words ``dcsflow rekey`` counts as ``icap_words``: frame data with pad frames + each run's
    configuration packets), frame_words_batched (the frame data with pad frames alone),
    icap_words_per_tlut_rmw, rmw_words_per_tlut, ratio, us_per_word_hwicap,
    rekey_us_{hwicap,icap}_{rmw,batched}.
    """
    per = rmw_words_per_tlut()
    rmw = n_tluts * per
    runs = frame_runs(device, tlut_fars) if tlut_fars else []
    batched = rekey_icap_words(runs, device.idcode) if runs else 0
    us_word = HWICAP_US_PER_WORD.value
    icap_us = icap_us_per_word()
    return {
        "tluts": n_tluts, "frames_per_rekey": len(tlut_fars),
        "frames_lower_bound": 4 * math.ceil(n_tluts / LUTS_PER_FRAME_SET),
        "icap_words_batched": batched, "frame_words_batched": frame_words(runs),
        "icap_words_per_tlut_rmw": rmw, "rmw_words_per_tlut": per,
        "ratio_rmw_to_batched": round(rmw / batched, 1) if batched else None,
        "us_per_word_hwicap": round(us_word, 4),
        "rekey_us_hwicap_rmw": round(rmw * us_word, 1), "rekey_us_hwicap_batched": round(batched * us_word, 1),
        "rekey_us_icap_rmw": round(rmw * icap_us, 2), "rekey_us_icap_batched": round(batched * icap_us, 2),
    }


def table_rows(backend: dict) -> list[tuple[str, str, str]]:
    """(metric, conventional, TLUT) rows for the comparison table from ``report["backend"]`` (the
    distributed-RAM row only when either implementation has one; a ``cfglut5`` build's SLICEMs used
    against the device's, and no frame or ICAP rows: its rekey goes through the CFGLUT5 loader)."""
    c, t, r = backend["conventional"], backend["tlut"], backend.get("rekey")
    saved = backend["slices_saved"]
    ram = [("LUT sites as distributed RAM", str(c.get("lutram_sites", 0)), str(t.get("lutram_sites", 0)))] \
        if c.get("lutram_sites") or t.get("lutram_sites") else []
    if t.get("device_slicem"):          # a cfglut5 build: the CFGLUT5s need SLICEMs
        ram.append(("SLICEMs used / device (CFGLUT5 slices)", "-",
                    f"{t['slicem']} / {t['device_slicem']} ({t.get('cfglut_slices', 0)})"))
    return [
        ("slices (SLICEM)", f"{c['slices']} ({c['slicem']})", f"{t['slices']} ({t['slicem']})"),
        ("slices saved", "-", f"{saved} ({backend['slices_saved_percent']:.1f}%)"),
        ("LUT sites / LUT6_2 pairs", f"{c['lut_sites']} / {c['lut6_2_pairs']}", f"{t['lut_sites']} / {t['lut6_2_pairs']}"),
        *ram,
        ("HPWL", str(c["hpwl"]), str(t["hpwl"])),
        *([] if not r else [
            ("frames per rekey (bound)", "-", f"{r['frames_per_rekey']} ({r['frames_lower_bound']})"),
            ("ICAP words/rekey: per-TLUT RMW", "-", str(r["icap_words_per_tlut_rmw"])),
            ("ICAP words/rekey: batched", "-", f"{r['icap_words_batched']}"
             + (f" ({r['ratio_rmw_to_batched']}x fewer)" if r["ratio_rmw_to_batched"] else "")),
            *([("  of them frame data / packets", "-",
                f"{r['frame_words_batched']} / {r['icap_words_batched'] - r['frame_words_batched']}")]
              if "frame_words_batched" in r else []),
            ("modelled µs, HWICAP: RMW / batched", "-",
             f"{r['rekey_us_hwicap_rmw']:.0f} / {r['rekey_us_hwicap_batched']:.1f}"),
            ("modelled µs, raw ICAP: RMW / batched", "-",
             f"{r['rekey_us_icap_rmw']:.1f} / {r['rekey_us_icap_batched']:.2f}")]),
        ("pack + place (s)", f"{c['seconds']['pack'] + c['seconds']['place']:.1f}",
         f"{t['seconds']['pack'] + t['seconds']['place']:.1f}"),
    ]


def utilization_figure(backend: dict):
    """Bar chart of slices, LUT sites, LUTs, FFs, CARRY4 and route-throughs of both implementations
    (``report["backend"]``: its ``conventional`` and ``tlut`` utilization); returns a matplotlib
    Figure (Agg backend; the caller saves and closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ["slices", "lut_sites", "luts", "ffs", "carry4", "route_throughs"]
    c, t = backend["conventional"], backend["tlut"]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(keys))
    ax.bar([x - 0.2 for x in xs], [c.get(k, 0) for k in keys], 0.4, label="conventional")
    ax.bar([x + 0.2 for x in xs], [t.get(k, 0) for k in keys], 0.4, label="TLUT")
    ax.set_xticks(list(xs), keys)
    ax.set_ylabel("count")
    ax.set_title("Utilization")
    ax.legend()
    fig.tight_layout()
    return fig


def device_map_figure(device: Device, used_sites: list, tlut_sites: list, title: str):
    """Device map: all CLB sites of ``device`` (grey), ``used_sites`` (slice site names, blue) and
    ``tlut_sites`` (slices holding TLUTs, red), clock-region rows marked; returns a matplotlib Figure
    (Agg backend; the caller saves and closes it). Raises KeyError for a site not on the device."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 7))
    allp = list(device.sites.values())
    ax.scatter([s.x for s in allp], [s.y for s in allp], s=1.0, c="#e4e4e4", marker="s", label="CLB slice site")
    u = [device.sites[n] for n in used_sites]
    ax.scatter([s.x for s in u], [s.y for s in u], s=1.2, c="#1f77b4", marker="s", label="used slice")
    tl = [device.sites[n] for n in tlut_sites]
    ax.scatter([s.x for s in tl], [s.y for s in tl], s=2.0, c="#d62728", marker="s", label="TLUT slice")
    for y in range(50, max(s.y for s in allp) + 1, 50):
        ax.axhline(y - 0.5, color="#999999", lw=0.5)
    ax.set_xlabel("slice X")
    ax.set_ylabel("slice Y (clock regions of 50 rows)")
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize=7, markerscale=4)
    fig.tight_layout()
    return fig
