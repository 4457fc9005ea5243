"""The CFGLUT5 chain loader (``flow/templates/cfglut/dcs_cfglut_loader.v``) under Icarus, loading
chains of Yosys's own CFGLUT5 model (``<datdir>/xilinx/cells_sim.v``), and under ``synth_xilinx``.

Expected values never come from the code under test: every CFGLUT5 starts at INIT 0, the test picks
random INITs, turns them into words with :func:`dcsflow.scg.cfglut.chain_words`, writes a words file,
and the bench loads it through the loader (AXI4-Lite word writes or the AXI4-Stream); then it reads
every CFGLUT5 back through its O6 at all 32 input addresses (and O5) and the test compares with the
random INITs. The bench also counts the cycles with ``ce`` high and logs when hold, ce, done and irq
change.
"""

from __future__ import annotations

import random
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import dcsflow.flow
from dcsflow.flow.simulate import icarus
from dcsflow.flow.yosys import cells_sim
from dcsflow.scg import cfglut as cf
from dcsflow.tools import find_tool, has_tool

LOADER = Path(dcsflow.flow.__file__).resolve().parent / "templates" / "cfglut" / "dcs_cfglut_loader.v"
ICARUS = has_tool("iverilog") and has_tool("vvp")
needs_icarus = pytest.mark.skipif(not ICARUS, reason="Icarus Verilog not installed ($DCSFLOW_IVERILOG)")

OKAY, SLVERR = 0, 2
CONTROL, STATUS, INFO, BUILD_ID, WORDS, STRIDE_LOG2 = 0x00, 0x04, 0x08, 0x0C, 0x10, 0x14
START, IRQ_ENABLE, CLEAR = 1, 2, 4
BUSY, DONE, ERROR, SHIFTING = 1, 2, 4, 8


def chains_of(lengths: list[int]) -> list[list[str]]:
    return [[f"c{c}_l{j}" for j in range(n)] for c, n in enumerate(lengths)]


def random_inits(chains, rng: random.Random) -> dict[str, int]:
    return {n: rng.getrandbits(32) for ch in chains for n in ch}


# ---- the bench ---------------------------------------------------------------------------------------
HEAD = r"""
`timescale 1ns/1ps
module tb;
  reg clk = 0, rstn = 0;
  always #5 clk = ~clk;
  integer cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;
  reg [AW-1:0] awaddr = 0, araddr = 0; reg [31:0] wdata = 0;
  reg awvalid = 0, wvalid = 0, arvalid = 0;
  wire awready, wready, bvalid, arready, rvalid; wire [1:0] bresp, rresp; wire [31:0] rdata;
  reg [31:0] tdata = 0; reg tvalid = 0, tlast = 0; wire tready;
  reg idle = 1;
  wire [C-1:0] cdi; wire ce, hold, busy, done, irq;
  dcs_cfglut_loader #(.CHAINS(C), .CHAIN_LUTS(L), .BUILD_ID(BID), .ADDR_WIDTH(AW)) dut (
    .clk(clk), .rstn(rstn),
    .s_axi_awaddr(awaddr), .s_axi_awvalid(awvalid), .s_axi_awready(awready), .s_axi_wdata(wdata),
    .s_axi_wstrb(4'hF), .s_axi_wvalid(wvalid), .s_axi_wready(wready), .s_axi_bresp(bresp),
    .s_axi_bvalid(bvalid), .s_axi_bready(1'b1), .s_axi_araddr(araddr), .s_axi_arvalid(arvalid),
    .s_axi_arready(arready), .s_axi_rdata(rdata), .s_axi_rresp(rresp), .s_axi_rvalid(rvalid),
    .s_axi_rready(1'b1),
    .s_axis_tdata(tdata), .s_axis_tvalid(tvalid), .s_axis_tready(tready), .s_axis_tlast(tlast),
    .cdi(cdi), .ce(ce), .hold(hold), .idle(idle), .busy(busy), .done(done), .irq(irq));

  // the chains: Yosys's CFGLUT5 model, INIT 0, all inputs on one address bus
  reg [4:0] a = 0;
  wire [N-1:0] o6, o5;
"""

