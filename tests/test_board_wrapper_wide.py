"""The PYNQ-Z1 block design's AXI4-Lite wrapper (``flow/boards/dcs_axil_wrapper.v.j2``) for the π32- and
π64-Cipher message processors: rendered from the ports Yosys reads from the RTL (``W`` = 32 / 64: 256-
and 512-bit tags, 6- and 7-bit byte counts), driven by AXI register accesses in Icarus around the RTL
(key port tied to 0 by the wrapper, ``BUFFER_KEY=0``). Encrypting must give the golden model's
CIPHER for Key‖PMN = 0 (independent reference), and decrypting with the expected tag written to
TAG_IN must set tag_ok, with a wrong tag must not. A few seconds per word size."""

from __future__ import annotations

import json
import subprocess

import pytest

from dcsflow.designs.picipher.model import cipher
from dcsflow.designs.picipher.sim import message_words, rtl_files
from dcsflow.flow.backend.vivado import render, template_context
from dcsflow.flow.yosys import run_script

TB = r"""
`timescale 1ns/1ps
module tb;
  reg clk = 0, rstn = 0;
  always #5 clk = ~clk;
  reg [`AW-1:0] awaddr = 0, araddr = 0; reg [31:0] wdata = 0;
  reg awvalid = 0, wvalid = 0, arvalid = 0;
  wire awready, wready, bvalid, arready, rvalid; wire [1:0] bresp, rresp; wire [31:0] rdata;
  dcs_axil_wrapper dut (.s_axi_aclk(clk), .s_axi_aresetn(rstn), .s_axi_awaddr(awaddr), .s_axi_awvalid(awvalid),
    .s_axi_awready(awready), .s_axi_wdata(wdata), .s_axi_wstrb(4'hF), .s_axi_wvalid(wvalid), .s_axi_wready(wready),
    .s_axi_bresp(bresp), .s_axi_bvalid(bvalid), .s_axi_bready(1'b1), .s_axi_araddr(araddr), .s_axi_arvalid(arvalid),
    .s_axi_arready(arready), .s_axi_rdata(rdata), .s_axi_rresp(rresp), .s_axi_rvalid(rvalid), .s_axi_rready(1'b1));
  defparam dut.core.W = `W;
  defparam dut.core.KEY_BITS = 128;
  defparam dut.core.BUFFER_KEY = 0;
  task wr(input [`AW-1:0] a, input [31:0] d); begin
    @(negedge clk) awaddr = a; wdata = d; awvalid = 1; wvalid = 1;
    @(posedge clk); while (!(awready && wready)) @(posedge clk);
    #1 awvalid = 0; wvalid = 0;
  end endtask
  task rd(input [`AW-1:0] a, output [31:0] d); begin
    @(negedge clk) araddr = a; arvalid = 1;
    @(posedge clk); while (!(arready && rvalid)) @(posedge clk);
    d = rdata; #1 arvalid = 0;
  end endtask
  reg [31:0] words [0:3*`NWORDS+2*`NT-1]; reg [31:0] st, w; integer i, n, polls, run;
  task message(input integer base, input integer mode); begin
    wr(4, 32'h2); wr(4, mode);                        // core reset, then the mode
    for (i = 0; i < `NWORDS; i = i + 1) begin
      polls = 0;
      rd(0, st);
      while (!st[0] || st[1]) begin                  // drain output words while waiting for the slot
        if (st[1]) begin rd(12, w); $display("M%0d %04h", run, w[15:0]); end
        rd(0, st); polls = polls + 1;
        if (polls > 100000) begin $display("TIMEOUT"); $finish; end
      end
      wr(8, words[base + i]);
    end
    polls = 0;
    rd(0, st);
    while (!st[3]) begin
      if (st[1]) begin rd(12, w); $display("M%0d %04h", run, w[15:0]); end
      rd(0, st); polls = polls + 1;
      if (polls > 100000) begin $display("TIMEOUT"); $finish; end
    end
    $display("S%0d %0d", run, st[4]);
    for (i = 0; i < `NT; i = i + 1) begin rd(4 * `NT + 4 * i, w); $display("T%0d %08h", run, w); end
  end endtask
  initial begin
    $readmemh("words.hex", words);
    repeat (3) @(posedge clk); rstn = 1;
    run = 0; message(0, 0);                                          // encrypt the plaintext
    for (i = 0; i < `NT; i = i + 1) wr(8 * `NT + 4 * i, words[3 * `NWORDS + i]);
    run = 1; message(`NWORDS, 1);                                     // decrypt, right tag
    for (i = 0; i < `NT; i = i + 1) wr(8 * `NT + 4 * i, words[3 * `NWORDS + `NT + i]);
    run = 2; message(2 * `NWORDS, 1);                                 // decrypt, one tag bit flipped
    $finish;
  end
endmodule
"""


