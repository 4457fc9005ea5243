"""Register forms of the TLUT build's RTL (dcsflow.flow.loadreg): the parameters, or the values of
their parameter-only logic, held in flip-flops the host loads through a 32-bit write port.

Independent check: the form's netlist, its register loaded through the load port with the values
load_values() gives, is simulated by Icarus cycle by cycle against the design's own RTL driven with
the parameter value (the RTL, not anything this module wrote). The register sizes are those the
RTL's structure gives: 16 key bits; for the precomputed form the values the round select reads,
each distinct net once: the 16 key bits, the 5 bits of k1 that are not a key bit (16'h1234 has five
ones; the other eleven bits of k1 are key bits, rotated), and the 16 bits each of k2 and k3: 53.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from dcsflow.flow import loadreg
from dcsflow.flow.frontend import DesignSpec, synthesize_pre
from dcsflow.flow.simulate import icarus
from dcsflow.flow.yosys import cells_sim, run_script

KEXP = """
// a parameter-only cone (a small key schedule) read through a round select
module kexp (input clk, input rst, (* PARAM *) input [15:0] key, input [15:0] d, input [1:0] sel,
             output reg [15:0] q);
  wire [15:0] k1 = {key[14:0], key[15]} ^ 16'h1234;
  wire [15:0] k2 = {k1[11:0], k1[15:12]} ^ (k1 & key);
  wire [15:0] k3 = k2 ^ {k1[7:0], k1[15:8]} ^ ~key;
  always @(posedge clk)
    if (rst) q <= 0;
    else q <= d ^ (sel == 0 ? key : sel == 1 ? k1 : sel == 2 ? k2 : k3);
endmodule
"""

#: a parameter bit that is a flip-flop's clock
CLOCKED = """
module clocked (input clk, (* PARAM *) input [1:0] key, input d, output reg q, output reg p);
  always @(posedge clk) q <= d ^ key[1];
  always @(posedge key[0]) p <= d;
endmodule
"""


@pytest.fixture(scope="module")
def kexp_pre(tmp_path_factory):
    d = tmp_path_factory.mktemp("kexp")
    (d / "kexp.v").write_text(KEXP)
    pre, top, _ = synthesize_pre(DesignSpec(sources=[d / "kexp.v"], top="kexp"), d / "fe")
    return d, json.loads(pre.read_text()), top


def _simulate(work: Path, rtl: Path, doc: dict, top: str, lm: loadreg.LoadMap, reg_bits: list[int],
              key: int, cycles: int = 300, seed: int = 7) -> str:
    """Icarus: the form's netlist (module ``<top>_form``), loaded through its port, against the RTL
    with ``key`` on its parameter port; returns vvp's output."""
    doc = {"creator": doc["creator"], "modules": {f"{top}_form": doc["modules"][top]}}
    (work / "form.json").write_text(json.dumps(doc))
    run_script(f"read_json form.json\nwrite_verilog -noattr form.v\n", work, "yosys")
    rng = random.Random(seed)
    words = [sum(reg_bits[i] << (i % 32) for i in range(w * 32, min(len(reg_bits), w * 32 + 32)))
             for w in range(lm.words)]
    addr = f".dcs_load_addr(addr), " if lm.addr_bits else ""
    load = "".join(f"    addr = {w}; data = 32'h{v:08x}; we = 1; @(posedge clk); #1;\n" for w, v in enumerate(words))
    steps = "".join(f"    d = 16'h{rng.getrandbits(16):04x}; sel = {rng.randrange(4)}; rst = {int(rng.random() < 0.05)}; "
                    "@(posedge clk); #1; if (q !== qf) begin errors = errors + 1; "
                    "$display(\"MISMATCH %h %h\", q, qf); end\n" for _ in range(cycles))
    (work / "tb.v").write_text(f"""
module tb;
  reg clk = 0, rst = 1, we = 0; reg [15:0] d = 0; reg [1:0] sel = 0; reg [31:0] data = 0;
  reg [{max(1, lm.addr_bits) - 1}:0] addr = 0; integer errors = 0;
  wire [15:0] q, qf;
  always #5 clk = ~clk;
  {top} ref (.clk(clk), .rst(rst), .key(16'h{key:04x}), .d(d), .sel(sel), .q(q));
  {top}_form dut (.clk(clk), .rst(rst), .d(d), .sel(sel), .q(qf), {addr}.dcs_load_data(data), .dcs_load_we(we));
  initial begin
    #1;
{load}    we = 0; @(posedge clk); #1;
{steps}    $display("DONE %0d", errors);
    $finish;
  end
endmodule
""")
    r = icarus([cells_sim(), rtl, work / "form.v", work / "tb.v"], work, top="tb")
    return r.stdout


