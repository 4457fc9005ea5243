"""The front end's and the mapper's share of hostile input: it ends in one line ``error: ...``
and a non-zero exit, never a traceback, a hang or a half-written output that looks valid.

One section per finding of the hostile probe: combinational loops (front end, folding walk, AIGER
reader), the same HDL rules for every front end, paths with spaces, quotes and ``$``, external tools
that crash (fakes through the locator's environment overrides), non-UTF-8 text, and unwritable
output folders.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.aig import Aig, AigerError, MAX_INPUTS, parse_aiger, read_aiger, write_aiger
from dcsflow.flow import frontend as fe
from dcsflow.flow.yosys import YosysError, quotable, quote, run_script, script_path

#: a loop of gates between a regular input and a parameter (the probe's example)
LOOP_V = """\
module loop(input [3:0] d, (* PARAM *) input key, output y);
  wire a, b;
  assign a = b ^ d[0];
  assign b = a & key;
  assign y = a | d[1];
endmodule
"""

#: the same loop, parameter-only, read by a register: found by the register-folding walk
REGLOOP_V = """\
module regloop(input clk, input [1:0] d, (* PARAM *) input [1:0] key, output reg q, output y);
  wire a, b;
  assign a = b ^ key[0];
  assign b = a & key[1];
  always @(posedge clk) q <= a;
  assign y = d[0] ^ d[1];
endmodule
"""

KX_V = """\
`include "inc.vh"
module kx(input clk, input [3:0] d, (* PARAM *) input [3:0] key, output reg [3:0] q);
  always @(posedge clk) q <= d ^ key ^ `CONST;