TAIL = r"""
  // monitors: ce cycles, ce without hold, changes of hold/ce/done/irq (sampled at clock edges)
  integer ce_count = 0, ce_bad = 0;
  reg hold_d = 0, ce_d = 0, done_d = 0, irq_d = 0;
  always @(posedge clk) begin
    if (ce === 1'b1) ce_count = ce_count + 1;
    if (ce !== 1'b0 && rstn && hold !== 1'b1) ce_bad = ce_bad + 1;
    if (hold !== hold_d) $display("EV hold %0d %0d", hold, cyc);
    if (ce !== ce_d) $display("EV ce %0d %0d", ce, cyc);
    if (done !== done_d) $display("EV done %0d %0d", done, cyc);
    if (irq !== irq_d) $display("EV irq %0d %0d", irq, cyc);
    hold_d <= hold; ce_d <= ce; done_d <= done; irq_d <= irq;
  end

  task wr(input [AW-1:0] adr, input [31:0] d, input integer tag); begin
    @(negedge clk) awaddr = adr; wdata = d; awvalid = 1; wvalid = 1;
    @(posedge clk); while (!(awready && wready && bvalid)) @(posedge clk);
    $display("B %0d %0d", tag, bresp);
    #1 awvalid = 0; wvalid = 0;
  end endtask
  task rd(input [AW-1:0] adr, input integer tag); begin
    @(negedge clk) araddr = adr; arvalid = 1;
    @(posedge clk); while (!(arready && rvalid)) @(posedge clk);
    $display("R %0d %0d", tag, rdata);
    #1 arvalid = 0;
  end endtask

  reg [31:0] wmem [0:MAXW-1]; integer nw, fd, r, i, n; reg [8*200:1] line; reg [31:0] w;
  task stream(input integer beats); begin          // beats words from wmem (repeated), tlast on the last
    for (i = 0; i < beats; i = i + 1) begin
      @(negedge clk) tdata = wmem[i % nw]; tvalid = 1; tlast = (i == beats - 1);
      @(posedge clk); while (!tready) @(posedge clk);
    end
    @(negedge clk) tvalid = 0; tlast = 0;
  end endtask
  task wait_done; begin
    n = 0;
    while (done !== 1'b1 && n < 100000) begin @(posedge clk); n = n + 1; end
    if (done !== 1'b1) $display("TIMEOUT");
    @(negedge clk);
  end endtask
  task readback(input integer tag); begin
    for (i = 0; i < 32; i = i + 1) begin a = i; #1 $display("O %0d %0d %b %b", tag, i, o6, o5); end
  end endtask
  task mark(input integer tag); $display("M %0d %0d %0d %0d %0d %0d", tag, ce_count, ce_bad, cyc, hold, busy); endtask

  initial begin
    repeat (3) @(posedge clk); @(negedge clk) rstn = 1;
"""


def _lut_instances(chains) -> tuple[str, list[str]]:
    """The CFGLUT5 instances of ``chains`` and the name of each O6/O5 bus bit (index = bit)."""
    lines, names = [], []
    for c, ch in enumerate(chains):
        prev = f"cdi[{c}]"
        for j, name in enumerate(ch):
            i = len(names)
            names.append(name)
            lines.append(f"  wire cdo_{name};\n  CFGLUT5 {name} (.CDI({prev}), .CDO(cdo_{name}), .CE(ce), .CLK(clk), "
                         f".I0(a[0]), .I1(a[1]), .I2(a[2]), .I3(a[3]), .I4(a[4]), .O6(o6[{i}]), .O5(o5[{i}]));")
            prev = f"cdo_{name}"
    return "\n".join(lines), names


class Script:
    """The bench's stimulus: Verilog statements appended in order."""

    def __init__(self, n_chains: int, n_luts: int, addr_width: int):
        self.c, self.l, self.aw = n_chains, n_luts, addr_width
        self.s, self.sl = cf.shift_cycles(n_luts), cf.stride_log2(n_luts)
        self.nwords = cf.word_count(n_chains, n_luts)
        self.lines: list[str] = []

    def __iadd__(self, stmt: str):
        self.lines.append("    " + stmt)
        return self

    def words_file(self, path: Path) -> None:
        """Read a words file into wmem (header line skipped: $readmemh does not take it)."""
        self += (f'fd = $fopen("{path}", "r"); r = $fgets(line, fd); nw = 0; '
                 f'while ($fscanf(fd, "%h\\n", w) == 1) begin wmem[nw] = w; nw = nw + 1; end $fclose(fd);')

    def axi_words(self, tag: int) -> None:
        """Write wmem[0..WORDS-1] to the word window (addresses from word_address), responses tagged."""
        for i in range(self.nwords):
            g, t = divmod(i, self.s)
            self += f"wr({cf.word_address(g, t, self.sl, self.aw)}, wmem[{i}], {tag});"

    def wr(self, adr: int, data: int, tag: int) -> None:
        self += f"wr({adr}, 32'h{data:08x}, {tag});"

    def rd(self, adr: int, tag: int) -> None:
        self += f"rd({adr}, {tag});"