@pytest.mark.parametrize("form, bits", [("register", 16), ("precomputed", 53)])
def test_a_register_form_loaded_through_its_port_behaves_like_the_design(kexp_pre, tmp_path, form, bits):
    d, pre, top = kexp_pre
    doc, lm, aig = loadreg.register_form(pre, top, ["key"], form)
    assert (lm.bits, lm.words, lm.addr_bits) == (bits, -(-bits // 32), (-(-bits // 32) - 1).bit_length())
    assert "key" not in doc["modules"][top]["ports"]
    assert {"dcs_load_data", "dcs_load_we"} <= set(doc["modules"][top]["ports"])
    loadreg.write_form(tmp_path / "form", doc, lm, aig)
    for key in (0x0000, 0xBEEF, 0x1357):
        reg = loadreg.load_values(tmp_path / "form", {"key": key})
        out = _simulate(tmp_path, d / "kexp.v", doc, top, lm, reg, key)
        assert "DONE 0" in out, out[-2000:]


def test_the_simulation_view_of_a_finished_form_takes_the_parameter_ports(kexp_pre, tmp_path):
    """The precomputed form finished by synth_xilinx (Yosys's own LUT mapping), behind the design's
    interface (simulation_view: its register held at the value the key port gives), against the RTL,
    the key changed half-way."""
    from dcsflow.flow.frontend import ABC_LUTS_DEFAULT, continue_synthesis

    d, pre, top = kexp_pre
    doc, lm, aig = loadreg.register_form(pre, top, ["key"], "precomputed")
    loadreg.write_form(tmp_path / "form", doc, lm, aig)
    continue_synthesis(tmp_path / "form" / "pre.json", top, ABC_LUTS_DEFAULT, tmp_path / "post.json", tmp_path, "yosys")
    mod = json.loads((tmp_path / "post.json").read_text())["modules"][top]
    (tmp_path / "view.v").write_text(loadreg.simulation_view(mod, top, pre["modules"][top]["ports"], tmp_path / "form",
                                                             name="kexp_view"))
    rng = random.Random(5)
    steps = "".join(f"    d = 16'h{rng.getrandbits(16):04x}; sel = {rng.randrange(4)}; @(posedge clk); #1; "
                    "if (q !== qv) errors = errors + 1;\n" for _ in range(150))
    (tmp_path / "tb.v").write_text(f"""
module tb;
  reg clk = 0, rst = 0; reg [15:0] d = 0, key = 16'hbeef; reg [1:0] sel = 0; integer errors = 0;
  wire [15:0] q, qv;
  always #5 clk = ~clk;
  kexp ref (.clk(clk), .rst(rst), .key(key), .d(d), .sel(sel), .q(q));
  kexp_view view (.clk(clk), .rst(rst), .key(key), .d(d), .sel(sel), .q(qv));
  initial begin
    @(posedge clk); #1;
{steps}    key = 16'h2468;
{steps}    $display("DONE %0d", errors);
    $finish;
  end
endmodule
""")
    out = icarus([cells_sim(), d / "kexp.v", tmp_path / "view.v", tmp_path / "tb.v"], tmp_path, top="tb").stdout
    assert "DONE 0" in out, out[-2000:]


def test_a_wrongly_loaded_register_is_caught(kexp_pre, tmp_path):
    """The simulation above can fail: the precomputed register loaded for another key differs."""
    d, pre, top = kexp_pre
    doc, lm, aig = loadreg.register_form(pre, top, ["key"], "precomputed")
    loadreg.write_form(tmp_path / "form", doc, lm, aig)
    reg = loadreg.load_values(tmp_path / "form", {"key": 0xBEEF})
    out = _simulate(tmp_path, d / "kexp.v", doc, top, lm, reg, 0xBEEE)
    assert "DONE 0" not in out


def test_the_register_form_of_the_parameters_alone_is_the_key(kexp_pre):
    d, pre, top = kexp_pre
    _, lm, _ = loadreg.register_form(pre, top, ["key"], "register")
    assert lm.sources == [f"key[{i}]" for i in range(16)] and not lm.same_as_register
    _, lm2, _ = loadreg.register_form(pre, top, ["key"], "precomputed")
    assert not lm2.same_as_register and lm2.bits == 53


def test_a_parameter_on_a_clock_pin_cannot_be_held(tmp_path):
    (tmp_path / "clocked.v").write_text(CLOCKED)
    pre, top, _ = synthesize_pre(DesignSpec(sources=[tmp_path / "clocked.v"], top="clocked"), tmp_path / "fe")
    with pytest.raises(loadreg.LoadRegisterError, match=r"^parameter key reaches the clock input"):
        loadreg.register_form(json.loads(pre.read_text()), top, ["key"], "register")


def test_a_register_wider_than_the_load_port_is_refused(kexp_pre, monkeypatch):
    d, pre, top = kexp_pre
    monkeypatch.setattr(loadreg, "MAX_ADDR_BITS", 1)       # 2 words of 32 bits: the 53 bits fit
    assert loadreg.register_form(pre, top, ["key"], "precomputed")[1].words == 2
    monkeypatch.setattr(loadreg, "MAX_ADDR_BITS", 0)       # 1 word
    with pytest.raises(loadreg.LoadRegisterError, match=r"^parameter key \(16 bits\): the precomputed register "
                                                         r"needs 2 words of 32 bits, more than"):
        loadreg.register_form(pre, top, ["key"], "precomputed")
    assert loadreg.register_form(pre, top, ["key"], "register")[1].words == 1


def test_a_load_map_that_is_not_one_is_refused_in_one_line(tmp_path):
    (tmp_path / "load.json").write_text(json.dumps({"format": "dcsflow-load-map", "version": 1, "form": "register",
                                                    "bits": 2, "words": 1, "addr_bits": 0, "clock": "clk",
                                                    "sources": ["k"], "params": {"k": 2}, "same_as_register": False}))
    with pytest.raises(loadreg.LoadRegisterError, match="one source per register bit"):
        loadreg.read_load_map(tmp_path)
