"""VHDL input (flow.vhdl): the port-clause scanner, GHDL errors, and four VHDL designs built through
``dcsflow build`` (frontend → tmap → verify → backend → outputs) whose specialized netlists are
simulated by Icarus against Python models of the designs for random parameter values.

Independent references: the Python models below (written from the designs' specifications in
their header comments), GHDL's and Icarus's own semantics; the conventional netlist (no TMAP) is
simulated beside the specialized TLUT netlist with the same values.
"""

from __future__ import annotations

import json
import random
import subprocess
import zlib
from pathlib import Path

import pytest

from dcsflow.flow import netlist as nl
from dcsflow.flow.baselines import CANDIDATES
from dcsflow.flow.specialize import load_build, specialized_verilog
from dcsflow.flow.vhdl import VhdlError, ghdl_error, prepare, scan, tokenize
from dcsflow.scg.buildfolder import BUILD_FORMAT, STAGE_FORMAT
from dcsflow.flow.yosys import cells_sim

DATA = Path(__file__).parent / "data" / "vhdl"


# ------------------------------------------------------------------------------------ scanner

SCAN_SRC = """\
library ieee; use ieee.std_logic_1164.all;
entity Top_E is
  generic (W : natural := 4);
  port (
    signal A, b : in std_logic_vector(W-1 downto 0) := (others => '0'); -- param: two on one line
    clk : in std_logic;  -- clock, not a parameter
    Key : in std_logic_vector(7 downto 0);
    mask : in std_logic_vector(7 downto 0);
    y   : out std_logic_vector(W'high downto 0)    --PARAM-like, not a mark; -- PARAM not at the start
  );
  Attribute param : string;
  ATTRIBUTE Param OF key : SIGNAL IS "true";
  attribute PARAM of mask : signal is false;
end entity;
architecture r of top_e is begin y <= a; end;
"""


def test_scanner_ports_and_marks(tmp_path):
    (ent,) = scan(tmp_path / "t.vhd", SCAN_SRC)
    assert ent.name == "Top_E" and ent.line == 2
    assert [(p.name, p.mode) for p in ent.ports] == [("A", "in"), ("b", "in"), ("clk", "in"), ("Key", "in"),
                                                     ("mask", "in"), ("y", "out")]
    assert ent.marked == {"A": "comment", "b": "comment", "Key": "attribute"}
    # the PARAM attribute's declaration and specifications are blanked for GHDL, nothing else
    blanked = [SCAN_SRC[a:b] for a, b in ent.spans]
    assert blanked == ["Attribute param : string;", 'ATTRIBUTE Param OF key : SIGNAL IS "true";',
                       "attribute PARAM of mask : signal is false;"]


def test_scanner_tick_and_char_literal():
    toks, lines = tokenize("x <= '0' when s'event and a(1)'length = 2; -- Param\n")
    texts = [t.text for t in toks]
    assert "'0'" in texts and texts.count("'") == 2 and lines == {1}


def test_prepare_top_and_param_names(tmp_path):
    f = tmp_path / "t.vhd"
    f.write_text(SCAN_SRC)
    vt = prepare([f], "TOP_E", ["CLK", "key"])
    assert vt.top == "Top_E" and vt.params == ["A", "b", "clk", "Key"]
    assert vt.marked == {"A": "comment", "b": "comment", "clk": "--param", "Key": "attribute"}
    with pytest.raises(VhdlError, match=r"--param y: no input port .* input ports: A, b, clk, Key, mask"):
        prepare([f], None, ["y"])


@pytest.mark.parametrize("src, msg", [
    ("entity e is port (a : in bit; y : out bit); --PARAM\nend;", r"t.vhd:1: --PARAM marks out port y"),
    ("entity e is port (a : in bit; y : out bit);\nattribute PARAM : boolean;\n"
     "attribute PARAM of y : signal is true;\nend;", r"t.vhd:3: attribute PARAM of y: out port"),
    ("entity e is port (a : in bit);\nattribute PARAM : boolean;\nattribute PARAM of k : signal is true;\nend;",
     r"t.vhd:3: attribute PARAM of k: entity e has no port k; ports: a"),
    ("package p is end package;", r"no entity declared"),
    ("  \n\n", r"t.vhd: empty VHDL file"),
])
def test_prepare_bad_marks(tmp_path, src, msg):
    f = tmp_path / "t.vhd"
    f.write_text(src)
    with pytest.raises(VhdlError, match=msg):
        prepare([f], None, [])


