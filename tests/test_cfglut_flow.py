"""The CFGLUT5 realization through the flow (``dcsflow build --tlut cfglut5``, :mod:`dcsflow.flow.cfglut`):
a small keyed design is built, its CFGLUT5s loaded through the generated loader by the words the
runtime computes from the PPC, and simulated in Icarus with Yosys's CFGLUT5 model against a Python
model of the design (two keys per simulation, the second loaded between two data items)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from dcsflow.flow.build import BuildError, BuildOptions, build, design_hash
from dcsflow.flow.check import CheckSetup, check_cfglut
from dcsflow.flow.design import DesignCheck, Handshake
from dcsflow.flow.registry import resolve
from dcsflow.flow.simulate import icarus
from dcsflow.flow.yosys import cells_sim
from dcsflow.scg.buildfolder import load_build
from dcsflow.scg.cfglut import inits_from_words

DATA = Path(__file__).parent / "data" / "cfglut"
HANDSHAKE = Handshake("s_valid", "s_ready", out_valid="m_valid", out_ready="m_ready")


def sbox(x: int, key: int) -> int:
    """keysbox.v's function, written independently of it: S(x ^ key)."""
    x ^= key
    return ((x * x) & 0xFF) ^ (((x << 3) | (x >> 5)) & 0xFF)


def rotxor(x: int, key: int) -> int:
    """keyxor.v's function: (x ^ key) rotated left by 3."""
    x ^= key
    return ((x << 3) | (x >> 5)) & 0xFF


@pytest.fixture(scope="module")
def built(builds):
    """The cfglut5 build of keysbox that tests/test_cfglut_rekey.py rekeys too (one build, read-only)."""
    return builds.get("keysbox-cfglut5", design=str(DATA / "keysbox.v"), tlut="cfglut5", chain_luts=3,
                      baselines=("yosys-abc",), frontend_check=False)


@pytest.fixture(scope="module")
def built_xor(tmp_path_factory):
    out = tmp_path_factory.mktemp("cfgx") / "b"
    build(BuildOptions(design=str(DATA / "keyxor.v"), out=out, progress=False, tlut="cfglut5", chain_luts=2,
                       param_in_loader=True, baselines=("yosys-abc",), frontend_check=False))
    return out


def run_items(work: Path, verilog: str, top: str, cases: list) -> tuple[list, list]:
    """run_group of the test's DesignCheck: every case (key, byte, expected) an item of one run."""
    (work / "net.v").write_text(verilog)
    (work / "in.txt").write_text(f"{len(cases)}\n" + "".join(f"{b:02x}\n" for _, b, _ in cases))
    icarus([work / "net.v", DATA / "tb_keysbox.v", cells_sim()], work, defines={"TOP": top},
           plusargs=[f"+in={work / 'in.txt'}", f"+out={work / 'out.txt'}"])
    got = (work / "out.txt").read_text().split()
    oks = []
    for i, (_, _, want) in enumerate(cases):
        ok = i < len(got) and got[i] == f"{want:02x}"
        oks.append((ok, "" if ok else f"got {got[i] if i < len(got) else 'nothing'}"))
    return oks, []


def setup_for(out: Path, keys: list[int], claimed: list[int] | None = None, name: str = "keysbox",
              model=sbox) -> CheckSetup:
    """A check of the built design ``name``: per key 6 bytes; the group's parameter value is
    ``claimed`` (default: the key the expected outputs use)."""
    b = load_build(out)
    design = replace(resolve(str(DATA / f"{name}.v"), None, [], None), handshake=HANDSHAKE)
    cases, groups = [], []
    for g, k in enumerate(keys):
        idx = []
        for j in range(6):
            x = (37 * g + 91 * j + 5) & 0xFF
            idx.append(len(cases))
            cases.append((k, x, model(x, k)))
        groups.append(({"key": (claimed or keys)[g]}, idx))
    return CheckSetup(b, design, DesignCheck(cases, groups, lambda c: f"{c[1]:02x}", run_items))


def test_build_writes_chains_loader_and_report(built):
    rep = json.loads((built / "report.json").read_text())
    bj = json.loads((built / "build.json").read_text())
    lay = json.loads((built / "cfglut.json").read_text())
    assert bj["tlut"] == "cfglut5" and "cfglut.json" in bj["files"] and "cfglut/top.v" in bj["files"]
    regs = lay["registers"]
    cells = [c for ch in lay["chains"] for c in ch if c not in regs]
    bits = [m for ms in regs.values() for m in ms]
    assert rep["cfglut"]["cfglut5"] == len(cells) == rep["tlut"]["tluts"] > 0
    assert rep["cfglut"]["param_bits"] == len(bits) > 0 and rep["cfglut"]["registers"] == len(regs)
    assert lay["chain_luts"] == 3 and all(len(ch) <= 3 for ch in lay["chains"])
    assert rep["cfglut"]["shift_cycles"] == 32 * 3 + 2
    core = (built / "cfglut" / "core.v").read_text()
    assert core.count("CFGLUT5 #(") == len(cells)
    assert core.count("(.C(dcs_cfg_clk), .CE(dcs_cfg_ce), .R(1'b0)") == len(bits)      # shifted by the loader
    tmap = json.loads((built / "tmap" / "netlist.json").read_text())
    assert tmap["tlut_k"] == 5 and all(len(t["inputs"]) <= 5 for t in tmap["luts"] if "ppc" in t)
    # every parameter bit is a TLUT without inputs in TMAP's netlist, a flip-flop in the template
    assert len(bits) == sum(1 for t in tmap["luts"] if "ppc" in t and not t["inputs"])
    tpl = json.loads((built / "template.json").read_text())["modules"][bj["top"]]["cells"]
    assert all(tpl[m]["type"] == "FDRE" and "dcs_pbit" in tpl[m]["attributes"] for m in bits)