@pytest.mark.parametrize("w", [32, 64])
def test_axi_lite_wrapper_runs_the_wide_message_processor(w, tmp_path):
    srcs = " ".join(str(p) for p in rtl_files())
    run_script(f"read_verilog {srcs}\nchparam -set W {w} -set KEY_BITS 128 picipher_mp\n"
               f"hierarchy -top picipher_mp\nproc\nwrite_json {tmp_path / 'ports.json'}\n", tmp_path, "ports")
    module = json.loads((tmp_path / "ports.json").read_text())["modules"]["picipher_mp"]
    ctx = template_context("picipher_mp", module, [], None, "xc7z020clg400-1", "key_mn")
    lenw = {32: 6, 64: 7}[w]
    assert ctx["port_widths"]["tag"] == 8 * w and ctx["port_widths"]["m_bytes"] == lenw
    (tmp_path / "wrapper.v").write_text(render("boards/dcs_axil_wrapper.v.j2", ctx))

    c = cipher(w)
    key, pmn = bytes(16), bytes(16)
    msg = bytes((7 * i + 3) & 0xFF for i in range(w + 5))          # a full block and 5 bytes
    ct = c.encrypt(key, pmn, msg, b"")
    body, tag = ct[:-w], ct[-w:]
    pw, last = message_words(msg, w)
    cw, _ = message_words(body, w)
    stream = [[(int(k == len(ws) - 1) << 24) | ((last if k == len(ws) - 1 else 0) << 16) | x
               for k, x in enumerate(ws)] for ws in (pw, cw, cw)]
    bad = bytes([tag[0] ^ 0x80]) + tag[1:]
    tag_words = [int.from_bytes(t[4 * i:4 * i + 4], "big") for t in (tag, bad) for i in range(w // 4)]
    nt = 8 * w // 32
    (tmp_path / "words.hex").write_text("\n".join(f"{x:08x}" for x in sum(stream, []) + tag_words) + "\n")
    (tmp_path / "tb.v").write_text(TB)
    exe = tmp_path / "tb.vvp"
    aw = {8: 7, 16: 8}[nt]
    subprocess.run(["iverilog", "-g2012", f"-DW={w}", f"-DAW={aw}", f"-DNT={nt}", f"-DLENW={lenw}",
                    f"-DNWORDS={len(pw)}", "-o", str(exe), str(tmp_path / "tb.v"), str(tmp_path / "wrapper.v"),
                    *map(str, rtl_files())], check=True, capture_output=True, text=True)
    out = subprocess.run(["vvp", "-n", str(exe)], check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    assert "TIMEOUT" not in out
    lines = [ln.split() for ln in out.splitlines() if ln[:1] in "MST"]

    def field(kind, run):
        return [x[1:] for x in lines if x[0] == f"{kind}{run}"]

    got_ct = b"".join(int(x[0], 16).to_bytes(2, "little") for x in field("M", 0))
    got_tag = b"".join(int(x[0], 16).to_bytes(4, "big") for x in field("T", 0))
    assert got_ct[:len(msg)] + got_tag == ct
    assert field("S", 0)[0][0] == "0"                              # encrypting: tag_ok 0
    got_pt = b"".join(int(x[0], 16).to_bytes(2, "little") for x in field("M", 1))
    assert got_pt[:len(msg)] == msg and field("S", 1)[0][0] == "1"   # right tag accepted
    assert field("S", 2)[0][0] == "0"                              # wrong tag refused
