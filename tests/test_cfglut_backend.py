"""The back ends of a ``cfglut5`` build (``dcsflow build --tlut cfglut5``): the built-in packer and
placer put every CFGLUT5 into a SLICEM site (checked against the device's site list, not the
packer's own flags), refuse a device with too few SLICEMs, and the Vivado export writes the CFGLUT5
netlist, loader, gate and top with the clock as the only constraint."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dcsflow.flow.backend import BACKENDS, BackendError, BuiltinBackend
from dcsflow.flow.backend.pack import pack
from dcsflow.flow.backend.place import PlaceError, place
from dcsflow.flow.backend.stage import run_backend
from dcsflow.flow.build import BuildOptions, build
from dcsflow.flow.cli import main
from dcsflow.flow.yosys import cells_sim, run_script
from dcsflow.scg.device import get_device

from _cli import one_line_error

DATA = Path(__file__).parent / "data" / "cfglut"
OPTS = dict(design=str(DATA / "keysbox.v"), progress=False, tlut="cfglut5", chain_luts=3,
            baselines=("yosys-abc",), frontend_check=False, jobs=1)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cfglut5 build of keysbox through the Vivado back end (the built-in packing and placement
    plus ``vivado/``)."""
    out = tmp_path_factory.mktemp("cfgbe") / "b"
    build(BuildOptions(out=out, backend="vivado", **OPTS))
    return out


def _module(out: Path) -> dict:
    doc = json.loads((out / "tlut" / "netlist.json").read_text())
    return next(iter(doc["modules"].values()))


class FewSlicems:
    """A device whose site list keeps only its first ``n`` SLICEM sites (all SLICELs stay)."""

    def __init__(self, dev, n: int):
        self._dev = dev
        keep = sorted(k for k, s in dev.sites.items() if s.kind == "SLICEM")[:n]
        self.sites = {k: s for k, s in dev.sites.items() if s.kind == "SLICEL" or k in keep}

    def __getattr__(self, name):
        return getattr(self._dev, name)


def test_cfglut5s_sit_in_slicem_sites(built):
    rep = json.loads((built / "report.json").read_text())
    pl = json.loads((built / "tlut" / "placement.json").read_text())
    dev = get_device(pl["device"])
    kind = {name: s.kind for name, s in dev.sites.items()}
    lay = json.loads((built / "cfglut.json").read_text())
    tluts = {c for ch in lay["chains"] for c in ch if c not in lay["registers"]}
    placed = {}
    for s in pl["slices"]:
        for lut in s["luts"]:
            if lut["o6"] in tluts or lut["o5"] in tluts:
                assert lut["kind"] == "tlut" and lut["o5"] is None, lut     # a whole LUT site, no LUT6_2
                placed[lut["o6"]] = s["site"]
    assert set(placed) == tluts and len(tluts) == rep["cfglut"]["cfglut5"] > 0
    bad = {c: site for c, site in placed.items() if kind[site] != "SLICEM"}
    assert not bad, bad
    bt = rep["backend"]["tlut"]
    # slicem counts the slices that need a SLICEM (here: those marked cfglut, no RAM in keysbox); the
    # placer may put ordinary slices on spare SLICEM sites too, as a SLICEM also works as a SLICEL
    marked = [s["site"] for s in pl["slices"] if s.get("cfglut")]
    assert all(kind[site] == "SLICEM" for site in marked)
    used_m = sum(1 for s in pl["slices"] if kind[s["site"]] == "SLICEM")
    assert used_m >= bt["slicem"] == len(marked) == len(set(placed.values())) == bt["cfglut_slices"]
    assert bt["device_slicem"] == sum(1 for k in kind.values() if k == "SLICEM") > 0


def test_frames_packing_keeps_tluts_off_slicem(built):
    """The same netlist packed as a frames build: TLUT slices need no SLICEM and hold TLUTs only."""
    p = pack(_module(built))
    assert not any(s.slicem or s.cfglut for s in p.slices)
    assert all(x is None or x.kind in ("tlut", "rt", "const") for s in p.slices if s.tlut for x in s.luts)
    assert "cfglut_slices" not in p.utilization()