def test_ghdl_error_line():
    out = ("src/1/a.vhd:3:9:warning: declaration of \"x\" hides signal \"x\"\n"
           "src/1/a.vhd:7:12:error: no declaration for \"b\"\n/usr/bin/ghdl-mcode: compilation error\n")
    assert ghdl_error(out, {"src/1/a.vhd": "rtl/a.vhd"}) == 'rtl/a.vhd:7:12: no declaration for "b"'
    assert ghdl_error("/usr/bin/ghdl-mcode: cannot find entity or configuration t\n", {}) == \
        "cannot find entity or configuration t"
    crash = ("******************** GHDL Bug occurred ***************************\n"
             "Exception ADA.ASSERTIONS.ASSERTION_ERROR raised\n"
             "raised ADA.ASSERTIONS.ASSERTION_ERROR : synth-vhdl_decls.adb:224\n")
    assert ghdl_error(crash, {}).startswith("GHDL crashed (internal error synth-vhdl_decls.adb:224)")


# ------------------------------------------------------------------------------------ bad input (CLI)

#: files that make a build folder look complete or resumable: the manifest, the report, stage records
COMPLETE_MARKERS = ("build.json", "report.json", "stages/frontend.json", "stages/backend.json")


def _no_complete_build(out: Path) -> bool:
    return not any((out / n).exists() for n in COMPLETE_MARKERS)


BAD = {
    "syntax.vhd": ("library ieee;\nuse ieee.std_logic_1164.all;\nentity s is\n"
                   "  port (a : in std_logic; y : out std_logic)\nend;\n"
                   "architecture r of s is begin y <= a; end;\n"),
    "undecl.vhd": "entity u is\n  port (a : in bit; y : out bit);\nend;\narchitecture r of u is begin y <= b; end;\n",
    "empty.vhd": "",
}


@pytest.mark.parametrize("args, msg", [
    (["syntax.vhd"], 'syntax.vhd:4:45: missing ";" at end of port clause'),
    (["undecl.vhd"], 'undecl.vhd:4:35: no declaration for "b"'),
    (["empty.vhd"], "empty.vhd: empty VHDL file"),
    ([DATA / "tcam.vhd", "--top", "tcam2"], "--top tcam2: no entity of that name; entities: tcam"),
    ([DATA / "tcam.vhd", "--param", "kee"], "--param kee: no input port of that name in entity tcam; "
                                             "input ports: key, words, masks"),
    ([DATA / "dna_match.vhd"], 'dna_match.vhd:7:10: unit "dna_pkg" not found in library "work"'),
])
def test_cli_bad_input_one_line(dcsflow, tmp_path, args, msg):
    for name, text in BAD.items():
        (tmp_path / name).write_text(text)
    out = tmp_path / "b"
    # a complete earlier build in the folder (its records name their formats, so the folder is taken for
    # a build folder) must not survive a failed rebuild looking complete
    (out / "stages").mkdir(parents=True)
    for n in COMPLETE_MARKERS:
        fmt = BUILD_FORMAT if n == "build.json" else STAGE_FORMAT if n.startswith("stages/") else "dcsflow-report"
        (out / n).write_text(json.dumps({"format": fmt}))
    r = dcsflow("build", *[tmp_path / a if str(a).endswith(".vhd") and "/" not in str(a) else a for a in args],
                "--out", out, "--quiet")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and msg in lines[0], r.stderr
    assert _no_complete_build(out)


# ------------------------------------------------------------------------------------ designs

def _mul8(rng):
    return {"C": rng.getrandbits(8)}


def _mul8_vectors(rng, pv, n):
    ins = [{"x": rng.getrandbits(8)} for _ in range(n)]
    return ins, [{"p": i["x"] * pv["C"]} for i in ins]


def _tcam(rng):
    return {"words": rng.getrandbits(24), "masks": rng.getrandbits(24)}


def _tcam_model(key, pv):
    hit = 0
    for i in range(4):
        w, m = (pv["words"] >> 6 * i) & 63, (pv["masks"] >> 6 * i) & 63
        hit |= (((key ^ w) & m) == 0) << i
    idx = next((i for i in range(4) if hit >> i & 1), 3)
    return {"hit": hit, "idx": idx, "valid": int(hit != 0)}