def write_words(tmp_path: Path, name: str, chains, inits, build_id: int) -> Path:
    p = tmp_path / name
    cf.write_words_file(p, cf.chain_words(chains, inits), len(chains), cf.chain_luts(chains), build_id)
    return p


@dataclass
class Result:
    events: list = field(default_factory=list)         # (signal, value, cycle)
    bresp: dict = field(default_factory=dict)          # tag -> [bresp, ...]
    reads: dict = field(default_factory=dict)          # tag -> [rdata, ...]
    marks: dict = field(default_factory=dict)          # tag -> (ce_count, ce_bad, cycle, hold, busy)
    luts: dict = field(default_factory=dict)           # tag -> {name: (INIT from O6, INIT from O5)}
    stdout: str = ""

    def rises(self, sig: str) -> list[int]:
        return [c for s, v, c in self.events if s == sig and v == "1"]

    def falls(self, sig: str) -> list[int]:
        return [c for s, v, c in self.events if s == sig and v == "0"]


def run_bench(tmp_path: Path, chains, script: Script, build_id: int = 0) -> Result:
    insts, names = _lut_instances(chains)
    n = len(names)
    defs = (f"  localparam C = {len(chains)}, L = {cf.chain_luts(chains)}, AW = {script.aw}, N = {n}, "
            f"MAXW = {script.nwords + 64};\n  localparam [31:0] BID = 32'h{build_id:08x};\n")
    tb = HEAD.replace("module tb;\n", "module tb;\n" + defs, 1) + insts + TAIL + "\n".join(script.lines) + \
        "\n    $finish;\n  end\nendmodule\n"
    (tmp_path / "tb.v").write_text(tb)
    r = icarus([tmp_path / "tb.v", LOADER, cells_sim()], tmp_path, top="tb", timeout=300)
    out = r.stdout
    assert "TIMEOUT" not in out, out[-2000:]
    res = Result(stdout=out)
    o6: dict = {}
    o5: dict = {}
    for ln in out.splitlines():
        f = ln.split()
        if not f:
            continue
        if f[0] == "EV":
            res.events.append((f[1], f[2], int(f[3])))
        elif f[0] == "B":
            res.bresp.setdefault(int(f[1]), []).append(int(f[2]))
        elif f[0] == "R":
            res.reads.setdefault(int(f[1]), []).append(int(f[2]))
        elif f[0] == "M":
            res.marks[int(f[1])] = tuple(int(x) for x in f[2:])
        elif f[0] == "O":
            tag, adr = int(f[1]), int(f[2])
            assert re.fullmatch(r"[01]+", f[3] + f[4]), f"unknown bits in the CFGLUT5 outputs: {ln}"
            o6.setdefault(tag, {})[adr] = f[3][::-1]     # string index i = bus bit i
            o5.setdefault(tag, {})[adr] = f[4][::-1]
    for tag in o6:
        assert sorted(o6[tag]) == list(range(32))
        res.luts[tag] = {}
        for i, name in enumerate(names):
            init6 = sum(int(o6[tag][adr][i]) << adr for adr in range(32))
            # O5 = r[{1'b0, I3..I0}]: address a and a+16 both show INIT bit a (a < 16)
            low = [int(o5[tag][adr][i]) for adr in range(16)]
            assert low == [int(o5[tag][adr + 16][i]) for adr in range(16)], f"{name}: O5 not independent of I4"
            res.luts[tag][name] = (init6, sum(b << adr for adr, b in enumerate(low)))
    return res


def assert_loaded(res: Result, tag: int, inits: dict) -> None:
    got = res.luts[tag]
    bad = [f"{n}: O6 {got[n][0]:08x} O5 {got[n][1]:04x}, INIT {v:08x}" for n, v in inits.items()
           if got[n][0] != v or got[n][1] != v & 0xFFFF]
    assert not bad, f"readback {tag}: {len(bad)} of {len(inits)} CFGLUT5s differ:\n" + "\n".join(bad[:10])


LENGTHS_37 = [(c % 3) + 1 for c in range(37)]      # 37 chains (two groups), lengths 1, 2, 3: CHAIN_LUTS=3


