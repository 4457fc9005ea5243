"""``dcsflow build --lut-size K`` (and ``[build] lut_size`` in a dcsflow.toml): builds with K-input LUTs.

tests/data/lutsize is a project whose design (rtl/masked.v: a key-masked parity, a per-bit select
by the key, a parameter-operand adder and multiplier) has functions of more than four regular
inputs once the key is folded in; its dcsflow.toml asks for 4-input LUTs. At K = 4 every LUT of
the TLUT and of every conventional netlist the build writes has at most four inputs and every LUT
takes a LUT site of its own, while the same design at K = 6 has wider LUTs and LUT6_2 pairs (so
the checks below can fail). The specialized netlists are checked against the cocotb test's own
Python model of the design (tb/test_masked.py), as netlists and as configuration frames decoded
back into LUT contents (``check --frames``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "lutsize"
#: the primitives that are LUTs of the mapping (LUT6_2 would be two LUTs in one site)
LUT_TYPES = {f"LUT{k}" for k in range(1, 7)} | {"INV", "LUT6_2"}
#: options that keep the extra builds small: two candidates, no re-mapping, no front-end check
SMALL = ("--baselines", "yosys-abc,tmap", "--no-static-remap", "--no-frontend-check", "-j", "1", "--quiet")


def _build(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", *map(str, args)], capture_output=True,
                          text=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lutsize") / "project"
    shutil.copytree(DATA, root)
    return root


@pytest.fixture(scope="module")
def built(project) -> Path:
    """The project built as its dcsflow.toml says (lut_size = 4), every candidate, static re-mapping."""
    out = project / "out4"
    r = _build("-p", project / "dcsflow.toml", "--out", out, "-j", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    return out


def _module(path: Path) -> dict:
    (m,) = json.loads(path.read_text())["modules"].values()
    return m


def _lut_widths(module: dict) -> dict[str, int]:
    """LUT cell -> the input pins it has connected (I0, I1, ...), read from the cell itself."""
    return {n: sum(1 for p in c["connections"] if p.startswith("I")) for n, c in module["cells"].items()
            if c["type"] in LUT_TYPES}


def _netlists(out: Path, report: dict) -> dict[str, Path]:
    """Every netlist of the build with LUTs: the template, the finished TLUT netlist, every candidate."""
    nets = {"template": out / "template.json", "tlut": out / "tlut" / "netlist.json"}
    nets.update({f"baseline {n}": out / "baselines" / n / "netlist.json" for n in report["baselines"]})
    return nets


def _sites(out: Path, impl: str) -> list[dict]:
    return [e for s in json.loads((out / impl / "placement.json").read_text())["slices"] for e in s["luts"]]


def test_k4_build_has_only_4_input_luts_and_is_verified(built):
    rep = json.loads((built / "report.json").read_text())
    assert rep["lut_size"] == 4
    assert rep["verify"]["equal"] and rep["verify"]["abc_cec"] and rep["verify"]["frontend_check"]["passed"]
    # every mapper but abc-wide (6-input only), on the RTL as written and on its register forms
    assert {n.partition("@")[0] for n in rep["baselines"]} == {"yosys-abc", "tmap", "abc-synch2", "abc-dch"}
    assert {"yosys-abc", "yosys-abc@register"} <= set(rep["baselines"])
    assert "LUT size 4" in rep["baselines_skipped"]["abc-wide"]
    assert "abc -lut 4" in rep["baselines"]["yosys-abc"]["how"]
    assert rep["tlut"]["tluts"] > 0
    for name, path in _netlists(built, rep).items():
        m = _module(path)
        widths = _lut_widths(m)
        assert widths and max(widths.values()) <= 4, (name, widths)
        assert all(c["type"] in ("LUT1", "LUT2", "LUT3", "LUT4", "INV") for c in m["cells"].values()
                   if c["type"] in LUT_TYPES), name
        # no wide functions: LUT6 + MUXF7/MUXF8 needs 6-input LUTs (this design has no other muxes)
        assert not any(c["type"] in ("MUXF7", "MUXF8") for c in m["cells"].values()), name
    conv = (built / "conventional.v").read_text()
    assert "LUT5 " not in conv and "LUT6 " not in conv and "LUT4 " in conv
    assert "4-input LUTs, one per LUT site" in (built / "report.html").read_text()


def test_k4_build_puts_one_lut_in_each_site(built):
    rep = json.loads((built / "report.json").read_text())
    chosen = rep["conventional"]["baseline"]
    for impl, netlist in (("tlut", built / "template.json"), ("conv", built / "baselines" / chosen / "netlist.json")):
        sites = _sites(built, impl)
        assert all(e["kind"] not in ("pair", "tlutpair") and e["o5"] is None for e in sites), impl
        held = [e["o6"] for e in sites if e["kind"] in ("lut", "tlut")]
        assert sorted(held) == sorted(_lut_widths(_module(netlist))), impl     # each LUT in one site
    assert rep["backend"]["tlut"]["lut6_2_pairs"] == 0
    assert all(b["lut6_2_pairs"] == 0 for b in rep["baselines"].values())


def test_k4_specialized_netlists_and_frames_match_the_model(built, dcsflow):
    r = dcsflow("check", built, "--keys", "3", "--quiet")
    assert r.returncode == 0 and "passed 3/3" in r.stdout, r.stdout + r.stderr
    r = dcsflow("check", built, "--frames", "--keys", "2", "--quiet")
    assert r.returncode == 0 and "passed 2/2" in r.stdout, r.stdout + r.stderr
    r = dcsflow("rekey", built, "--param", "key=a5", "--to", "emulator", "--verify")
    assert r.returncode == 0 and "read-back verified" in r.stdout, r.stdout + r.stderr


def test_the_same_design_at_k6_has_wider_luts_and_pairs(project, built):
    """--lut-size 6 overrides the project's lut_size = 4: 5/6-input TLUTs and LUT6_2 pairs appear
    (what the K = 4 checks above rule out), and the design hash differs from the K = 4 build's."""
    out = project / "out6"
    r = _build("-p", project / "dcsflow.toml", "--lut-size", "6", "--out", out, *SMALL)
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["lut_size"] == 6 and "baselines_skipped" not in rep
    assert max(_lut_widths(_module(out / "template.json")).values()) > 4
    assert max(_lut_widths(_module(out / "baselines" / "yosys-abc" / "netlist.json")).values()) > 4
    assert rep["backend"]["conventional"]["lut6_2_pairs"] > 0
    hashes = {json.loads((b / "build.json").read_text())["design_hash"] for b in (out, built)}
    assert len(hashes) == 2