def test_check_loads_two_keys_per_run(built):
    """Keys in pairs: the first through the loader before any item, the second after the first key's
    six items have started; every output byte as the Python model says."""
    res = check_cfglut(setup_for(built, [0x3C, 0xA5, 0x00]), progress=False, jobs=2)
    assert (res.passed, res.total) == (18, 18), res.failures


def test_check_fails_with_the_wrong_key(built):
    """The second key of a pair claimed to be another one: its items fail, the first key's pass."""
    setup = setup_for(built, [0x3C, 0xA5], claimed=[0x3C, 0xA4])
    differ = [sbox(x, 0xA4) != want for _, x, want in setup.vectors[6:]]
    assert any(differ)
    res = check_cfglut(setup, progress=False, jobs=1)
    assert [c[1] for c in res.cases] == [True] * 6 + [not d for d in differ]


def test_runtime_words_load_the_ppc_inits(built):
    """The words computed for a key put into every CFGLUT5 the TLUT's truth table the PPC gives
    (entries repeated over the unused inputs)."""
    from dcsflow.flow.specialize import tlut_values

    b = load_build(built)
    lay = b.cfglut_layout
    entries = {c: len(e) for c, e in b.tlut_entries.items()}
    inits = tlut_values(b, [{"key": 0x5A}])[0]
    back = inits_from_words(lay.chains, lay.words_for(inits, entries))
    regs = lay.register_map
    assert regs and lay.cfglut5s, "keysbox has both kinds of element"
    for cell, v in back.items():
        if cell in regs:             # a parameter bit per flip-flop, FF_b at bit b
            assert all(((v >> b) & 1) == inits[m] for b, m in enumerate(regs[cell])), cell
            continue
        n = entries[cell]
        assert all(((v >> a) & 1) == ((inits[cell] >> (a % n)) & 1) for a in range(32)), cell


def test_design_hash_and_option_refusals(tmp_path):
    d = resolve(str(DATA / "keysbox.v"), None, [], None)
    frames = design_hash(d, "keysbox", ["key"])
    assert frames == design_hash(d, "keysbox", ["key"], tlut=("frames", None))
    assert design_hash(d, "keysbox", ["key"], tlut=("cfglut5", 4)) not in (frames, design_hash(d, "keysbox", ["key"], tlut=("cfglut5", 3)))
    with pytest.raises(BuildError, match="--chain-luts needs --tlut cfglut5"):
        build(BuildOptions(design=str(DATA / "keysbox.v"), out=tmp_path / "x", progress=False, chain_luts=3))
    with pytest.raises(BuildError, match="--tlut-pairs needs --tlut frames"):
        build(BuildOptions(design=str(DATA / "keysbox.v"), out=tmp_path / "y", progress=False, tlut="cfglut5",
                           tlut_pairs=True))
    with pytest.raises(BuildError, match="TLUT realization must be one of"):
        build(BuildOptions(design=str(DATA / "keysbox.v"), out=tmp_path / "z", progress=False, tlut="luts"))
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_param_in_loader_computes_the_words_in_logic(built_xor):
    """keyxor's PPC has no AND node: the keys' raw parameter words go over AXI4-Lite into the
    generated parameter generator, which streams the chain words into the loader; the generator's
    LUT cost is in the report; a wrongly claimed second key fails its items."""
    rep = json.loads((built_xor / "report.json").read_text())
    pil = rep["cfglut"]["param_in_loader"]
    assert pil["param_words"] == 1 and pil["luts"] > 0
    assert "cfglut/dcs_cfglut_param.v" in json.loads((built_xor / "build.json").read_text())["files"]
    res = check_cfglut(setup_for(built_xor, [0x3C, 0xA5, 0x5A], name="keyxor", model=rotxor), progress=False,
                       jobs=2, param_in_loader=True)
    assert (res.passed, res.total) == (18, 18), res.failures
    bad = check_cfglut(setup_for(built_xor, [0x3C, 0xA5], claimed=[0x3C, 0xA4], name="keyxor", model=rotxor),
                       progress=False, jobs=1, param_in_loader=True)
    assert [c[1] for c in bad.cases] == [True] * 6 + [False] * 6