def test_too_few_slicems_refused(built):
    module = _module(built)
    packing = pack(module, tlut="cfglut5")
    need = sum(1 for s in packing.slices if s.slicem)
    with pytest.raises(PlaceError) as e:
        place(packing, module, FewSlicems(get_device(), need - 1))
    msg = str(e.value)
    assert "\n" not in msg and "cfglut5" in msg and f"has {need - 1} SLICEMs" in msg
    place(packing, module, FewSlicems(get_device(), need))        # exactly enough: placed


def test_too_few_slicems_cli(built, tmp_path, monkeypatch, capsys):
    out = tmp_path / "b"
    shutil.copytree(built, out)
    import dcsflow.flow.backend.stage as st

    monkeypatch.setattr(st, "get_device", lambda name: FewSlicems(get_device(name), 1))
    rc = main(["build", OPTS["design"], "--out", str(out), "--from", "backend", "--tlut", "cfglut5",
               "--chain-luts", "3", "--baselines", "yosys-abc", "--no-frontend-check", "-j", "1", "--quiet"])
    err = capsys.readouterr().err

    class R:
        returncode, stderr = rc, err

    one_line_error(R, "CFGLUT5s need", "SLICEMs")


def test_backend_without_cfglut5_refused(tmp_path, monkeypatch):
    class FramesOnly(BuiltinBackend):
        name = "frames-only"
        tlut_kinds = ("frames",)

    monkeypatch.setitem(BACKENDS, "frames-only", FramesOnly)
    with pytest.raises(BackendError, match="--tlut cfglut5: back end frames-only cannot place it"):
        run_backend(tmp_path, top="t", design_hash="0", ppc_path=tmp_path / "ppc.aig", params=[],
                    device_name="xc7z020", backend="frames-only", tlut="cfglut5")


def test_vivado_export_netlist_has_cfglut5s(built, tmp_path):
    rep = json.loads((built / "report.json").read_text())
    v = built / "vivado"
    assert (v / "netlist.v").read_text().split("\n", 1)[1] == (built / "cfglut" / "core.v").read_text()
    for n in ("dcs_cfglut_loader.v", "dcs_cfglut_gate.v", "top.v"):
        assert (v / n).read_text() == (built / "cfglut" / n).read_text()
    script = (f"read_verilog -lib {cells_sim()}\n"
              + "".join(f"read_verilog {v / n}\n" for n in ("netlist.v", "dcs_cfglut_loader.v", "dcs_cfglut_gate.v",
                                                             "top.v"))
              + "hierarchy -check -top keysbox_cfglut\nproc\nwrite_json net.json\n")
    run_script(script, tmp_path, "readback")
    mods = json.loads((tmp_path / "net.json").read_text())["modules"]
    core = mods["keysbox_dcs_core"]["cells"].values()
    assert sum(1 for c in core if c["type"] == "CFGLUT5") == rep["cfglut"]["cfglut5"] > 0
    assert not any(c["type"].startswith("LUT") and "dcs_tlut" in c.get("attributes", {}) for c in core)


def test_vivado_export_constraints_clock_only(built):
    v = built / "vivado"
    xdc = [ln for ln in (v / "constraints.xdc").read_text().splitlines() if ln and not ln.startswith("#")]
    assert xdc and all(ln.startswith("create_clock ") for ln in xdc), xdc
    assert "get_ports {clk}" in xdc[0]
    tcl = (v / "build.tcl").read_text()
    assert "link_design -top keysbox_cfglut " in tcl
    for n in ("netlist.v", "dcs_cfglut_loader.v", "dcs_cfglut_gate.v", "top.v"):
        assert f"read_verilog [file join $here {n}]" in tcl
    assert "dump_tluts" not in tcl and "LOCK_PINS" not in tcl
    for n in ("tluts.json", "dump_tluts.tcl", "tlut_placement.xdc"):
        assert not (v / n).exists()
    readme = (v / "README.txt").read_text()
    assert "the clock only" in readme and "No frame map" in readme and "LOCK_PINS" in readme
    bj = json.loads((built / "build.json").read_text())
    assert "vivado/netlist.v" in bj["files"] and "vivado/top.v" in bj["files"]