endmodule
"""

#: a folder name with a space, a quote followed by a space (which no Yosys script argument can
#: hold), an apostrophe and a ``$``
NASTY = "it's \"q\" $HOME x"


def _one_error(r: subprocess.CompletedProcess) -> str:
    """The run failed with exit status 1 and its stderr ends in one ``error: ...`` line (returned)."""
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("error: "), r.stderr
    assert sum(ln.startswith("error: ") for ln in lines) == 1, r.stderr
    return lines[-1]


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def _exe(path: Path, text: str) -> Path:
    _write(path, text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _and_aag(tmp_path: Path) -> Path:
    """y = a AND key (ASCII AIGER)."""
    return _write(tmp_path / "and.aag", "aag 3 2 0 1 1\n2\n4\n6\n6 2 4\ni0 a\ni1 key\no0 y\n")


# ------------------------------------------------------------------------------ 1. loops, no hang

def test_combinational_loop_is_one_line_naming_a_net(dcsflow, tmp_path):
    out = tmp_path / "b"
    r = dcsflow("build", _write(tmp_path / "loop.v", LOOP_V), "--out", out, "--quiet", "--to", "frontend",
                timeout=120)
    assert _one_error(r) == "error: combinational loop through a in module loop (nets on the loop: a, b)"
    assert not (out / "frontend" / "logic.aag").exists()
    assert not (out / "frontend" / "extract.json").exists()


def test_parameter_only_loop_read_by_a_register_is_found_by_the_folding_walk(dcsflow, tmp_path):
    r = dcsflow("build", _write(tmp_path / "regloop.v", REGLOOP_V), "--out", tmp_path / "b", "--quiet",
                "--to", "frontend", timeout=120)
    assert _one_error(r).startswith("error: combinational loop through a in module regloop")


def _loop_module(with_register: bool) -> dict:
    """A Yosys JSON module: a = XOR(b, k0), b = AND(a, k1) (bits 10, 11; key bits 2, 3), read by a
    register (Q on output port q, bit 5) or directly by the output port."""
    cells = {
        "x": {"type": "$_XOR_", "connections": {"A": [11], "B": [2], "Y": [10]}},
        "n": {"type": "$_AND_", "connections": {"A": [10], "B": [3], "Y": [11]}},
    }
    if with_register:
        cells["r"] = {"type": "$_DFF_P_", "port_directions": {"C": "input", "D": "input", "Q": "output"},
                      "connections": {"C": [4], "D": [10], "Q": [5]}}
    out_bit = 5 if with_register else 10
    return {"modules": {"m": {
        "ports": {"key": {"direction": "input", "bits": [2, 3]}, "clk": {"direction": "input", "bits": [4]},
                  "q": {"direction": "output", "bits": [out_bit]}},
        "cells": cells,
        "netnames": {"key": {"hide_name": 0, "bits": [2, 3], "attributes": {"PARAM": "1"}},
                     "a": {"hide_name": 0, "bits": [10], "attributes": {}},
                     "b": {"hide_name": 0, "bits": [11], "attributes": {}},
                     "$auto$x": {"hide_name": 1, "bits": [10], "attributes": {}}}}}}


@pytest.mark.parametrize("with_register", [False, True])
def test_extract_logic_refuses_a_gate_loop(tmp_path, with_register):
    with pytest.raises(fe.FrontendError, match=r"^combinational loop through a in module m "
                                               r"\(nets on the loop: a, b\)$"):
        fe.extract_logic(_loop_module(with_register), "m", [], tmp_path)
    assert not (tmp_path / "logic.aag").exists()


def test_param_only_walk_itself_detects_the_loop():
    m = _loop_module(True)["modules"]["m"]
    driver = {c["connections"]["Y"][0]: c for c in m["cells"].values() if "Y" in c["connections"]}
    with pytest.raises(fe._Loop) as ei:
        fe._param_only(10, driver, {2: "key[0]", 3: "key[1]"}, {}, {})
    assert sorted(ei.value.bits) == [10, 11]


def test_cyclic_ascii_aiger_is_refused_by_dcsflow_map(dcsflow, tmp_path):
    f = _write(tmp_path / "cyc.aag", "aag 3 1 0 1 2\n2\n6\n4 6 2\n6 4 2\n")
    line = _one_error(dcsflow("map", f, timeout=60))
    assert "combinational cycle through AND node" in line and "cyc.aag: line" in line


def test_binary_aiger_header_cannot_claim_unbounded_inputs(dcsflow, tmp_path):
    data = b"aig 100000000000 100000000000 0 0 0\n"
    with pytest.raises(AigerError, match=f"at most {MAX_INPUTS}"):
        parse_aiger(data, "huge.aig")
    line = _one_error(dcsflow("map", _write(tmp_path / "huge.aig", data), timeout=60))
    assert "100000000000 inputs" in line
    assert MAX_INPUTS >= 1 << 20                         # far above any real design
    assert parse_aiger(b"aig 3 3 0 0 0\n", "small.aig").num_inputs == 3


def test_binary_aiger_cannot_encode_a_cycle(tmp_path):
    """Binary AIGER stores each AND node's fanins as deltas below its own literal: a zero delta (a
    node reading itself) is refused, so no binary file reads as a cyclic AIG."""
    with pytest.raises(AigerError, match="invalid delta encoding"):
        parse_aiger(b"aig 2 1 0 1 1\n4\n\x00\x02", "self.aig")


# ------------------------------------------------------------------------ 2. the same rules everywhere

def test_param_on_a_verilog_output_is_an_error(dcsflow, tmp_path):
    src = _write(tmp_path / "op.v", "module op(input a, (* PARAM *) output y);\n  assign y = a;\nendmodule\n")
    line = _one_error(dcsflow("build", src, "--out", tmp_path / "b", "--quiet", "--to", "frontend", timeout=120))
    assert line == f"error: {src}:1: (* PARAM *) marks output port y; only input ports can be parameter inputs"


def test_param_on_an_inout_port_is_an_error():
    m = {"ports": {"a": {"direction": "input", "bits": [2]}, "io": {"direction": "inout", "bits": [3]}},
         "netnames": {"io": {"bits": [3], "attributes": {"PARAM": "00000000000000000000000000000001",
                                                          "src": "x.v:4.30-4.32"}}}}
    with pytest.raises(fe.FrontendError, match=r"^x\.v:4: \(\* PARAM \*\) marks inout port io; only input"):
        fe.param_ports_of(m, [])
    # on an input, and with the same port also named by --param: fine
    m["ports"]["io"]["direction"] = "input"
    assert fe.param_ports_of(m, ["io"]) == {"io": 1}


TWO_TOPS_V = """\
module sub(input a, output y); assign y = ~a; endmodule
module t1(input a, output y); sub u(.a(a), .y(y)); endmodule
module t2(input a, input b, output y); assign y = a & b; endmodule
"""


def test_several_top_candidates_without_top_is_an_error(dcsflow, tmp_path):
    src = _write(tmp_path / "tops.v", TWO_TOPS_V)
    line = _one_error(dcsflow("build", src, "--out", tmp_path / "b", "--quiet", "--to", "frontend",
                              "--allow-no-params", timeout=120))
    assert line == ("error: several top-module candidates (modules no other module instantiates): t1, t2; "
                    "give --top")
    r = dcsflow("build", src, "--top", "t1", "--out", tmp_path / "c", "--quiet", "--to", "frontend",
                "--allow-no-params", timeout=120)
    assert r.returncode == 0, r.stderr


def test_one_top_candidate_needs_no_top(dcsflow, tmp_path):
    """A hierarchy (a parameterized leaf inside a module instantiated under a generate block) has
    one top; it builds without --top as before."""
    src = _write(tmp_path / "hier.v", """\
