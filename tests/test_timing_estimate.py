"""The build page's device context: the timing estimate (:mod:`dcsflow.flow.timing_estimate`), the
device utilization (:mod:`dcsflow.flow.utilization`) and Vivado's own reports read back
(:mod:`dcsflow.flow.backend.vivado_reports`).

- The delay model's cell delays are Project X-Ray's as Yosys quotes them: every value is checked
  against the specify blocks of the installed Yosys's ``cells_sim.v`` (an independent copy).
- The estimate of small netlists built here equals the sum of the arcs and nets along the path,
  added up by hand from the model's published values.
- Vivado's reports are read from committed samples in Vivado's layout (tests/data/vivado_reports).
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from dcsflow.flow.backend.vivado_reports import (VivadoReportError, parse_timing_summary, parse_utilization,
                                                 read_reports)
from dcsflow.flow.timing_estimate import estimate, load_delays
from dcsflow.flow.utilization import device_utilization, lut_histogram

SAMPLES = Path(__file__).parent / "data" / "vivado_reports"


def _cells_sim() -> str:
    """The installed Yosys's ``xilinx/cells_sim.v`` (found as the flow finds Yosys's data)."""
    from dcsflow.flow.yosys import cells_sim

    return cells_sim().read_text()


def _specify(src: str, module: str) -> str:
    m = re.search(r"module " + re.escape(module) + r"\b.*?endmodule", src, re.S)
    return re.search(r"specify(.*?)endspecify", m.group(0), re.S).group(1)


def test_cell_delays_are_yosys_cells_sim_values():
    src, d = _cells_sim(), load_delays()
    for k in range(1, 7):
        got = {int(i): int(v) for i, v in re.findall(r"\(I(\d) => O\) = (\d+);", _specify(src, f"LUT{k}"))}
        assert d["lut"][f"LUT{k}"] == [got[i] for i in range(k)]
    for mux in ("MUXF7", "MUXF8"):
        assert d[mux.lower()] == {p: int(v) for p, v in re.findall(r"\((\w+) => O\) = (\d+);", _specify(src, mux))}
    carry = {f"{a.replace('[', '').replace(']', '')}>{b.replace('[', '').replace(']', '')}": int(v)
             for a, b, v in re.findall(r"\((\w+(?:\[\d\])?)\s*=>\s*(\w+(?:\[\d\])?)\)\s*=\s*(\d+);",
                                       _specify(src, "CARRY4"))}
    assert d["carry4"] == carry
    fdre = _specify(src, "FDRE")
    assert f"(posedge C => (Q : D ^ IS_D_INVERTED)) = {d['ff']['clk_to_q']};" in fdre
    assert f"$setup(CE, posedge C &&& !IS_C_INVERTED, {d['ff']['setup']['CE']});" in fdre
    assert f"$setup(R , posedge C &&& !IS_C_INVERTED, {d['ff']['setup']['R']});" in fdre
    ram = _specify(src, "RAM64X1D")
    assert f"(posedge WCLK => (SPO : D))    = {d['lutram']['clk_to_out']};" in ram
    assert f"(A0 => SPO) = {d['lutram']['read']};" in ram and f"{d['lutram']['setup']});" in ram
    bram = _specify(src, "RAMB18E1")
    assert f"(posedge CLKARDCLK => (DOADO : 16'bx)) = {d['bram']['clk_to_out']};" in bram
    assert f"$setup(DIADI, posedge CLKARDCLK, {d['bram']['setup']});" in bram
    assert d["net"]["source"].startswith("assumed:")


def _cell(ctype: str, **conns) -> dict:
    """A cell of a Yosys JSON module: ports named ``O``, ``Q``, ``CO`` are outputs."""
    outs = {"O", "Q", "CO"}
    return {"type": ctype, "port_directions": {p: "output" if p in outs else "input" for p in conns},
            "connections": conns, "attributes": {}}


def _chain() -> tuple[dict, dict]:
    """r1 -> LUT2 (pin I1) -> LUT6 (pin I0) -> r2, and a shorter path r1 -> LUT1 -> r3; placed."""
    cells = {
        "r1": _cell("FDRE", C=[1], CE=["1"], R=["0"], D=[9], Q=[2]),
        "a": _cell("LUT2", I0=[9], I1=[2], O=[3]),
        "b": _cell("LUT6", I0=[3], I1=[9], I2=[9], I3=[9], I4=[9], I5=[9], O=[4]),
        "r2": _cell("FDRE", C=[1], CE=["1"], R=["0"], D=[4], Q=[5]),
        "c": _cell("LUT1", I0=[2], O=[6]),
        "r3": _cell("FDRE", C=[1], CE=["1"], R=["0"], D=[6], Q=[7]),
    }
    placement = {"cells": {"r1": "SLICE_X10Y10/AFF", "a": "SLICE_X12Y10/A6LUT", "b": "SLICE_X12Y15/B6LUT",
                           "r2": "SLICE_X12Y15/BFF", "c": "SLICE_X10Y10/C6LUT", "r3": "SLICE_X10Y10/CFF"}}
    return {"cells": cells, "ports": {}}, placement


def test_estimate_adds_the_arcs_and_nets_of_the_longest_path():
    d = load_delays()
    module, placement = _chain()
    e = estimate(module, placement)
    net = d["net"]
    # clock to Q; net r1 -> a (2 slices apart); LUT2 I1 -> O; net a -> b (5 apart); LUT6 I0 -> O;
    # b -> r2 inside the slice; setup of D
    want = (d["ff"]["clk_to_q"] + net["leave_slice"] + 2 * net["per_slice_step"] + d["lut"]["LUT2"][1]
            + net["leave_slice"] + 5 * net["per_slice_step"] + d["lut"]["LUT6"][0] + 0 + d["ff"]["setup"]["D"])
    assert e.period_ns == pytest.approx(want / 1000)
    assert e.fmax_mhz == pytest.approx(1e6 / want, abs=0.1)
    assert e.lut_levels == 2 and e.placed
    assert [s.cell for s in e.path if "->" in s.what] == ["a", "b"]
    assert e.path[0].what == "clock to Q" and e.path[-1].what == "setup D" and e.path[-1].cell == "r2"
    assert e.path[-1].at_ns == pytest.approx(e.period_ns)
    assert e.endpoints == 2       # r1's D is fed from nothing timed (net 9 has no driver)
    assert e.untimed == {"register inputs with no timed path into them": 1}
    # unplaced: every net leaves its slice
    u = estimate(module, None)
    assert not u.placed and u.period_ns > e.period_ns - 0.001 * 7 * net["per_slice_step"]


def test_carry_chain_and_port_paths():
    """A port through a LUT into a CARRY4 whose CO[3] feeds the next CARRY4's CI (the carry chain:
    no net delay) and out through O[0] to a register."""
    d = load_delays()
    cells = {
        "ib": _cell("IBUF", I=[20], O=[21]),
        "l": _cell("LUT1", I0=[21], O=[22]),
        "c0": _cell("CARRY4", CI=["0"], CYINIT=["0"], DI=["0", "0", "0", "0"], S=[22, "0", "0", "0"],
                    O=[30, 31, 32, 33], CO=[34, 35, 36, 37]),
        "c1": _cell("CARRY4", CI=[37], CYINIT=["0"], DI=["0", "0", "0", "0"], S=["0", "0", "0", "0"],
                    O=[40, 41, 42, 43], CO=[44, 45, 46, 47]),
        "r": _cell("FDRE", C=[1], CE=["1"], R=["0"], D=[40], Q=[50]),
    }
    placement = {"cells": {"l": "SLICE_X4Y4/A6LUT", "c0": "SLICE_X4Y4/CARRY4", "c1": "SLICE_X4Y5/CARRY4",
                           "r": "SLICE_X4Y5/AFF"}}
    e = estimate({"cells": cells, "ports": {}}, placement)
    want = (0 + d["net"]["leave_slice"] + d["lut"]["LUT1"][0] + 0 + d["carry4"]["S0>CO3"] + 0
            + d["carry4"]["CI>O0"] + 0 + d["ff"]["setup"]["D"])
    assert e.period_ns == pytest.approx(want / 1000)
    assert [s.what for s in e.path if s.cell == "c1"] == ["carry chain", "CI -> O[0]"]
    assert e.path[0].what == "input port" and e.placed


def test_vivado_timing_summary_sample():
    t = parse_timing_summary((SAMPLES / "timing.rpt").read_text())
    assert t["wns_ns"] == 4.215 and t["tns_ns"] == 0 and t["whs_ns"] == 0.152
    assert t["total_endpoints"] == 16 and t["failing_endpoints"] == 0
    assert t["clocks"] == [{"name": "clk", "period_ns": 8.0, "frequency_mhz": 125.0}]
    assert t["fmax_mhz"] == pytest.approx(1000 / (8.0 - 4.215), abs=0.05)
    for bad in ("", "Design Timing Summary\nWNS(ns)  TNS(ns)\n-------\n", "WNS(ns)  TNS(ns)\n---\n1.0 2.0\n"):
        with pytest.raises(VivadoReportError):
            parse_timing_summary(bad)


def test_vivado_utilization_sample():
    u = parse_utilization((SAMPLES / "utilization.rpt").read_text())
    s = u["sites"]
    assert s["Slice LUTs"] == {"used": 42, "available": 53200, "util": 0.08}
    assert s["Slice Registers"]["used"] == 16 and s["Slice"] == {"used": 12, "available": 13300, "util": 0.09}
    assert s["SLICEM"] == {"used": 3, "available": None, "util": None}
    assert s["RAMB36/FIFO"]["available"] == 140 and s["RAMB18"]["available"] == 280
    assert s["DSPs"]["available"] == 220 and s["Bonded IOB"] == {"used": 26, "available": 125, "util": 20.8}
    assert s["BUFGCTRL"]["used"] == 1 and s["Unique Control Sets"]["util"] == 0.01
    assert u["primitives"]["CARRY4"] == 3 and u["primitives"]["LUT6"] == 17
    with pytest.raises(VivadoReportError):
        parse_utilization("no tables here\n")


def test_read_reports_of_a_build_folder(tmp_path):
    assert read_reports(tmp_path) == {"timing": None, "utilization": None, "errors": []}
    (tmp_path / "vivado").mkdir()
    shutil.copy(SAMPLES / "timing.rpt", tmp_path / "vivado" / "timing.rpt")
    (tmp_path / "vivado" / "utilization.rpt").write_text("garbage\n")
    r = read_reports(tmp_path, "xc7z020")
    assert r["timing"]["wns_ns"] == 4.215 and r["utilization"] is None
    assert len(r["errors"]) == 1 and "utilization.rpt: no utilization table" in r["errors"][0]
    other = read_reports(tmp_path, "xc7a35t")          # the sample is of a 7z020: not used for an Artix-7
    assert other["timing"] is None and "a report of part 7z020-clg400, this build is for xc7a35t" in other["errors"][0]


def test_device_utilization_and_lut_histogram():
    report = {"conventional": {"ffs": 16, "carry4": 4, "muxf7": 17, "muxf8": 4,
                               "cells": {"LUT6": 74, "LUT4": 13, "INV": 1, "DSP48E1": 1, "IBUF": 17, "OBUF": 16,
                                         "BUFG": 1, "RAMB18E1": 2}},
              "tlut": {"ffs": 16, "carry4": 3, "muxf7": 0, "muxf8": 0,
                       "cells": {"LUT6": 17, "LUT3": 8, "IBUF": 9, "OBUF": 16, "BUFG": 1}},
              "backend": {"conventional": {"slices": 26, "slicem": 2, "lut_sites": 103, "lutram_sites": 3},
                          "tlut": {"slices": 11, "slicem": 0, "lut_sites": 42, "tlut_sites": 32}}}
    res = {"slices": 13300, "slicem": 4350, "luts": 53200, "lutram": 17400, "ffs": 106400, "carry4": 13300,
           "muxf7": 26600, "muxf8": 13300, "dsp48e1": 220, "ramb36": 140, "ramb18": 280, "iob": 125, "bufg": 32}
    rows = {r["label"].strip(): r for r in device_utilization(report, res)}
    assert rows["Slices"]["tlut"] == {"used": 11, "percent": round(1100 / 13300, 2)}
    logic = rows["LUT as logic (route-throughs included)"]
    assert logic["conventional"]["used"] == 100 and logic["tlut"]["used"] == 10
    assert rows["LUT as TLUT"]["tlut"]["used"] == 32 and rows["SLICEL"]["conventional"]["used"] == 24
    assert rows["SLICEL"]["available"] is None and rows["SLICEL"]["conventional"]["percent"] is None
    assert rows["DSP48E1"]["conventional"] == {"used": 1, "percent": round(100 / 220, 2)}
    assert rows["Bonded IOB (every top-level port bit a pin)"]["conventional"]["used"] == 33
    assert rows["Block RAM: RAMB18E1"]["conventional"]["used"] == 2
    h = lut_histogram(report, Counter({"LUT6": 15, "LUT3": 2}))
    assert h["conventional"] == [1, 0, 0, 13, 0, 74]
    assert h["tlut"] == [0, 0, 2, 0, 0, 15] and h["tlut_static"] == [0, 0, 6, 0, 0, 2]
