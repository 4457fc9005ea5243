"""Icarus test bench of the PYNQ-Z1 AXI4-Lite wrapper (``flow/boards/dcs_axil_wrapper.v.j2``) around a
π-Cipher message processor of word size ω (tests/test_board_wrapper_wide.py, tests/test_flow_picipher3264.py)."""

from __future__ import annotations

import subprocess

from dcsflow.designs.picipher.model import cipher
from dcsflow.designs.picipher.sim import message_words

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
`ifdef RTL
  defparam dut.core.W = `W;
  defparam dut.core.KEY_BITS = 128;
  defparam dut.core.BUFFER_KEY = 0;
`endif
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




def run_wrapper(tmp_path, w: int, sources: list, key: bytes, pmn: bytes, msg: bytes, rtl: bool) -> dict:
    """Encrypt ``msg``, decrypt its ciphertext with the right tag in TAG_IN, then with a flipped tag bit,
    all through AXI register accesses on ``sources`` (the rendered wrapper, the core: RTL with
    ``rtl`` (W set by defparam, BUFFER_KEY=0, key port 0) or a specialized netlist and cells_sim.v).
    Returns {"expected": golden-model CIPHER for key, pmn, msg, "cipher": ciphertext ‖ tag read,
    "plain": decrypted bytes, "tag_ok": [encrypt, right tag, wrong tag] STATUS[4] values}.
    Raises CalledProcessError (Icarus), AssertionError (test-bench timeout)."""
    ct = cipher(w).encrypt(key, pmn, msg, b"")
    body, tag = ct[:-w], ct[-w:]
    pw, last = message_words(msg, w)
    cw, _ = message_words(body, w)
    stream = [[(int(k == len(ws) - 1) << 24) | ((last if k == len(ws) - 1 else 0) << 16) | x
               for k, x in enumerate(ws)] for ws in (pw, cw, cw)]
    bad = bytes([tag[0] ^ 0x80]) + tag[1:]
    nt = w // 4                                                     # tag words of 32 bits
    tag_words = [int.from_bytes(t[4 * i:4 * i + 4], "big") for t in (tag, bad) for i in range(nt)]
    (tmp_path / "words.hex").write_text("\n".join(f"{x:08x}" for x in sum(stream, []) + tag_words) + "\n")
    (tmp_path / "tb.v").write_text(TB)
    exe = tmp_path / "tb.vvp"
    aw = {4: 6, 8: 7, 16: 8}[nt]
    lenw = {16: 5, 32: 6, 64: 7}[w]
    subprocess.run(["iverilog", "-g2012", f"-DW={w}", f"-DAW={aw}", f"-DNT={nt}", f"-DLENW={lenw}",
                    f"-DNWORDS={len(pw)}", *(["-DRTL"] if rtl else []), "-o", str(exe), str(tmp_path / "tb.v"),
                    *map(str, sources)], check=True, capture_output=True, text=True)
    out = subprocess.run(["vvp", "-n", str(exe)], check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    assert "TIMEOUT" not in out
    lines = [ln.split() for ln in out.splitlines() if ln[:1] in "MST"]

    def field(kind, run):
        return [x[1] for x in lines if x[0] == f"{kind}{run}"]

    got_ct = b"".join(int(x, 16).to_bytes(2, "little") for x in field("M", 0))[:len(msg)]
    got_tag = b"".join(int(x, 16).to_bytes(4, "big") for x in field("T", 0))
    plain = b"".join(int(x, 16).to_bytes(2, "little") for x in field("M", 1))[:len(msg)]
    return {"expected": ct, "cipher": got_ct + got_tag, "plain": plain,
            "tag_ok": [int(field("S", r)[0]) for r in range(3)]}