def _small(n_tluts=10, n_static=30, clocks=1):
    """TLUTs of 4 inputs, static LUT3s, FFs (on ``clocks`` clock nets) reading the LUTs."""
    from test_backend_units import ff, lut

    cells, pool = {}, list(range(2, 10))
    nxt = 100
    for i in range(n_tluts + n_static):
        k = 4 if i < n_tluts else 3
        cells[f"l{i}"] = lut(k, pool[-k - 2:-2], nxt, tlut=i < n_tluts)
        pool.append(nxt)
        nxt += 1
    for i in range(20):
        cells[f"f{i}"] = ff(pool[8 + i], nxt, 1000 + i % clocks)
        nxt += 1
    return {"ports": {"o": {"direction": "output", "bits": pool[-8:]}}, "cells": cells, "netnames": {}}


def test_cfglut_packing_rules():
    from dcsflow.flow.backend.pack import NO_SHARED_CLOCK, PackError

    m = _small()
    p = pack(m, tlut="cfglut5")
    cfg = [s for s in p.slices if s.cfglut]
    assert len(cfg) == 3 and all(s.slicem and s.tlut and s.wclk == "1000" for s in cfg)
    kinds = [[x.kind if x else None for x in s.luts] for s in cfg]
    assert sum(k.count("tlut") for k in kinds) == 10
    assert all(None not in k for k in kinds)                 # static LUTs fill the free LUT sites
    assert p.utilization()["cfglut_slices"] == 3
    assert not any(s.slicem for s in pack(m).slices)         # a frames packing needs no SLICEM
    two = pack(_small(clocks=2), tlut="cfglut5")
    assert all(s.wclk == NO_SHARED_CLOCK and not s.ffs for s in two.slices if s.cfglut)
    with pytest.raises(PackError, match="TLUT pairs need --tlut frames"):
        pack(m, tlut_pairs=True, tlut="cfglut5")
    from test_backend_units import lut

    m["cells"]["l0"] = lut(6, [2, 3, 4, 5, 6, 7], 100, tlut=True)
    with pytest.raises(PackError, match="a CFGLUT5 has at most 5"):
        pack(m, tlut="cfglut5")


def test_report_shows_chains_not_frames(built):
    """A cfglut5 build rekeys through its loader: report.json has no frame/ICAP rekey model, the
    terminal table and the build's page show the chains, words and shift of cfglut.json instead."""
    from dcsflow.flow.report import comparison_rows

    rep = json.loads((built / "report.json").read_text())
    lay = json.loads((built / "cfglut.json").read_text())
    assert "rekey" not in rep["backend"] and rep["backend"]["tlut"]["slices"] > 0
    n = sum(1 for c in lay["chains"] for e in c if e not in lay["registers"])
    bits = sum(len(m) for m in lay["registers"].values())
    words = -(-len(lay["chains"]) // 32) * lay["chain_luts"] * 32
    rows = {m: t for m, _, t in comparison_rows(rep)}
    assert rows["CFGLUT5s: chains x length"] == f"{n}: {len(lay['chains'])} x {lay['chain_luts']}"
    assert rows["parameter-bit FFs (registers)"] == f"{bits} ({len(lay['registers'])})"
    assert rows["chain words per rekey"] == str(words)
    assert rows["shift: cycles / µs (modelled)"].startswith(f"{32 * lay['chain_luts'] + 2} / ")
    assert not any("ICAP" in m or "frames per rekey" in m for m in rows)
    page = (built / "report.html").read_text()
    assert "CFGLUT5 chains per rekey" in page and 'id="cfglut-table"' in page
    assert "ICAP words per rekey" not in page and 'id="rekey-time-table"' not in page