# ---- the tests -----------------------------------------------------------------------------------
@needs_icarus
@pytest.mark.parametrize("first, second", [("axi", "stream"), ("stream", "axi")])
def test_load_twice_axi_and_stream(tmp_path, first, second):
    """37 chains of 1..3 CFGLUT5s: a load of random INITs, then another over it, one through AXI4-Lite
    word writes and one through the stream; both read back exactly; ce high exactly S cycles each,
    DONE S+2 cycles after START with idle high."""
    rng = random.Random(f"{first}-{second}")
    chains = chains_of(LENGTHS_37)
    inits = [random_inits(chains, rng) for _ in range(2)]
    sc = Script(37, 3, 16)
    for k, how in enumerate((first, second)):
        sc.words_file(write_words(tmp_path, f"w{k}.txt", chains, inits[k], 0x5EED))
        sc += f"mark({10 + k});"
        if how == "axi":
            sc.axi_words(100 + k)
            sc.wr(CONTROL, START, 200 + k)
        else:
            sc += f"stream({sc.nwords});"
        sc += "wait_done;"
        sc += f"mark({20 + k});"
        sc.rd(STATUS, 300 + k)
        sc += f"readback({k});"
    res = run_bench(tmp_path, chains, sc, 0x5EED)
    s = 96
    for k, how in enumerate((first, second)):
        assert_loaded(res, k, inits[k])
        assert res.marks[20 + k][0] - res.marks[10 + k][0] == s, "ce must be high exactly S cycles per load"
        if how == "axi":
            assert res.bresp[100 + k] == [OKAY] * 192 and res.bresp[200 + k] == [OKAY]
        assert res.reads[300 + k] == [DONE]
    assert res.marks[21][1] == 0, "ce high without hold"
    hold, done, ce_up, ce_down = res.rises("hold"), res.rises("done"), res.rises("ce"), res.falls("ce")
    assert len(hold) == len(done) == len(ce_up) == len(ce_down) == 2
    for k in range(2):
        assert ce_up[k] - hold[k] == 2 and ce_down[k] - ce_up[k] == s and done[k] - hold[k] == s + 2, res.events
    assert res.falls("hold") == done


@needs_icarus
def test_hold_waits_for_idle_and_registers(tmp_path):
    """START with idle low: hold and BUSY at once, no ce until idle rises; the read-only registers;
    irq = DONE & IRQ_ENABLE, cleared by CLEAR and by START."""
    rng = random.Random(7)
    chains = chains_of(LENGTHS_37)
    inits = random_inits(chains, rng)
    sc = Script(37, 3, 12)                              # the smallest address width that holds 2 x 128 words: 11
    sc.words_file(write_words(tmp_path, "w.txt", chains, inits, 0xDEADBEEF))
    for k, adr in enumerate((INFO, BUILD_ID, WORDS, STRIDE_LOG2, 0x18, 0x7FC, 0x800, 0x804, CONTROL, STATUS)):
        sc.rd(adr, k)
    sc.axi_words(100)
    sc += "idle = 0;"
    sc.wr(CONTROL, START | IRQ_ENABLE, 101)
    sc += "mark(1);"
    sc += "repeat (50) @(posedge clk);"
    sc.rd(STATUS, 20)
    sc.rd(CONTROL, 21)
    sc += "mark(2);"
    sc += "@(negedge clk) idle = 1;"
    sc += "wait_done;"
    sc += "mark(3);"
    sc.rd(STATUS, 22)
    sc += "readback(0);"
    sc.wr(CONTROL, IRQ_ENABLE | CLEAR, 102)             # irq falls
    sc.rd(STATUS, 23)
    sc.wr(CONTROL, START | IRQ_ENABLE, 103)             # the same words again: done, irq rise again
    sc += "wait_done;"
    sc.wr(CONTROL, START | IRQ_ENABLE, 104)             # START clears DONE: irq falls at once
    sc += "wait_done;"
    sc.wr(CONTROL, 0, 105)                              # IRQ_ENABLE off: irq falls, DONE stays
    sc.rd(STATUS, 24)
    sc.rd(CONTROL, 25)
    res = run_bench(tmp_path, chains, sc, 0xDEADBEEF)
    reads = {k: v[0] for k, v in res.reads.items()}
    assert reads[0] == 3 << 16 | 37, "INFO = CHAIN_LUTS << 16 | CHAINS"
    assert (reads[1], reads[2], reads[3]) == (0xDEADBEEF, 192, 7), "BUILD_ID, WORDS, STRIDE_LOG2"
    assert reads[4] == reads[5] == reads[6] == reads[7] == 0, "unmapped offsets and the word window read 0"
    assert reads[8] == 0 and reads[9] == 0, "CONTROL and STATUS after reset"
    assert reads[20] == BUSY and reads[21] == IRQ_ENABLE, "waiting for idle: BUSY, not SHIFTING"
    assert res.marks[2][0] == res.marks[1][0] == 0 and res.marks[2][3] == 1, "no ce and hold high while idle is low"
    assert reads[22] == DONE and reads[23] == 0 and reads[24] == DONE and reads[25] == 0
    assert_loaded(res, 0, inits)
    assert res.bresp[100] == [OKAY] * 192 and all(res.bresp[t] == [OKAY] for t in range(101, 106))
    hold, done, ce_up = res.rises("hold"), res.rises("done"), res.rises("ce")
    assert ce_up[0] - hold[0] > 50 and done[0] - ce_up[0] == 96, res.events
    assert ce_up[1] - hold[1] == 2 and done[1] - hold[1] == 98
    irq_up, irq_down = res.rises("irq"), res.falls("irq")
    assert irq_up == done and len(irq_down) == 3
    assert irq_down[1] == hold[2], "START clears DONE and with it irq"
    assert res.marks[3][0] == 96 and res.marks[3][1] == 0