module leaf #(parameter W=2) (input clk, input [W-1:0] a, output reg [W-1:0] q); always @(posedge clk) q <= a; endmodule
module mid (input clk, input [3:0] a, output [3:0] q); leaf #(.W(4)) u(.clk(clk), .a(a), .q(q)); endmodule
module top #(parameter N=1) (input clk, input [3:0] a, output [3:0] q);
  generate if (N == 1) begin : g mid m(.clk(clk), .a(a), .q(q)); end endgenerate
endmodule
""")
    out = tmp_path / "b"
    r = dcsflow("build", src, "--out", out, "--quiet", "--to", "frontend", "--allow-no-params", timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "frontend" / "extract.json").read_text())["top"] == "top"


def test_top_candidates_rules():
    doc = {"modules": {"sub": {"cells": {}}, "t1": {"cells": {"u": {"type": "sub"}}},
                       "t2": {"cells": {}}, "bb": {"attributes": {"blackbox": "1"}, "cells": {}}}}
    assert fe.top_candidates(doc) == ["t1", "t2"]
    doc["modules"]["t2"]["attributes"] = {"top": "00000000000000000000000000000001"}
    assert fe.top_candidates(doc) == ["t2"]          # an explicit (* top *) decides


def test_a_parameter_named_twice_is_an_error():
    assert fe.check_param_names(["key", "iv"]) == ["key", "iv"]
    with pytest.raises(fe.FrontendError, match=r"^--param key given twice$"):
        fe.check_param_names(["key", "iv", "key"])


def test_cli_parameter_named_twice_is_an_error(dcsflow, tmp_path):
    src = _write(tmp_path / "kx.v", KX_V.replace('`include "inc.vh"\n', "").replace("`CONST", "4'h5")
                 .replace("(* PARAM *) ", ""))
    line = _one_error(dcsflow("build", src, "--param", "key", "--param", "key", "--out", tmp_path / "b",
                              "--quiet", "--to", "frontend", timeout=120))
    assert line == "error: --param key given twice"


def test_top_name_cannot_inject_yosys_commands(tmp_path):
    src = _write(tmp_path / "t.v", "module t(input a, output y); assign y = a; endmodule\n")
    spec = fe.DesignSpec(sources=[src], top="t\n!touch pwned")
    with pytest.raises(fe.FrontendError, match="is not a Verilog identifier"):
        fe.synthesize_pre(spec, tmp_path / "w")
    assert not (tmp_path / "w" / "pwned").exists()


# --------------------------------------------------------------------------- 3. paths with anything

def test_quote_and_script_path_rules(tmp_path):
    assert quote("pre.json") == "pre.json"
    assert quote("/a b/c$d.v") == '"/a b/c$d.v"'
    assert quotable('a"b') and not quotable('a" b') and not quotable("a\nb") and not quotable("café")
    with pytest.raises(YosysError, match="cannot be written in a Yosys script"):
        quote('x" y')
    wd = tmp_path / NASTY / "w"
    wd.mkdir(parents=True)
    near = _write(tmp_path / NASTY / "f.v", "")
    assert script_path(near, wd) == "../f.v"          # the unwritable part is shared: relative
    far = _write(tmp_path / "x" / NASTY / "g h.v", "")
    p = script_path(far, wd)                          # else a link to its folder
    assert p.startswith("_paths/") and p.endswith("/g h.v") and quotable(p)
    assert (wd / p).resolve() == far.resolve()
    odd = _write(tmp_path / 'a "b" c.v', "")
    p = script_path(odd, wd)                          # or to the file itself
    assert p.startswith("_paths/") and p.endswith(".v") and quotable(p)
    assert (wd / p).resolve() == odd.resolve()
    assert script_path(odd, wd) == p                  # the same link again


def test_yosys_reads_and_writes_files_whose_paths_hold_spaces_quotes_and_dollars(tmp_path):
    """Every way a flow script names a file, checked with Yosys itself: quoted absolute paths,
    relative paths and links for names no Yosys argument can hold."""
    src = _write(tmp_path / "a b" / 'c"d $e' / "k x.v", "module k(input a, output y); assign y = ~a; endmodule\n")
    bad = _write(tmp_path / NASTY / 'n "1" m.v', "module n(input a, output y); assign y = a; endmodule\n")
    wd = tmp_path / "w d" / "work"
    outside = tmp_path / NASTY / "o u t.json"
    names = [script_path(p, wd) for p in (src, bad, outside)]
    assert names[0] == str(src)              # quotable: the path itself
    script = "\n".join([f"read_verilog {quote(names[0])}", f"read_verilog {quote(names[1])}",
                        f"write_json {quote(names[2])}", "hierarchy -top n", "write_json here.json", ""])
    run_script(script, wd, "t")
    assert set(json.loads(outside.read_text())["modules"]) == {"k", "n"}
    assert set(json.loads((wd / "here.json").read_text())["modules"]) == {"n"}


def test_continuation_with_paths_holding_anything(keyxor_pre, tmp_path):
    pre, top = keyxor_pre
    moved = tmp_path / NASTY / "p r e.json"
    moved.parent.mkdir(parents=True)
    moved.write_bytes(pre.read_bytes())
    wd = tmp_path / 'c "o" n $v'
    fe.continue_synthesis(moved, top, fe.ABC_LUTS_DEFAULT, wd / "post.json", wd, "yosys")
    post = json.loads((wd / "post.json").read_text())
    assert any(c["type"].startswith("LUT") for c in post["modules"][top]["cells"].values())


@pytest.fixture(scope="module")
def keyxor_pre(tmp_path_factory):
    """pre.json of a small design (the front end only)."""
    d = tmp_path_factory.mktemp("kxpre")
    src = _write(d / "kx.v", KX_V.replace('`include "inc.vh"\n', "").replace("`CONST", "4'h5"))
    pre, top, _ = fe.synthesize_pre(fe.DesignSpec(sources=[src], top="kx"), d / "fe")
    return pre, top


def test_build_with_nasty_source_and_build_folder(dcsflow, tmp_path):
    """The whole build with a source file and a build folder whose paths hold spaces, quotes
    (followed by a space, too), an apostrophe and ``$``; the source includes a file beside it."""
    d = tmp_path / NASTY
    src = _write(d / 'k "x" y.v', KX_V)
    _write(d / "inc.vh", "`define CONST 4'h5\n")
    out = d / 'out "1" $x'
    r = dcsflow("build", src, "--out", out, "--quiet", timeout=600)
    assert r.returncode == 0, r.stderr
    assert (out / "report.json").is_file() and (out / "tlut" / "post.json").is_file()


def test_build_with_non_ascii_folder(dcsflow, tmp_path):
    """Yosys 0.23 mangles non-ASCII bytes of a file name in its JSON; the front end reaches such a
    file through a relative path or a link instead."""
    d = tmp_path / "café ünï"
    src = _write(d / "kx.v", KX_V)
    _write(d / "inc.vh", "`define CONST 4'h5\n")
    r = dcsflow("build", src, "--out", d / "out", "--quiet", "--to", "tmap", timeout=300)
    assert r.returncode == 0, r.stderr


def test_vhdl_build_with_nasty_paths(dcsflow, tmp_path):
    d = tmp_path / NASTY
    src = _write(d / 'x "v" y.vhd', """\