def test_k5_build_of_the_files_has_at_most_5_input_luts(tmp_path):
    out = tmp_path / "b5"
    r = _build(DATA / "rtl" / "masked.v", "--lut-size", "5", "--out", out, *SMALL)
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["lut_size"] == 5 and rep["verify"]["equal"] and rep["verify"]["abc_cec"]
    for name, path in _netlists(out, rep).items():
        widths = _lut_widths(_module(path))
        assert max(widths.values()) == 5, (name, widths)      # wider than 4: the limit is 5, not 4
    assert all(e["kind"] not in ("pair", "tlutpair") for impl in ("tlut", "conv") for e in _sites(out, impl))


@pytest.mark.parametrize("value", ["7", "3", "six"])
def test_bad_lut_size_is_one_line(tmp_path, value):
    r = _build(DATA / "rtl" / "masked.v", "--lut-size", value, "--out", tmp_path / "b")
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "--lut-size" in r.stderr, r.stderr
    assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr and not (tmp_path / "b").exists()


@pytest.mark.parametrize("line, msg", [
    ("lut_size = 7", "build.lut_size must be one of 4, 5, 6, got 7"),
    ('lut_size = "4"', "build.lut_size must be a int, got str"),
    ("lut = 4", "unknown key build.lut (allowed: lut_size, timeout, tlut, transport, max_memory)"),
])
def test_bad_project_lut_size_is_one_line(project, tmp_path, line, msg):
    p = project / f"bad_{abs(hash(line))}.toml"
    p.write_text((project / "dcsflow.toml").read_text().replace("lut_size = 4", line))
    r = _build("-p", p, "--out", tmp_path / "b")
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and msg in r.stderr, r.stderr


def test_tlut_pairs_need_lut_size_6(project, tmp_path):
    r = _build("-p", project / "dcsflow.toml", "--tlut-pairs", "--out", tmp_path / "b")
    assert r.returncode == 1 and r.stderr == ("error: --tlut-pairs needs LUT size 6 (this build's is 4): below 6 "
                                              "every LUT takes a LUT site of its own\n"), r.stderr


def test_continuation_and_reference_mapping_follow_the_lut_size():
    """The commands that finish synth_xilinx: Yosys's own at 6 (as docs/architecture.md quotes
    them), LUT_WIDTH and xilinx_dffopt's 4-input limit below."""
    from dcsflow.flow.baselines import how, reference_mapping, skip_reason
    from dcsflow.flow.frontend import ABC_LUTS_DEFAULT, continuation_script

    six = continuation_script("a.json", "t", "", "b.json").splitlines()
    assert "techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH=6" in six
    assert "xilinx_dffopt" in six
    for k in (4, 5):
        lines = continuation_script("a.json", "t", "", "b.json", k).splitlines()
        assert [x for x in lines if x not in six] == [
            f"techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH={k}", "xilinx_dffopt -lut4"]
    assert reference_mapping(6) == ABC_LUTS_DEFAULT == "abc -luts 2:2,3,6:5,10,20"
    assert reference_mapping(5) == "abc -lut 5"
    assert skip_reason("abc-wide", 6) is None and "LUT size 5" in skip_reason("abc-wide", 5)
    assert all(skip_reason(n, 4) is None for n in ("yosys-abc", "tmap", "abc-synch2", "abc-dch"))
    assert "&if -K 4" in how("abc-dch", 4) and "-K 6" in how("abc-dch", 6)


def test_design_hash_changes_with_the_lut_size_only_below_6():
    """A build at LUT size 6 keeps the design hash it had before the LUT size could be chosen (its
    stage records and artifacts stay valid); 4 and 5 give hashes of their own."""
    from dcsflow.flow.build import design_hash
    from dcsflow.flow.project import load_project

    d = load_project(DATA / "dcsflow.toml")
    assert d.lut_size == 4
    base = design_hash(d, "masked", ["key"])
    assert design_hash(d, "masked", ["key"], (), 6) == base
    assert len({base, design_hash(d, "masked", ["key"], (), 4), design_hash(d, "masked", ["key"], (), 5)}) == 3