def test_build_without_cfglut5_says_it_is_the_conventional_circuit(built_xor, built):
    """keyxor XORs each of the 8 key bits into one data bit: every TLUT reads one key bit, so the
    cfglut5 build has no CFGLUT5, 8 parameter-bit flip-flops (one 32-bit register: 1 AXI4-Lite
    write) and says so; keysbox's S-box TLUTs stay CFGLUT5s, and its line (if any) does not."""
    rep = json.loads((built_xor / "report.json").read_text())
    cf = rep["cfglut"]
    assert (cf["cfglut5"], cf["param_bits"], cf["param_bit_luts"]) == (0, 8, 8)
    assert rep["verdict"]["pays"] is False
    assert rep["verdict"]["line"].startswith(
        "specialization does not pay here: the cfglut5 build has no CFGLUT5: each of its 8 TLUTs reads one "
        "parameter function and became a static LUT on a parameter-bit flip-flop, so the build is the conventional "
        f"circuit with a shift-loaded key register (8 parameter bits; {cf['words']} chain words per rekey through "
        "the loader, where a register written over AXI4-Lite takes 1 write); the conventional build with such a "
        "register, or `--tlut frames`, is the cheaper way")
    mixed = json.loads((built / "report.json").read_text())
    assert mixed["cfglut"]["cfglut5"] > 0 and 0 < mixed["cfglut"]["param_bit_luts"]
    assert "has no CFGLUT5" not in (mixed["verdict"]["line"] or "")


def test_param_in_loader_refused_with_and_nodes(built):
    from dcsflow.flow.design import CheckError

    with pytest.raises(CheckError, match="AND nodes"):
        check_cfglut(setup_for(built, [1]), progress=False, param_in_loader=True)


@pytest.mark.parametrize("which", ["built", "built_xor"])
def test_generated_top_elaborates(which, request, tmp_path):
    """Yosys reads cfglut/top.v with the build's other cfglut/*.v files and finds every module
    (CFGLUT5 from its Xilinx library), the loader's parameters those of cfglut.json."""
    import subprocess

    from dcsflow.flow.yosys import datdir, yosys_binary

    out = request.getfixturevalue(which)
    top = json.loads((out / "report.json").read_text())["top"] + "_cfglut"
    files = " ".join(str(p) for p in sorted((out / "cfglut").glob("*.v")))
    r = subprocess.run([yosys_binary(), "-p", f"read_verilog -lib {datdir()}/xilinx/cells_sim.v; read_verilog {files}; "
                        f"hierarchy -check -top {top}"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-2000:]
    lay = json.loads((out / "cfglut.json").read_text())
    assert f"Parameter \\CHAINS = {len(lay['chains'])}" in r.stdout


def test_default_chain_length_needs_the_fewest_words():
    """The default chain length: no length of at most 4 CFGLUT5s (a shift within 1.3 us at 100 MHz)
    needs fewer chain words (32 chains per word, 32 words per CFGLUT5 of the longest chain)."""
    from dcsflow.flow.cfglut import choose_chain_luts

    def words(n, length):
        chains = -(-n // length)
        return -(-chains // 32) * 32 * length

    for n in range(1, 400):
        got = choose_chain_luts(n)
        assert 1 <= got <= 4 and words(n, got) == min(words(n, x) for x in range(1, 5)), n
    assert (choose_chain_luts(174), words(174, 3)) == (3, 192)


def test_a_tlut_wider_than_a_cfglut5_is_refused():
    """A template whose TLUT has six inputs (a mapper that ignored the TLUT size) cannot be chained:
    one line naming the cell."""
    from dcsflow.flow.cfglut import CfglutBuildError, tlut_cells

    cell = {"type": "LUT6", "attributes": {"dcs_tlut": "1", "dcs_ppc": "0"}, "connections": {}}
    module = {"cells": {"ok": dict(cell, type="LUT5"), "wide": cell}}
    with pytest.raises(CfglutBuildError, match=r"TLUT wide is a LUT6: a CFGLUT5 has at most 5 inputs"):
        tlut_cells(module)
    assert tlut_cells({"cells": {"ok": dict(cell, type="LUT5")}}) == ["ok"]


def test_loader_cost_leaves_the_core_out(built, tmp_path):
    """The loader's cost (flow.cfglut.loader_cost) is what cfglut/top.v adds around the core: with
    the core a black box none of its CFGLUT5s is counted; read whole, all of them are."""
    from dcsflow.flow.cfglut import loader_cost

    top = json.loads((built / "build.json").read_text())["top"]
    lay = json.loads((built / "cfglut.json").read_text())
    n = sum(1 for c in lay["chains"] for e in c if e not in lay["registers"])
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    cost = loader_cost(built, top, tmp_path / "a")
    full = loader_cost(built, top, tmp_path / "b", with_core=True)
    assert cost["cfglut5"] == 0 and cost["luts"] > 0 and cost["ffs"] > 0
    assert full["cfglut5"] == n > 0 and full["ffs"] > cost["ffs"]