library ieee; use ieee.std_logic_1164.all;
entity kv is
  port (d : in std_logic_vector(3 downto 0);
        key : in std_logic_vector(3 downto 0); --PARAM
        y : out std_logic_vector(3 downto 0));
end entity;
architecture rtl of kv is begin y <= d xor key; end architecture;
""")
    out = d / 'o "v" $t'
    r = dcsflow("build", src, "--out", out, "--quiet", "--to", "tmap", timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "frontend" / "extract.json").read_text())["param_ports"] == {"key": 4}


# ------------------------------------------------------------------------------ 4. crashing tools

CRASH = "#!/bin/sh\necho \"{line}\"\nkill -SEGV $$\n"


def test_abc_baseline_crash_is_one_line_and_tmap_result_kept(dcsflow, tmp_path):
    fake = _exe(tmp_path / "fakeabc", CRASH.format(line="ABC: about to crash"))
    out = tmp_path / "o"
    r = dcsflow("map", _and_aag(tmp_path), "--no-verify", "--no-abc-opt", "--out", out,
                env={**os.environ, "DCSFLOW_ABC": str(fake)}, timeout=120)
    line = _one_error(r)
    assert line.startswith("error: ABC baseline: fakeabc was killed by signal 11 (SIGSEGV) running '&r in.aig;")
    assert line.endswith(f"last output line: 'ABC: about to crash'; TMAP's result is in {out} "
                         "(--no-baseline skips it)")
    assert {p.name for p in out.iterdir()} == {"netlist.json", "netlist.blif", "ppc.aig", "ppc.json"}


def test_abc_failures_name_the_program_and_status(tmp_path, monkeypatch):
    from dcsflow.tmap.abc import run_abc
    from dcsflow.tmap.errors import ToolError

    monkeypatch.setenv("DCSFLOW_ABC", str(_exe(tmp_path / "abc3", "#!/bin/sh\necho one\necho two >&2\nexit 3\n")))
    with pytest.raises(ToolError, match=r"^abc3 exited with status 3 running 'strash'; last output line: 'two'$"):
        run_abc("strash")
    monkeypatch.setenv("DCSFLOW_ABC", str(_exe(tmp_path / "abcx", "#!/nonexistent/interpreter\n")))
    with pytest.raises(ToolError, match=r"^abcx \(.*abcx\) could not be started: "):
        run_abc("strash")


def test_yosys_crash_is_one_line(dcsflow, tmp_path):
    src = _write(tmp_path / "t.v", "module t(input a, output y); assign y = a; endmodule\n")
    fake = _exe(tmp_path / "fakeyosys", CRASH.format(line="Yosys fake: reading t.v"))
    r = dcsflow("build", src, "--top", "t", "--out", tmp_path / "b", "--quiet", "--to", "frontend",
                env={**os.environ, "DCSFLOW_YOSYS": str(fake)}, timeout=120)
    line = _one_error(r)
    assert line.startswith("error: yosys was killed by signal 11 (SIGSEGV) running ")
    assert "last output line: 'Yosys fake: reading t.v'" in line


def test_yosys_failing_without_error_line_names_its_status(tmp_path, monkeypatch):
    monkeypatch.setenv("DCSFLOW_YOSYS", str(_exe(tmp_path / "y", "#!/bin/sh\necho 'half way'\nexit 7\n")))
    with pytest.raises(YosysError, match=r"^yosys exited with status 7 running x\.ys; last output line: "
                                         r"'half way' \(log: "):
        run_script("help\n", tmp_path / "w", "x")


def test_ghdl_crash_is_one_line(dcsflow, tmp_path):
    src = _write(tmp_path / "e.vhd", "entity e is port (a : in bit; y : out bit); end;\n"
                                     "architecture r of e is begin y <= a; end;\n")
    fake = _exe(tmp_path / "fakeghdl", CRASH.format(line="ghdl fake: analysing"))
    r = dcsflow("build", src, "--out", tmp_path / "b", "--quiet", "--to", "frontend",
                env={**os.environ, "DCSFLOW_GHDL": str(fake)}, timeout=120)
    line = _one_error(r)
    assert line.startswith("error: ghdl was killed by signal 11 (SIGSEGV) importing the VHDL files; "
                           "last output line: 'ghdl fake: analysing'")


# ----------------------------------------------------------------------------------- 5. not UTF-8

def test_params_file_not_utf8(dcsflow, tmp_path):
    p = _write(tmp_path / "latin1.txt", b"a\nk\xe9y\n")
    line = _one_error(dcsflow("map", _and_aag(tmp_path), "--params", p, timeout=60))
    assert line == (f"error: {p}: line 2: not UTF-8 text (byte 0xe9); a parameter file holds AIGER input "
                    "names, one per line")


def test_yosys_output_that_is_not_utf8(dcsflow, tmp_path):
    """Yosys quotes the Latin-1 identifier in its error message: read back without a decoding error."""
    src = _write(tmp_path / "l4.v", b"`default_nettype none\nmodule l4(input wire a, output wire y);\n"
                                    b"  assign y = \\caf\xe9 ;\nendmodule\n")
    line = _one_error(dcsflow("build", src, "--out", tmp_path / "b", "--quiet", "--to", "frontend", timeout=120))
    assert f"{src}:3: ERROR: Identifier `\\caf\ufffd' is implicitly declared" in line


@pytest.mark.parametrize("encoding", ["latin-1", "utf-8"])
def test_non_ascii_attribute_is_one_line(dcsflow, tmp_path, encoding):
    src = _write(tmp_path / "l2.v", 'module l2(input a, (* PARAM *) input k, (* note="café" *) output y);\n'
                                    '  assign y = a ^ k;\nendmodule\n'.encode(encoding))
    out = tmp_path / "b"
    line = _one_error(dcsflow("build", src, "--out", out, "--quiet", "--to", "tmap", timeout=120))
    assert line == (f"error: {src}:1: non-ASCII text in attribute note of wire y: Yosys 0.23 cannot carry it "
                    "through its JSON netlists; use ASCII")
    assert not (out / "frontend" / "pre.json").exists()


def test_latin1_comment_in_verilog_is_fine(dcsflow, tmp_path):
    src = _write(tmp_path / "l1.v", b"module l1(input a, (* PARAM *) input k, output y); // caf\xe9\n"
                                    b"  assign y = a ^ k;\nendmodule\n")
    r = dcsflow("build", src, "--out", tmp_path / "b", "--quiet", "--to", "tmap", timeout=120)
    assert r.returncode == 0, r.stderr


def test_latin1_vhdl_is_copied_for_ghdl_byte_for_byte(tmp_path):
    """VHDL's character set is ISO 8859-1: a Latin-1 comment or string is legal, and GHDL's copy
    differs from the source only where the PARAM attribute was blanked."""
    from dcsflow.flow.vhdl import prepare, translate

    text = ("-- r\xe9sum\xe9: \xe0 la carte\nlibrary ieee; use ieee.std_logic_1164.all;\n"
            "entity kv is\n  port (d : in std_logic_vector(1 downto 0); key : in std_logic_vector(1 downto 0);\n"
            "        y : out std_logic_vector(1 downto 0));\n  attribute PARAM : boolean;\n"
            "  attribute PARAM of key : signal is true;\nend entity;\n"
            "architecture rtl of kv is\n  constant S : string := \"\xe9t\xe9\";\n"
            "begin y <= d xor key; end architecture;\n")
    src = _write(tmp_path / "kv.vhd", text.encode("latin-1"))
    vt = prepare([src], None, [])
    assert vt.params == ["key"]
    top_v = translate([src], vt, tmp_path / "ghdl")
    copy = (tmp_path / "ghdl" / "src" / "0" / "kv.vhd").read_bytes()
    orig = src.read_bytes()
    assert len(copy) == len(orig)
    diff = [i for i in range(len(orig)) if orig[i] != copy[i]]
    assert diff and all(copy[i] == 0x20 for i in diff)                # only blanked
    assert b"r\xe9sum\xe9" in copy and b"\"\xe9t\xe9\"" in copy
    assert "module kv" in top_v.read_text()


def test_unreadable_vhdl_source_is_one_line(tmp_path):
    from dcsflow.flow.vhdl import VhdlError, prepare

    with pytest.raises(VhdlError, match=r"nope\.vhd: cannot read: No such file"):
        prepare([tmp_path / "nope.vhd"], None, [])


# --------------------------------------------------------------------------------- 6. output paths

def test_map_out_is_a_file(dcsflow, tmp_path):
    f = _write(tmp_path / "afile", "mine\n")
    line = _one_error(dcsflow("map", _and_aag(tmp_path), "--no-baseline", "--out", f, timeout=60))
    assert line == f"error: --out {f}: is a file, not a folder"
    assert f.read_text() == "mine\n"
    line = _one_error(dcsflow("map", _and_aag(tmp_path), "--no-baseline", "--out", f / "sub", timeout=60))
    assert line == f"error: --out {f / 'sub'}: cannot write there: Not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders (see the in-process test)")
def test_map_out_read_only(dcsflow, tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    try:
        line = _one_error(dcsflow("map", _and_aag(tmp_path), "--no-baseline", "--out", d, timeout=60))
    finally:
        d.chmod(0o755)
    assert line == f"error: --out {d}: cannot write there: Permission denied"


def test_map_out_not_writable_in_process(tmp_path, monkeypatch, capsys):
    """The same refusal as for a read-only folder, with the write refused by a stub (the tests may
    run as root, whom a read-only folder does not stop)."""
    import tempfile as tempfile_mod

    from dcsflow.flow import cli

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile_mod, "mkstemp", refuse)
    d = tmp_path / "ro"
    rc = cli.main(["map", str(_and_aag(tmp_path)), "--no-baseline", "--out", str(d)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and err[-1] == f"error: --out {d}: cannot write there: Permission denied"


def test_map_result_is_written_all_or_nothing(tmp_path, monkeypatch):
    """A write that fails half-way leaves none of the four files (no new netlist beside an old PPC)."""
    from dcsflow import fileio
    from dcsflow.tmap.mapper import map_tluts
    from dcsflow.tmap.options import MapOptions

    g = read_aiger(_and_aag(tmp_path))
    res = map_tluts(g, ["key"], MapOptions(verify=False, aig_scripts=(), optimize_ppc=False))
    d = tmp_path / "o"
    res.write(d)                                       # an earlier, complete result
    real = fileio.os.replace
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)

    monkeypatch.setattr(fileio.os, "replace", flaky)
    with pytest.raises(OSError, match="No space left"):
        res.write(d)
    assert [p.name for p in d.iterdir()] == []