def _tcam_vectors(rng, pv, n):
    keys = []
    for t in range(n):
        if t % 2:     # a stored word with its don't-care bits random: a hit
            i = rng.randrange(4)
            w, m = (pv["words"] >> 6 * i) & 63, (pv["masks"] >> 6 * i) & 63
            keys.append((w & m) | (rng.getrandbits(6) & ~m & 63))
        else:
            keys.append(rng.getrandbits(6))
    return [{"key": k} for k in keys], [_tcam_model(k, pv) for k in keys]


def _rom(rng):
    return {"contents": rng.getrandbits(64)}


def _rom_vectors(rng, pv, n):
    ins = [{"addr": rng.getrandbits(4)} for _ in range(n)]
    # registered output: before clock edge t it holds the word addressed at edge t-1
    exp = [None] + [{"data": (pv["contents"] >> 4 * i["addr"]) & 15} for i in ins[:-1]]
    return ins, exp


def _dna(rng):
    return {"query": rng.getrandbits(12)}


def _dna_vectors(rng, pv, n):
    q = [(pv["query"] >> 2 * i) & 3 for i in range(6)]
    bases = []
    while len(bases) < n:       # random bases with the query (oldest base first) now and then
        bases += q[::-1] if rng.random() < 0.3 else [rng.getrandbits(2)]
    bases = bases[:n]
    exp = []
    for t in range(n):
        if t < 6:               # window not yet filled by the input (initial value untested)
            exp.append(None)
            continue
        win = bases[t - 6:t][::-1]           # position 0 = newest base
        cnt = sum(win[i] == q[i] for i in range(6))
        exp.append({"count": cnt, "match": int(cnt == 6)})
    return [{"base": b} for b in bases], exp


# name: (files, extra CLI arguments, parameter ports and how they are marked, parameters, vectors)
DESIGNS = {
    "Mul8": (["mul8.vhd"], ["--top", "MUL8"], {"C": "attribute"}, _mul8, _mul8_vectors),
    "tcam": (["tcam.vhd"], [], {"words": "comment", "masks": "comment"}, _tcam, _tcam_vectors),
    "rom16x4": (["rom.vhd"], ["--param", "CONTENTS"], {"contents": "--param"}, _rom, _rom_vectors),
    "dna_match": (["dna_pkg.vhd", "dna_match.vhd"], ["--top", "dna_match"], {"query": "comment"}, _dna,
                  _dna_vectors),
}


