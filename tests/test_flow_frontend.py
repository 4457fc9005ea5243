"""Front end: Yosys continuation, extraction, parameter registers, TLUT re-import, specialization.

Independent references: plain ``synth_xilinx`` (Yosys), the RTL simulated by Icarus, the naive
one-LUT-per-AND mapper in tests/_naive_mapper.py.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from dcsflow.flow import frontend as fe
from dcsflow.flow.errors import FlowError
from dcsflow.flow import netlist as nl
from dcsflow.flow.build import BuildError, BuildOptions, build
from dcsflow.flow.netsim import simulate_netlist
from dcsflow.flow.specialize import load_build, specialized_verilog
from dcsflow.flow.yosys import cells_sim, run_script

DATA = Path(__file__).parent / "data" / "flow"


@pytest.fixture(scope="module")
def keyxor_build(tmp_path_factory):
    """One keyxor build shared by all xdist workers of the session (built once, under a file lock)."""
    import fcntl

    root = tmp_path_factory.getbasetemp()
    if root.name.startswith("popen-gw"):
        root = root.parent
    out = root / "keyxor_build"
    with open(root / "keyxor_build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "build.json").exists():
            build(BuildOptions(design=str(DATA / "keyxor.v"), out=out, progress=False))
    return out, json.loads((out / "report.json").read_text())


def test_continuation_reproduces_plain_synth_xilinx(keyxor_build, tmp_path):
    """docs/architecture.md, "Front end": pre.json + abc + remaining map_luts commands + finalize == synth_xilinx.

    The conventional build is exactly that continuation (frontend/pre_conventional.json + abc -luts).
    The reference is one synth_xilinx run with the conventional front end's only insertion: keyxor's
    parameter multiplier kept out of DSP inference (flow.param_arith.soft_mul_commands; a 4x4
    multiplier is soft logic in synth_xilinx anyway) between ``prepare`` and ``map_dsp``."""
    from dcsflow.flow.param_arith import param_wire_selection, soft_mul_commands

    src = DATA / "keyxor.v"
    out, _ = keyxor_build
    plain = ([f'read_verilog "{src}"', "synth_xilinx -flatten -top keyxor -run :map_dsp"]
             + soft_mul_commands(param_wire_selection())
             + ["synth_xilinx -flatten -top keyxor -run map_dsp:", "write_json plain.json"])
    run_script("\n".join(plain) + "\n", tmp_path, "plain")
    a = json.loads((out / "baselines" / "yosys-abc" / "post.json").read_text())["modules"]["keyxor"]["cells"]
    b = json.loads((tmp_path / "plain.json").read_text())["modules"]["keyxor"]["cells"]

    def sig(cells):
        return Counter((c["type"], json.dumps(c.get("parameters", {}), sort_keys=True)) for c in cells.values())

    assert sig(a) == sig(b)
    assert any(t == "CARRY4" for t, _ in sig(a))


def test_extraction_marks_params_and_folds_key_buffer(keyxor_build, tmp_path):
    out, _ = keyxor_build
    pre = json.loads((out / "frontend" / "pre.json").read_text())
    ext, module = fe.extract_logic(pre, "keyxor", [], tmp_path)
    assert ext.param_ports == {"key": 8}
    assert [n for n, _ in ext.params] == [f"key[{i}]" for i in range(8)]
    assert len(ext.folded) == 8                       # the key buffer kb[7:0]
    # no FF of the folded module reads a parameter register any more
    assert sum(1 for c in module["cells"].values() if "DFF" in c["type"]) == 8


@pytest.fixture(scope="module")
def mul4_frontend(tmp_path_factory):
    """mul4 built up to the frontend stage, c named a parameter with --param."""
    out = tmp_path_factory.mktemp("mul4") / "b"
    build(BuildOptions(design=str(DATA / "mul4.v"), out=out, params=["c"], stop="frontend", progress=False))
    return out


@pytest.fixture(scope="module")
def mul4_pre(mul4_frontend):
    return json.loads((mul4_frontend / "frontend" / "pre.json").read_text())


def test_unknown_param_lists_ports(mul4_pre, tmp_path):
    with pytest.raises(fe.FrontendError, match=r"input ports: x, c"):
        fe.extract_logic(mul4_pre, "mul4", ["k"], tmp_path)


def test_naive_mapper_roundtrip_matches_aig(mul4_pre, tmp_path):
    """Extraction + a second mapper + the independent netlist evaluator agree with the AIG."""
    from tests._naive_mapper import naive_mapper
    from dcsflow.aig import read_aiger

    ext, module = fe.extract_logic(mul4_pre, "mul4", ["c"], tmp_path)
    mo = naive_mapper(tmp_path / "logic.aag", [n for n, _ in ext.params], tmp_path / "m")
    src = read_aiger(str(tmp_path / "logic.aag"))
    ppc = read_aiger(str(mo.ppc_path))
    rng = random.Random(1)
    iv = {n: rng.getrandbits(64) for n in src.input_names}
    got = simulate_netlist(mo.netlist, ppc.simulate({n: iv[n] for n in ppc.input_names}, 64),
                           {n: iv[n] for n in mo.netlist["inputs"]}, 64)
    assert [got[n] for n in src.output_names] == src.simulate(iv, 64)
    # x*c: every output depends on the parameter, so the naive mapping has TLUTs
    assert any("ppc" in lut for lut in mo.netlist["luts"])


def test_keyxor_build_report(keyxor_build):
    out, rep = keyxor_build
    t, c = rep["tlut"], rep["conventional"]
    assert t["tluts"] > 0 and c["tluts"] == 0
    assert rep["parameter_registers_folded"] == 8
    assert t["ffs"] == c["ffs"] - 8                   # the key buffer disappeared
    assert t["luts"] + t["ffs"] < c["luts"] + c["ffs"]
    # the same TMAP run with the key as an ordinary input needs more LUTs (the multiplier by a
    # parameter and the key XOR collapse into TLUTs only when the key is a parameter input)
    assert t["tmap_no_param_luts"] > t["tmap_luts"]
    # TMAP's notes reach the report; a PPC this small is optimized (no skip / timeout note)
    assert isinstance(t["tmap_notes"], list) and not any("PPC optimization" in n for n in t["tmap_notes"])
    assert rep["verify"]["equal"] and rep["verify"]["abc_cec"] is True
    # TLUTs are LUT cells with PPC entries for every INIT bit (2^k), k = number of connected inputs
    b = load_build(out)
    for cell, ent in b.tlut_entries.items():
        cd = b.module["cells"][cell]
        k = int(cd["type"][3:])
        assert len(ent) == 1 << k and set(cd["connections"]) == {f"I{j}" for j in range(k)} | {"O"}
    assert not any(c["type"].startswith("DCS_") for c in b.module["cells"].values())


def _run_iverilog(tmp_path: Path, files: list[Path]) -> str:
    exe = tmp_path / "sim.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(exe), *map(str, files), str(cells_sim())],
                   check=True, capture_output=True, text=True)
    return subprocess.run(["vvp", "-n", str(exe)], check=True, capture_output=True, text=True).stdout


TB = """
`timescale 1ns/1ps
module tb;
  reg clk = 0, load = 1; reg [7:0] key = 8'h%(key)s; reg [7:0] d = 0;
  reg [31:0] ld = 0; reg [15:0] la = 0; reg lwe = 0;
  wire [7:0] q_r, q_s, q_c, m_r, m_s, m_c;
  keyxor rtl (.clk(clk), .load(load), .key(key), .d(d), .q(q_r), .m(m_r));
  keyxor_spec spec (.clk(clk), .load(1'b0), .key(8'h00), .d(d), .q(q_s), .m(m_s));
  keyxor_conv conv (.clk(clk), .load(load), %(conv_key)s, .d(d), .q(q_c), .m(m_c));
  integer i, bad = 0;
  initial begin
%(load_words)s    lwe = 0;
    #1 clk = 1; #1 clk = 0; load = 0;
    for (i = 0; i < 300; i = i + 1) begin
      d = $random; #1 clk = 1; #1 clk = 0; #1;
      if (q_r !== q_s || m_r !== m_s || q_r !== q_c || m_r !== m_c) bad = bad + 1;
    end
    $display("BAD %%0d", bad); $finish;
  end
endmodule
"""


@pytest.mark.parametrize("key", [0x00, 0xA5, 0x3C])
def test_specialized_netlist_simulates_like_rtl(keyxor_build, tmp_path, key):
    """Icarus: RTL (with its key buffer loaded) == specialized TLUT netlist == every conventional
    candidate's netlist (Yosys/ABC, TMAP and ABC without parameters; on the register forms with the
    register written through the load port first, the values from the form's load map)."""
    from dcsflow.flow.baselines import ALL_CANDIDATES, split_name
    from dcsflow.flow.loadreg import load_values, read_load_map

    out, rep = keyxor_build
    b = load_build(out)
    (tmp_path / "spec.v").write_text(specialized_verilog(b, {"key": key}, "keyxor_spec"))
    # keyxor's parameter-only logic is its key register alone: the precomputed form is the register form
    skipped = rep.get("baselines_skipped") or {}
    assert sorted([*rep["baselines"], *skipped]) == sorted(ALL_CANDIDATES)
    assert sorted(skipped) == sorted(n for n in ALL_CANDIDATES if n.endswith("@precomputed"))
    for name in rep["baselines"]:
        conv = json.loads((out / "baselines" / name / "netlist.json").read_text())["modules"]["keyxor"]
        (tmp_path / "conv.v").write_text(nl.write_verilog(conv, "keyxor_conv"))
        form = split_name(name)[1]
        if form is None:
            (tmp_path / "tb.v").write_text(TB % {"key": f"{key:02x}", "conv_key": ".key(key)", "load_words": ""})
        else:        # the register form: its register written through the load port before the run
            lm = read_load_map(out / "baselines" / f"@{form}")
            reg = load_values(out / "baselines" / f"@{form}", {"key": key})
            words = [sum(reg[i] << (i % 32) for i in range(w * 32, min(lm.bits, w * 32 + 32))) for w in range(lm.words)]
            port = (".dcs_load_data(ld), .dcs_load_we(lwe)"
                    + (f", .dcs_load_addr(la[{lm.addr_bits - 1}:0])" if lm.addr_bits else ""))
            (tmp_path / "tb.v").write_text(TB % {"key": f"{key:02x}", "conv_key": port, "load_words": "".join(
                f"    la = {w}; ld = 32'h{v:08x}; lwe = 1; #1 clk = 1; #1 clk = 0;\n" for w, v in enumerate(words))})
        res = _run_iverilog(tmp_path, [tmp_path / "tb.v", DATA / "keyxor.v", tmp_path / "spec.v", tmp_path / "conv.v"])
        assert "BAD 0" in res, name


@pytest.mark.parametrize("cand", ["abc-synch2@register", "yosys-abc@register"])
def test_a_register_forms_simulation_view_takes_the_parameter_ports(keyxor_build, tmp_path, cand):
    """The simulation view of a register form's candidate (its register held at the value of the
    parameter ports, flow.loadreg.simulation_view) behaves like the RTL for every key."""
    from dcsflow.flow.baselines import split_name
    from dcsflow.flow.loadreg import simulation_view

    out, rep = keyxor_build
    ports = json.loads((out / "frontend" / "pre.json").read_text())["modules"]["keyxor"]["ports"]
    mod = json.loads((out / "baselines" / cand / "netlist.json").read_text())["modules"]["keyxor"]
    view = simulation_view(mod, "keyxor", ports, out / "baselines" / f"@{split_name(cand)[1]}", name="keyxor_conv")
    (tmp_path / "conv.v").write_text(view)
    b = load_build(out)
    for key in (0x00, 0x5A, 0xC3):
        (tmp_path / "spec.v").write_text(specialized_verilog(b, {"key": key}, "keyxor_spec"))
        (tmp_path / "tb.v").write_text(TB % {"key": f"{key:02x}", "conv_key": ".key(key)", "load_words": ""})
        res = _run_iverilog(tmp_path, [tmp_path / "tb.v", DATA / "keyxor.v", tmp_path / "spec.v", tmp_path / "conv.v"])
        assert "BAD 0" in res, (cand, key)


def test_design_without_parameters_has_no_tluts(tmp_path):
    with pytest.raises(BuildError, match=r"^no parameter input in design noparam \(top \w+\): mark .* --allow-no-params"):
        build(BuildOptions(design=str(DATA / "noparam.v"), out=tmp_path / "a", progress=False))
    assert not (tmp_path / "a" / "build.json").exists() and not (tmp_path / "a" / "stages" / "frontend.json").exists()
    rep = build(BuildOptions(design=str(DATA / "noparam.v"), out=tmp_path / "b", progress=False,
                             allow_no_params=True)).report
    assert rep["tlut"]["tluts"] == 0 and rep["params"] == {}
    assert rep["tlut"]["ffs"] == rep["conventional"]["ffs"]


def test_stages_resume(mul4_frontend, tmp_path, capsys):
    import shutil

    out = tmp_path / "b"
    shutil.copytree(mul4_frontend, out)
    assert (out / "frontend" / "logic.aag").exists() and not (out / "tmap").exists()
    rep = build(BuildOptions(design=str(DATA / "mul4.v"), out=out, params=["c"], start="tmap", progress=False)).report
    assert rep["params"] == {"c": 4}
    # all of x*c is a function of x with c folded into the truth tables: only TLUTs remain
    assert rep["tlut"]["luts"] == rep["tlut"]["tluts"] > 0
    assert rep["tlut"]["luts"] < rep["conventional"]["luts"]
    # --from tmap after the --param list changed: the front end's record is stale, so the front end
    # runs again (one note) and the build has no parameter
    capsys.readouterr()
    rep = build(BuildOptions(design=str(DATA / "mul4.v"), out=out, params=[], start="tmap", progress=False,
                             allow_no_params=True)).report
    assert "changed since the frontend stage: running from the 'frontend' stage" in capsys.readouterr().err
    assert rep["params"] == {} and rep["tlut"]["tluts"] == 0


# ------------------------------------------------------------------------------- CLI, bad input

def test_cli_syntax_error_shows_yosys_file_line(dcsflow, tmp_path):
    r = dcsflow("build", DATA / "syntaxerr.v", "--out", tmp_path / "b", "--quiet")
    assert r.returncode == 1
    assert "syntaxerr.v:2" in r.stderr and "ERROR" in r.stderr and "Traceback" not in r.stderr


def test_cli_specialize_values_and_permissions(dcsflow, keyxor_build, tmp_path):
    out, _ = keyxor_build
    r = dcsflow("specialize", out, "--param", "key=1ff")
    assert r.returncode == 1 and "expected 8 bits" in r.stderr
    r = dcsflow("specialize", out, "--param", "key=zz")
    assert r.returncode == 1 and "not hex" in r.stderr and "8 bits" in r.stderr
    r = dcsflow("specialize", out, "--param", "kee=12")
    assert r.returncode == 1 and "key (8 bits)" in r.stderr
    f = tmp_path / "s.v"
    r = dcsflow("specialize", out, "--param", "key=a5", "--out", f)
    assert r.returncode == 0, r.stderr
    assert (f.stat().st_mode & 0o777) == 0o600 and "LUT" in f.read_text()
    # the parameter port stays declared (test benches connect unchanged), read by nothing, and said so
    text = f.read_text()
    assert "input [7:0] key;" in text
    assert "// parameter input key: kept as port so that test benches of the source connect unchanged" in text
    nets = re.findall(r"assign (n\d+) = key\[\d\];", text)      # the port's bits, as nets
    assert nets and all(len(re.findall(rf"\b{n}\b", text)) == 2 for n in nets), "a cell reads the parameter port"


def test_corrupted_or_mismatched_build_folder_is_refused(dcsflow, keyxor_build, tmp_path):
    import shutil

    from dcsflow.scg.buildfolder import sha256_file

    out, _ = keyxor_build
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    t = bad / "template.json"
    t.write_text(t.read_text().replace("LUT2", "LUT3", 1))
    r = dcsflow("specialize", bad, "--param", "key=00")
    assert r.returncode == 1 and "does not match build.json" in r.stderr
    # a PPC from another build, with build.json "fixed up": the netlist names a different PPC hash
    mm = tmp_path / "mm"
    shutil.copytree(out, mm)
    aig = mm / "ppc.aig"
    aig.write_bytes(aig.read_bytes() + b"c\nother\n")
    bj = json.loads((mm / "build.json").read_text())
    bj["files"]["ppc.aig"] = sha256_file(aig)
    (mm / "build.json").write_text(json.dumps(bj))
    r = dcsflow("specialize", mm, "--param", "key=00")
    assert r.returncode == 1 and "PPC hash does not match" in r.stderr
    r = dcsflow("check", tmp_path / "nothing")
    assert r.returncode == 1 and "Traceback" not in r.stderr


def ff(t, d, q, **kw):
    """A synthetic Yosys FF cell (clock on net 2)."""
    conns = {"C": [2], "D": [d], "Q": [q], **{k: [v] for k, v in kw.items()}}
    return {"type": t, "connections": conns, "port_directions": {**{k: "input" for k in conns}, "Q": "output"}}


def gate(t, y, **ins):
    """A synthetic Yosys gate cell driving net ``y``."""
    return {"type": t, "connections": {**{k: [v] for k, v in ins.items()}, "Y": [y]},
            "port_directions": {**{k: "input" for k in ins}, "Y": "output"}}


def test_parameter_register_rules(tmp_path):
    """Synthetic Yosys JSON: which FFs count as parameter registers."""
    cells = {
        "ibuf": {"type": "IBUF", "connections": {"I": [3], "O": [10]}, "port_directions": {"I": "input", "O": "output"}},
        "f_en": ff("$_DFFE_PP_", 10, 20, E=4),                    # D = param, enable: folded
        "f_rst": ff("$_SDFF_PP0_", 10, 21, R=5),                  # real reset: not a parameter register
        "mux": gate("$_MUX_", 30, A=22, B=10, S=4),
        "f_mux": ff("$_DFF_P_", 30, 22),                          # D = mux(Q, param): folded
        "f_port": ff("$_DFF_P_", 10, 23),                         # Q is an output port: kept
        "f_off": ff("$_DFFE_PP_", 10, 24, E="0"),                 # never loads: kept
        "x1": gate("$_XOR_", 40, A=20, B=6), "x2": gate("$_XOR_", 41, A=21, B=22), "x3": gate("$_AND_", 42, A=24, B=6),
        "obuf": {"type": "OBUF", "connections": {"I": [40], "O": [50]}, "port_directions": {"I": "input", "O": "output"}},
        "sink": ff("$_DFF_P_", 41, 51), "sink2": ff("$_DFF_P_", 42, 52),
    }
    ports = {"clk": {"direction": "input", "bits": [2]}, "k": {"direction": "input", "bits": [3]},
             "load": {"direction": "input", "bits": [4]}, "rst": {"direction": "input", "bits": [5]},
             "d": {"direction": "input", "bits": [6]}, "y": {"direction": "output", "bits": [50]},
             "kq": {"direction": "output", "bits": [23]}}
    mod = {"ports": ports, "cells": cells,
           "netnames": {"k": {"bits": [3], "attributes": {"PARAM": "00000000000000000000000000000001"}}}}
    ext, folded_mod = fe.extract_logic({"modules": {"t": mod}}, "t", [], tmp_path)
    assert sorted(ext.folded) == ["f_en", "f_mux"]
    assert set(folded_mod["cells"]) >= {"f_rst", "f_port", "f_off"}
    assert folded_mod["cells"]["x1"]["connections"]["A"] == [10]   # reads the parameter directly now
    assert [n for n, _ in ext.params] == ["k"]


def test_lut_cells_are_extracted(tmp_path):
    """A Yosys $lut (e.g. from cmp2lut) is logic for the mapper; its AIG has the same truth table."""
    from dcsflow.aig import read_aiger

    table = 0b1001_0110_1110_0001
    mod = {"ports": {"a": {"direction": "input", "bits": [2, 3, 4, 5]}, "y": {"direction": "output", "bits": [9]}},
           "cells": {"l": {"type": "$lut", "parameters": {"WIDTH": "00000000000000000000000000000100",
                                                           "LUT": format(table, "016b")},
                           "port_directions": {"A": "input", "Y": "output"},
                           "connections": {"A": [2, 3, 4, 5], "Y": [9]}}},
           "netnames": {}}
    ext, _ = fe.extract_logic({"modules": {"t": mod}}, "t", [], tmp_path)
    aig = read_aiger(str(tmp_path / "logic.aag"))
    iv = {f"w{b}": sum(((i >> j) & 1) << i for i in range(16)) for j, b in enumerate([2, 3, 4, 5])}
    assert aig.simulate(iv, 16) == [table]


def test_parameter_only_register_rules(tmp_path):
    """Synthetic Yosys JSON: registers of parameter-only functions (a pipelined key expansion) are
    replaced by their D net (or a mux choosing the synchronous-reset value); registers with a
    regular reset or a regular D stay; Yosys's merged-ROM address mux(en, Q, D) counts as D."""
    from dcsflow.aig import read_aiger

    cells = {
        "ibuf": {"type": "IBUF", "connections": {"I": [3], "O": [10]}, "port_directions": {"I": "input", "O": "output"}},
        "g1": gate("$_NOT_", 60, A=10),                           # !k
        "p1": ff("$_DFFE_PP_", 60, 61, E=4),                      # D parameter-only: replaced by net 60
        "p2": ff("$_SDFFE_PP0P_", 10, 62, E=4, R=60),             # R = !k parameter-only: mux(!k, k, 0) = k
        "p3": ff("$_SDFF_PP0_", 60, 63, R=5),                     # regular reset: kept
        "g4": gate("$_XOR_", 64, A=61, B=6),
        "p4": ff("$_DFF_P_", 64, 65),                             # D reads a regular input: kept
        "m5": gate("$_MUX_", 66, A=61, B=60, S=4),                # mux(en, Q of p1, D of p1)
        "p5": ff("$_DFF_P_", 66, 67),                             # parameter-only after p1 folds: replaced
        "g6": gate("$_XOR_", 70, A=62, B=6), "g7": gate("$_XOR_", 71, A=67, B=63), "g8": gate("$_AND_", 72, A=65, B=6),
        "s6": ff("$_DFF_P_", 70, 80), "s7": ff("$_DFF_P_", 71, 81), "s8": ff("$_DFF_P_", 72, 82),
    }
    ports = {"clk": {"direction": "input", "bits": [2]}, "k": {"direction": "input", "bits": [3]},
             "en": {"direction": "input", "bits": [4]}, "rst": {"direction": "input", "bits": [5]},
             "d": {"direction": "input", "bits": [6]}}
    mod = {"ports": ports, "cells": cells,
           "netnames": {"k": {"bits": [3], "attributes": {"PARAM": "00000000000000000000000000000001"}}}}
    ext, folded_mod = fe.extract_logic({"modules": {"t": mod}}, "t", [], tmp_path)
    assert sorted(ext.folded) == ["p1", "p2", "p5"]
    assert folded_mod["cells"]["p2"]["type"] == "$_MUX_" and {"p3", "p4"} <= set(folded_mod["cells"])
    aig = read_aiger(str(tmp_path / "logic.aag"))
    assert "w63" in aig.input_names and "w65" in aig.input_names      # kept registers stay boundaries
    outs = dict(zip(aig.output_names, range(len(aig.output_names))))
    for k in (0, 1):
        for d in (0, 1):
            vals = {n: 0 for n in aig.input_names}
            vals.update({"k": k, "w6": d})
            got = aig.simulate(vals, 1)
            assert got[outs["o70"]] == k ^ d                              # p2 = k
            assert got[outs["o71"]] == (1 - k) ^ vals["w63"]              # p5 = p1 = !k