@needs_icarus
def test_errors_while_busy_and_outside_the_window(tmp_path):
    """START and a word write while BUSY, word addresses outside the used part: SLVERR, sticky ERROR,
    no effect (the loaded CFGLUT5s are the words written before START); CLEAR clears ERROR."""
    rng = random.Random(11)
    chains = chains_of(LENGTHS_37)
    inits = random_inits(chains, rng)
    sc = Script(37, 3, 16)
    sc.words_file(write_words(tmp_path, "w.txt", chains, inits, 1))
    sc.axi_words(100)
    sc += "idle = 0;"
    sc.wr(CONTROL, START, 101)
    sc.wr(CONTROL, START, 1)                                           # START while busy
    sc.wr(cf.word_address(0, 5, 7), 0xFFFFFFFF, 2)                     # word write while busy
    sc.wr(cf.word_address(1, 95, 7), 0x12345678, 3)
    sc.rd(STATUS, 10)
    sc += "@(negedge clk) idle = 1;"
    sc += "wait_done;"
    sc.rd(STATUS, 11)
    sc += "readback(0);"
    sc.wr(CONTROL, CLEAR, 102)
    sc.rd(STATUS, 12)
    for k, (g, t) in enumerate(((0, 96), (0, 127), (1, 100), (2, 0), (3, 5)), start=4):
        sc.wr(cf.word_address(g, t, 7), 0xFFFFFFFF, k)                 # outside the used part
    sc.wr(0xFFFC, 0xFFFFFFFF, 9)                                       # last word of the window
    sc.rd(STATUS, 13)
    sc.wr(0x40, 0xFFFFFFFF, 103)                                       # an unmapped register: ignored
    sc.wr(STATUS, 0xFFFFFFFF, 104)                                     # a read-only register: ignored
    sc.wr(CONTROL, CLEAR, 105)
    sc.rd(STATUS, 14)
    sc.wr(CONTROL, START, 106)                                         # the memories are as before
    sc += "wait_done;"
    sc += "readback(1);"
    res = run_bench(tmp_path, chains, sc, 1)
    reads = {k: v[0] for k, v in res.reads.items()}
    assert [res.bresp[k] for k in range(1, 10)] == [[SLVERR]] * 9
    assert res.bresp[100] == [OKAY] * 192 and all(res.bresp[k] == [OKAY] for k in range(101, 107))
    assert reads[10] == BUSY | ERROR
    assert reads[11] == DONE | ERROR
    assert reads[12] == 0
    assert reads[13] == ERROR and reads[14] == 0
    assert_loaded(res, 0, inits)
    assert_loaded(res, 1, inits)
    assert len(res.rises("hold")) == 2 and res.rises("done") == res.falls("hold")