def _testbench(module: dict, insts: list[tuple[str, dict]], vectors: list[tuple[dict, list]]) -> str:
    """Icarus test bench: every instance gets the same regular inputs; before each rising clock edge
    every instance's outputs are compared with its expected values (None: not checked)."""
    ports = module["ports"]
    ins = [n for n, p in ports.items() if p["direction"] == "input"]
    outs = [n for n, p in ports.items() if p["direction"] == "output"]
    w = {n: len(p["bits"]) for n, p in ports.items()}
    lines = ["`timescale 1ns/1ps", "module tb;", "  reg clk = 0;", "  integer bad = 0, checks = 0;"]
    regs = [n for n in ins if n != "clk"]
    lines += [f"  reg [{w[n] - 1}:0] {n} = 0;" for n in regs]
    for k, (mod, pv) in enumerate(insts):
        lines += [f"  wire [{w[o] - 1}:0] o{k}_{o};" for o in outs]
        conns = [f".{n}({n if n not in pv else f'{w[n]}' + chr(39) + f'h{pv[n]:x}'})" for n in ins]
        conns += [f".{o}(o{k}_{o})" for o in outs]
        lines.append(f"  {mod} u{k} ({', '.join(conns)});")
    lines.append("  initial begin")
    for t, (iv, exps) in enumerate(vectors):
        lines.append("    " + " ".join(f"{n} = {w[n]}'h{v:x};" for n, v in iv.items()) + " #1;")
        for k, e in enumerate(exps):
            for o, v in (e or {}).items():
                lines.append(f"    checks = checks + 1; if (o{k}_{o} !== {w[o]}'h{v:x}) begin bad = bad + 1; "
                             f"if (bad < 4) $display(\"MISMATCH t={t} u{k} {o} %h\", o{k}_{o}); end")
        lines.append("    clk = 1; #1 clk = 0;")
    lines += ['    $display("BAD %0d CHECKS %0d", bad, checks); $finish;', "  end", "endmodule"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", list(DESIGNS))
def test_vhdl_design_built_proved_simulated(dcsflow, tmp_path, name):
    """dcsflow build (all stages) of a VHDL design; the verify stage's proof; Icarus: specialized
    TLUT netlists (parameter ports unconnected) and the conventional netlist == Python model."""
    files, args, marked, gen, vec = DESIGNS[name]
    out = tmp_path / "b"
    # the candidates on the design's own variant: the test bench below drives the chosen one's
    # parameter ports directly, which a register form replaces by its load port (the register forms
    # are simulated in tests/test_loadreg.py)
    r = dcsflow("build", *[DATA / f for f in files], *args, "--out", out, "--quiet", "--baselines", ",".join(CANDIDATES))
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["top"] == name and rep["vhdl"]["params"] == marked
    assert rep["vhdl"]["ghdl"].startswith("GHDL ") and (out / rep["vhdl"]["verilog"]).exists()
    assert set(rep["params"]) == set(marked)
    assert rep["verify"]["equal"] is True and rep["verify"]["abc_cec"] is True
    assert rep["tlut"]["tluts"] > 0
    sr = rep["tlut"]["static_remap"]             # the re-mapping's record; the simulation below
    conv_depth = min(c["depth"] for c in rep["baselines"].values())    # checks the netlist used
    assert sr["bound"] == max(sr["depth_before"], conv_depth)
    if sr["result"] == "kept":
        assert rep["tlut"]["luts"] == sr["luts_after"] < sr["luts_before"] and sr["proved"] is True
    assert rep["tlut"]["depth"] <= sr["bound"]

    b = load_build(out)
    rng = random.Random(zlib.crc32(name.encode()))
    insts, per_inst = [], []
    for k in range(3):
        pv = gen(rng)
        (tmp_path / f"spec{k}.v").write_text(specialized_verilog(b, pv, f"spec{k}"))
        insts += [(f"spec{k}", {n: 0 for n in marked}), ("conv", pv)]
        per_inst += [pv, pv]
    chosen = json.loads((out / "report.json").read_text())["conventional"]["baseline"]
    conv = json.loads((out / "baselines" / chosen / "netlist.json").read_text())["modules"][name]
    (tmp_path / "conv.v").write_text(nl.write_verilog(conv, "conv"))
    n = 60
    vin = [vec(rng, per_inst[k], n) for k in range(0, len(insts), 2)]
    # one input stream per parameter value, run one after the other; other instances unchecked then
    vectors = []
    for j, (ins, exp) in enumerate(vin):
        for t in range(n):
            vectors.append((ins[t], [exp[t] if k // 2 == j else None for k in range(len(insts))]))
    (tmp_path / "tb.v").write_text(_testbench(b.module, insts, vectors))
    exe = tmp_path / "sim.vvp"
    srcs = [tmp_path / "tb.v", tmp_path / "conv.v", *[tmp_path / f"spec{k}.v" for k in range(3)]]
    subprocess.run(["iverilog", "-g2012", "-o", str(exe), *map(str, srcs), str(cells_sim())],
                   check=True, capture_output=True, text=True)
    res = subprocess.run(["vvp", "-n", str(exe)], check=True, capture_output=True, text=True).stdout
    expected_checks = 2 * sum(len(e) for _, exp in vin for e in exp if e)
    assert f"BAD 0 CHECKS {expected_checks}" in res, res


def test_no_static_remap_keeps_tmaps_netlist(dcsflow, tmp_path):
    """--no-static-remap: no re-mapping record, no re-mapped LUT in the netlist used, cause 0
    (dna_match's static logic is re-mapped by default: test_vhdl_design_built_proved_simulated)."""
    out = tmp_path / "b"
    r = dcsflow("build", DATA / "dna_pkg.vhd", DATA / "dna_match.vhd", "--top", "dna_match", "--out", out,
                "--no-static-remap", "--baselines", "yosys-abc", "--no-frontend-check", "--quiet")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["tlut"]["static_remap"] is None
    assert {b["cause"]: b["luts"] for b in rep["savings"]["breakdown"]}["static_remap"] == 0
    net = json.loads((out / "tmap" / "netlist.json").read_text())
    assert not any(lut["name"].startswith("sr$") for lut in net["luts"])
