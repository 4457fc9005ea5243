"""The published TLUT flow's designs as they are:
``--PARAM`` blocks and ``--TMAP`` in VHDL, ``//PARAM`` blocks in Verilog, files in any order,
folders, mixed VHDL/Verilog, ``--ghdl-opt``, no silent zero-parameter build, GHDL limits said
plainly, and one clear line for every bad mark.

Independent references: the parameter inputs and widths are read off the test designs' sources
by hand (written below); mixed designs' specialized netlists are simulated by Icarus against
Python models written from the designs' header comments.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from dcsflow.flow.specialize import load_build, specialized_verilog
from dcsflow.flow.yosys import cells_sim

DATA = Path(__file__).parent / "data" / "published"
ROWSEL = ["rowsel.vhd", "rowsel_mask.vhd", "rowsel_pkg.vhd"]

#: files that make a build folder look complete or resumable
COMPLETE = ("build.json", "report.json", "stages/frontend.json")


def _one_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode != 0, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def _param_lines(stderr: str) -> list[str]:
    return [ln.split(": ", 1)[1] for ln in stderr.splitlines() if ": parameter input " in ln or ": top " in ln]


# ------------------------------------------------------------------------------ the published style

@pytest.mark.parametrize("order", [ROWSEL, ROWSEL[::-1], ["rowsel_pkg.vhd", "rowsel.vhd", "rowsel_mask.vhd"]])
def test_published_style_vhdl_any_order(dcsflow, tmp_path, order):
    """--TMAP picks the top, the port clause's --PARAM block marks table and mask (24 and 4 bits),
    the blocks around signals, assignments, port maps and in the sub-entity are not read."""
    out = tmp_path / "b"
    r = dcsflow("build", *[DATA / f for f in order], "--out", out, "--quiet", "--to", "frontend")
    assert r.returncode == 0, r.stderr
    assert _param_lines(r.stderr) == [
        f"top rowsel (--TMAP line in {DATA / 'rowsel.vhd'})",
        f"parameter input table: 24 bits, --PARAM block, {DATA / 'rowsel.vhd'}:15-18",
        f"parameter input mask: 4 bits, --PARAM block, {DATA / 'rowsel.vhd'}:15-18"]
    rec = json.loads((out / "stages" / "frontend.json").read_text())["data"]
    assert rec["params"] == {"table": 24, "mask": 4} and rec["vhdl"]["params"] == {"table": "block", "mask": "block"}


def test_folder_argument_takes_its_hdl_files(dcsflow, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for f in ROWSEL:
        shutil.copy(DATA / f, src / f)
    (src / "notes.txt").write_text("not HDL\n")
    out = tmp_path / "b"
    r = dcsflow("build", src, "--out", out, "--quiet", "--to", "frontend")
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "stages" / "frontend.json").read_text())["data"]["params"] == {"table": 24, "mask": 4}


def test_full_build_of_published_style_design(dcsflow, tmp_path):
    """All stages; the specialized netlist computes rows(sel) and mask, registered (Icarus vs the
    header comment's model)."""
    out = tmp_path / "b"
    r = dcsflow("build", *[DATA / f for f in ROWSEL], "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["params"] == {"table": 24, "mask": 4} and rep["verify"]["equal"] is True
    assert rep["vhdl"]["ghdl_options"] == ["--std=08", "-fsynopsys"]
    rng = random.Random(7)
    table, mask = rng.getrandbits(24), rng.getrandbits(4)

    def model(sel):
        return ((table >> 4 * sel) & 15) & mask if sel < 6 else 0

    seq = [rng.randrange(8) for _ in range(40)]
    tb = ["module tb; reg clk = 0; reg [2:0] sel; wire [3:0] y; integer bad = 0;",
          "  spec u (.clk(clk), .sel(sel), .y(y));", "  initial begin"]
    for t, s in enumerate(seq):
        tb.append(f"    sel = 3'd{s}; #1 clk = 1; #1 clk = 0; if (y !== 4'h{model(s):x}) bad = bad + 1;")
    tb += ['    $display("BAD %0d", bad); $finish;', "  end", "endmodule"]
    assert _simulate(tmp_path, load_build(out), {"table": table, "mask": mask}, "\n".join(tb)) == "BAD 0"


def _simulate(tmp: Path, b, values: dict, tb: str) -> str:
    (tmp / "spec.v").write_text(specialized_verilog(b, values, "spec"))
    (tmp / "tb.v").write_text(tb + "\n")
    exe = tmp / "sim.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(exe), str(tmp / "tb.v"), str(tmp / "spec.v"), str(cells_sim())],
                   check=True, capture_output=True, text=True)
    out = subprocess.run(["vvp", "-n", str(exe)], check=True, capture_output=True, text=True).stdout
    return next(ln for ln in out.splitlines() if ln.startswith("BAD"))


# ------------------------------------------------------------------------------ Verilog //PARAM

def test_verilog_param_block(dcsflow, tmp_path):
    v = tmp_path / "kx.v"
    v.write_text("module kx (\n  input clk,\n  input [3:0] a,\n//PARAM\n  input [3:0] k,\n  input [1:0] m,\n"
                 "//PARAM\n  output reg [3:0] y\n);\n/* //PARAM inside a comment is no mark\n//PARAM\n*/\n"
                 "  always @(posedge clk) y <= (a ^ k) >> m;\nendmodule\n")
    out = tmp_path / "b"
    r = dcsflow("build", v, "--out", out, "--quiet", "--to", "frontend")
    assert r.returncode == 0, r.stderr
    assert _param_lines(r.stderr) == [f"parameter input k: 4 bits, //PARAM block, {v}:4-7",
                                      f"parameter input m: 2 bits, //PARAM block, {v}:4-7"]


@pytest.mark.parametrize("text, msg", [
    ("module a (input [3:0] x,\n//PARAM\n  input [3:0] k,\n  output [3:0] y);\n  assign y = x ^ k;\nendmodule\n",
     "a.v:2: //PARAM line without a closing //PARAM line"),
    ("module a (input [3:0] x, input [3:0] k,\n//PARAM\n  output [3:0] y\n//PARAM\n);\n  assign y = x ^ k;\n"
     "endmodule\n", "a.v:2: the //PARAM block of lines 2-4 holds output port y; only input ports"),
    ("module a (\n//PARAM\n//PARAM\n input [3:0] x, input [3:0] k, output [3:0] y);\n  assign y = x ^ k;\n"
     "endmodule\n", "a.v:2: the //PARAM block of lines 2-3 holds no port of module a"),
])
def test_verilog_bad_marks(dcsflow, tmp_path, text, msg):
    v = tmp_path / "a.v"
    v.write_text(text)
    out = tmp_path / "b"
    line = _one_error(dcsflow("build", v, "--out", out, "--quiet"))
    assert msg in line, line
    assert not any((out / n).exists() for n in COMPLETE)


# ------------------------------------------------------------------------------ mixed languages

@pytest.mark.parametrize("files, top", [(["mixtop.v", "xorsub.vhd"], "mixtop"),
                                        (["vhdtop.vhd", "vinv.v"], "vhdtop"),
                                        (["vinv.v", "vhdtop.vhd"], "vhdtop")])
def test_mixed_vhdl_and_verilog(dcsflow, tmp_path, files, top):
    """Both directions: a Verilog top using a VHDL entity, a VHDL top using a Verilog module;
    y = ~(a ^ k) either way (the designs' header comments), simulated for random a and k."""
    out = tmp_path / "b"
    r = dcsflow("build", *[DATA / f for f in files], "--top", top, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["top"] == top and rep["params"] == {"k": 8} and rep["tlut"]["tluts"] > 0
    rng = random.Random(3)
    k = rng.getrandbits(8)
    tb = ["module tb; reg [7:0] a; wire [7:0] y; integer bad = 0;", "  spec u (.a(a), .y(y));", "  initial begin"]
    for _ in range(64):
        a = rng.getrandbits(8)
        tb.append(f"    a = 8'h{a:02x}; #1 if (y !== 8'h{~(a ^ k) & 255:02x}) bad = bad + 1;")
    tb += ['    $display("BAD %0d", bad); $finish;', "  end", "endmodule"]
    assert _simulate(tmp_path, load_build(out), {"k": k}, "\n".join(tb)) == "BAD 0"


def test_mixed_design_needs_a_top(dcsflow, tmp_path):
    line = _one_error(dcsflow("build", DATA / "mixtop.v", DATA / "xorsub.vhd", "--out", tmp_path / "b", "--quiet"))
    assert line == "error: a design mixing VHDL and Verilog needs --top (or a --TMAP line at the top of the top " \
                   "entity's file)"


# ------------------------------------------------------------------------------ no parameter input

NOPARAM_VHD = ("library ieee; use ieee.std_logic_1164.all;\nentity np is port (a, b : in std_logic; "
               "y : out std_logic); end np;\narchitecture r of np is begin y <= a and b; end r;\n")


def test_no_parameter_input_is_an_error(dcsflow, tmp_path):
    f = tmp_path / "np.vhd"
    f.write_text(NOPARAM_VHD)
    out = tmp_path / "b"
    line = _one_error(dcsflow("build", f, "--out", out, "--quiet"))
    assert line.startswith("error: no parameter input in design np (top np): mark the parameter ports")
    assert "--allow-no-params" in line
    assert not any((out / n).exists() for n in COMPLETE) and not (out / "frontend" / "pre.json").exists()
    r = dcsflow("build", f, "--out", out, "--quiet", "--allow-no-params")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["params"] == {} and rep["tlut"]["tluts"] == 0
    assert "no parameter input (--allow-no-params)" in r.stderr


# ------------------------------------------------------------------------------ GHDL options, limits

SYNOPSYS_VHD = ("--TMAP\nlibrary ieee; use ieee.std_logic_1164.all; use ieee.std_logic_unsigned.all;\n"
                "entity su is port (a : in std_logic_vector(3 downto 0);\n"
                "  k : in std_logic_vector(3 downto 0); --PARAM\n  y : out std_logic_vector(3 downto 0)); end su;\n"
                "architecture r of su is begin y <= a + k; end r;\n")


def test_ghdl_options_passed_and_recorded(dcsflow, tmp_path):
    """--ieee=standard replaces the default -fsynopsys: GHDL then refuses std_logic_unsigned (so the
    option reached GHDL); with the default the design builds and report.json records the options."""
    f = tmp_path / "su.vhd"
    f.write_text(SYNOPSYS_VHD)
    line = _one_error(dcsflow("build", f, "--out", tmp_path / "a", "--quiet", "--ghdl-opt=--ieee=standard"))
    assert "std_logic_unsigned" in line and f"{f}:2:" in line
    out = tmp_path / "b"
    r = dcsflow("build", f, "--out", out, "--quiet", "--ghdl-opt=-frelaxed", "--ghdl-opt=--std=08")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["vhdl"]["ghdl_options"] == ["-fsynopsys", "-frelaxed", "--std=08"]


LOG_VHD = ("library ieee; use ieee.std_logic_1164.all; use ieee.math_real.all;\n"
           "entity lg is generic (N : integer := 8);\n  port (a : in std_logic_vector(N-1 downto 0); --PARAM\n"
           "        y : out std_logic_vector(N-1 downto 0)); end lg;\narchitecture r of lg is\n"
           "  constant L : integer := integer(ceil(log(real(N), 2.0)));\n"
           "begin y <= a(L-1 downto 0) & a(N-1 downto L); end r;\n")


@pytest.mark.parametrize("name, text, args, msg", [
    ("lg.vhd", LOG_VHD, [], 'lg.vhd:6:40: unhandled call to ieee function "log" (GHDL 2.0.0 cannot evaluate '
                            "math_real.log during synthesis"),
    ("su.vhd", SYNOPSYS_VHD, ["--ghdl-opt=-fnosuchoption"],
     "unknown command option '-fnosuchoption' (--ghdl-opt -fnosuchoption: GHDL 2.0.0 does not know this option"),
    ("su.vhd", SYNOPSYS_VHD, ["--ghdl-opt=--workdir=x"], "--ghdl-opt --workdir=x: dcsflow sets --workdir itself"),
    ("su.vhd", SYNOPSYS_VHD, ["--ghdl-opt=frelaxed"], "--ghdl-opt 'frelaxed': not a GHDL option"),
    ("unm.vhd", "entity u is port (\n--PARAM\n  k : in bit;\n  y : out bit); end u;\n", [],
     "unm.vhd:2: --PARAM line without a closing --PARAM line"),
    ("nop.vhd", "entity u is port (\n  k : in bit;\n--PARAM\n--PARAM\n  y : out bit); end u;\n", [],
     "nop.vhd:3: the --PARAM block of lines 3-4 holds no port of entity u"),
    ("out.vhd", "entity u is port (\n  k : in bit;\n--PARAM\n  y : out bit\n--PARAM\n); end u;\n", [],
     "out.vhd:3: the --PARAM block of lines 3-5 holds out port y; only input ports can be parameter inputs"),
    ("cross.vhd", "entity u is port (\n  k : in bit;\n--PARAM\n  y : out bit); end u;\n--PARAM\n", [],
     "cross.vhd:3: the --PARAM block of lines 3-5 crosses the end of the port clause of entity u"),
])
def test_bad_input_one_line(dcsflow, tmp_path, name, text, args, msg):
    f = tmp_path / name
    f.write_text(text)
    out = tmp_path / "b"
    line = _one_error(dcsflow("build", f, *args, "--out", out, "--quiet"))
    assert msg in line, line
    assert not any((out / n).exists() for n in COMPLETE)


def test_bad_file_arguments(dcsflow, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "readme.txt").write_text("x\n")
    assert _one_error(dcsflow("build", empty, "--out", tmp_path / "b", "--quiet")) == \
        f"error: {empty}: folder holds no HDL file (.v, .sv, .vhd, .vhdl)"
    two = [tmp_path / "t1.vhd", tmp_path / "t2.vhd"]
    for f in two:
        f.write_text("--TMAP\nentity " + f.stem + " is port (k : in bit; --PARAM\n y : out bit); end;\n"
                     "architecture r of " + f.stem + " is begin y <= k; end;\n")
    line = _one_error(dcsflow("build", *two, "--out", tmp_path / "c", "--quiet"))
    assert line == f"error: --TMAP lines in several files ({two[0]}, {two[1]}): give --top"
    assert _one_error(dcsflow("build", two[0], two[0], "--out", tmp_path / "d", "--quiet")) == \
        f"error: {two[0]}: given twice"


def _two_tmap_files(folder: Path) -> list[Path]:
    """Two VHDL files that both start with a --TMAP line (so only --top can choose), t1 and t2."""
    folder.mkdir(exist_ok=True)
    files = [folder / "t1.vhd", folder / "t2.vhd"]
    for f in files:
        f.write_text("--TMAP\nentity " + f.stem + " is port (k : in bit; --PARAM\n a : in bit; y : out bit); end;\n"
                     "architecture r of " + f.stem + " is begin y <= k xor a; end;\n")
    return files


FAST = ("--quiet", "--baselines", "yosys-abc", "--no-static-remap", "-j", "1")


@pytest.mark.parametrize("how", ["files", "folder ."])
def test_design_name_is_the_top_given(dcsflow, tmp_path, how):
    """Files given with --top (several --TMAP lines: only --top can choose) and no other design name:
    the design is named after the top, in the build's lines, report.json and build.json, and the
    build folder defaults to build/<top>. The files' names and the folder's ('.' has none) are not
    the design's."""
    src = tmp_path / "src"
    files = _two_tmap_files(src)
    args = [f.name for f in files] if how == "files" else ["."]          # t1.vhd first
    r = dcsflow("build", *args, "--top", "t2", *FAST[1:], cwd=src)
    assert r.returncode == 0, r.stderr
    heads = [ln.split(":")[0] for ln in r.stderr.splitlines() if ln.startswith("build")]
    assert heads and set(heads) == {"build t2"}, r.stderr
    out = src / "build" / "t2"
    assert json.loads((out / "report.json").read_text())["design"] == "t2"
    assert json.loads((out / "report.json").read_text())["top"] == "t2"
    assert json.loads((out / "build.json").read_text())["design"] == "t2"
    assert sorted(p.name for p in (src / "build").iterdir()) == ["t2"]


def test_unbound_component_in_vhdl_only_design(dcsflow, tmp_path):
    """A VHDL-only design instantiating a component no file declares: GHDL 2.0.0 would leave an empty
    black box (outputs undriven) and build silently wrong; the flow refuses."""
    line = _one_error(dcsflow("build", DATA / "vhdtop.vhd", "--out", tmp_path / "b", "--quiet"))
    assert line.startswith("error: component vinv is bound to no entity")