@needs_icarus
def test_stream_packet_of_wrong_length(tmp_path):
    """Stream packets one beat short, one beat long, of one beat, of two loads, of one group's words:
    ERROR, no shift, no CFGLUT5 changed; the next packet of the right length loads."""
    rng = random.Random(13)
    chains = chains_of(LENGTHS_37)
    first, second = random_inits(chains, rng), random_inits(chains, rng)
    sc = Script(37, 3, 16)
    sc.words_file(write_words(tmp_path, "w1.txt", chains, first, 9))
    sc += f"stream({sc.nwords});"
    sc += "wait_done;"
    sc += "readback(0);"
    sc.words_file(write_words(tmp_path, "w2.txt", chains, second, 9))
    sc += "mark(1);"
    for k, beats in enumerate((sc.nwords - 1, sc.nwords + 1, 1, 2 * sc.nwords, sc.s)):
        sc += f"stream({beats});"
        sc += "repeat (200) @(posedge clk);"
        sc.rd(STATUS, 10 + k)
        sc.wr(CONTROL, CLEAR, 20 + k)
    sc += "mark(2);"
    sc += "readback(1);"
    sc += f"stream({sc.nwords});"
    sc += "wait_done;"
    sc += "readback(2);"
    res = run_bench(tmp_path, chains, sc, 9)
    assert_loaded(res, 0, first)
    assert all(res.reads[10 + k] == [DONE | ERROR] if k == 0 else res.reads[10 + k] == [ERROR] for k in range(5))
    assert res.marks[2][0] == res.marks[1][0] == 96, "no shift after a packet of the wrong length"
    assert_loaded(res, 1, first)
    assert_loaded(res, 2, second)
    assert len(res.rises("hold")) == 2


@needs_icarus
@pytest.mark.parametrize("lengths", [[1], [4] * 64, [2] * 32])
def test_other_shapes(tmp_path, lengths):
    """One chain of one CFGLUT5 (S = STRIDE = 32), 64 chains of 4 (two full groups), exactly one
    full group: a stream load reads back, ce exactly S cycles."""
    rng = random.Random(len(lengths))
    chains = chains_of(lengths)
    inits = random_inits(chains, rng)
    n_luts = max(lengths)
    sc = Script(len(chains), n_luts, cf.min_addr_width(len(chains), n_luts))
    sc.words_file(write_words(tmp_path, "w.txt", chains, inits, 0))
    sc += f"stream({sc.nwords});"
    sc += "wait_done;"
    sc += "mark(1);"
    sc += "readback(0);"
    res = run_bench(tmp_path, chains, sc)
    assert_loaded(res, 0, inits)
    assert res.marks[1][:2] == (32 * n_luts, 0)


@needs_icarus
def test_too_small_address_width_fails_elaboration(tmp_path):
    from dcsflow.flow.simulate import SimulatorError

    with pytest.raises(SimulatorError, match="dcs_cfglut_loader_bad_parameters"):
        icarus([LOADER], tmp_path, top="dcs_cfglut_loader",
               parameters={"CHAINS": 37, "CHAIN_LUTS": 3, "ADDR_WIDTH": cf.min_addr_width(37, 3) - 1})
    icarus([LOADER], tmp_path, top="dcs_cfglut_loader",
           parameters={"CHAINS": 37, "CHAIN_LUTS": 3, "ADDR_WIDTH": cf.min_addr_width(37, 3)})


@pytest.mark.skipif(not has_tool("yosys"), reason="Yosys not installed ($DCSFLOW_YOSYS)")
def test_synthesizes_with_synth_xilinx(tmp_path):
    """CHAINS=64, CHAIN_LUTS=4 through ``synth_xilinx``: the memories become RAM, the rest a few LUTs
    and FFs (the counts are in the assertion message)."""
    script = (f"read_verilog {LOADER}; chparam -set CHAINS 64 -set CHAIN_LUTS 4 dcs_cfglut_loader; "
              "synth_xilinx -flatten -top dcs_cfglut_loader; stat")
    r = subprocess.run([find_tool("yosys"), "-p", script], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    stat = r.stdout[r.stdout.rindex("Printing statistics"):]
    cells = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+(\w+)\s+(\d+)$", stat, re.M)}
    luts = sum(v for k, v in cells.items() if re.fullmatch(r"LUT\d", k))
    ffs = sum(v for k, v in cells.items() if re.fullmatch(r"FD\w+", k))
    rams = {k: v for k, v in cells.items() if k.startswith("RAM")}
    figures = f"LUTs {luts}, FFs {ffs}, RAM {rams}, all cells {cells}"
    assert luts > 0 and ffs > 0 and rams, figures
    assert luts < 200 and ffs < 100, figures
    assert "$mem" not in stat and "$_" not in stat, "cells left unmapped: " + figures
    print(figures)
