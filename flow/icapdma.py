"""The ICAPE2 stream controller in the fabric (``--transport icap-dma``): its Verilog per build, its
simulation against the ICAPE2 model, its cost.

The controller (``flow/templates/icapdma/dcs_icap_dma.v``, the register map in
:mod:`dcsflow.scg.icapdma` and docs/formats.md "ICAP stream controller, version 1") is one fixed
Verilog-2005 module; a build's copy is instantiated with the build's parameters by a generated top
(:func:`top_verilog`, module ``dcs_icap_dma_top``): ``BUILD_ID`` (the design hash's first 8 hex
digits), ``REKEY_WORDS`` (the ICAP words of the build's rekey) and ICAPE2 with the device's IDCODE.

:func:`simulate` runs a word stream through that top under Icarus: the controller reads the words
from an AXI4 memory model (``dcs_axi_mem_model.v``: a latency, one beat per cycle, optional random
stalls and a bus-error word) or from its AXI4-Stream input, and ICAPE2 is the behavioural model
``dcs_icape2_model.v`` (UG470 packets over a configuration memory of the whole device), whose
memory afterwards is compared with the Python emulator's. The cycles a transfer takes are counted
by the test bench: the clock edges with the controller's ``busy`` output high, from the edge that
accepts START to the one that sets DONE. :func:`controller_cost` is the controller's
``synth_xilinx`` cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.scg.icapdma import ADDRESS, CONTROL, LENGTH, START, STATUS, WORDS_SENT, build_id_of
from dcsflow.scg.timemodel import ICAPE2_HZ

from .errors import FlowError

_TEMPLATES = Path(__file__).resolve().parent / "templates" / "icapdma"
#: the controller's source (copied into a build's Vivado folder unchanged)
CONTROLLER = _TEMPLATES / "dcs_icap_dma.v"
#: simulation only: the ICAPE2 model and the AXI4 memory model
ICAPE2_MODEL = _TEMPLATES / "dcs_icape2_model.v"
AXI_MEMORY_MODEL = _TEMPLATES / "dcs_axi_mem_model.v"
#: the controller's files in a build's Vivado folder: the controller, the build's top
SOURCE_FILES = ("dcs_icap_dma.v", "dcs_icap_dma_top.v")
#: the controller's clock in the figures: ICAPE2's maximum (``dcsflow.scg.timemodel.ICAPE2_HZ``, with its source)
CLOCK_MHZ = ICAPE2_HZ.value / 1e6
#: the memory model's latency in the figures: cycles from a read address to its first beat
DEFAULT_LATENCY = 32


class IcapDmaError(FlowError):
    """The controller's simulation failed or its output cannot be read."""


def controller_text() -> str:
    """The controller's Verilog (module ``dcs_icap_dma``)."""
    return CONTROLLER.read_text()


#: the bus ports of ``dcs_icap_dma_top``, as the controller has them: (name, direction, bits)
TOP_BUSES = (
    ("s_axi_awaddr", "input", 6), ("s_axi_awvalid", "input", 1), ("s_axi_awready", "output", 1),
    ("s_axi_wdata", "input", 32), ("s_axi_wstrb", "input", 4), ("s_axi_wvalid", "input", 1),
    ("s_axi_wready", "output", 1), ("s_axi_bresp", "output", 2), ("s_axi_bvalid", "output", 1),
    ("s_axi_bready", "input", 1), ("s_axi_araddr", "input", 6), ("s_axi_arvalid", "input", 1),
    ("s_axi_arready", "output", 1), ("s_axi_rdata", "output", 32), ("s_axi_rresp", "output", 2),
    ("s_axi_rvalid", "output", 1), ("s_axi_rready", "input", 1),
    ("m_axi_araddr", "output", 32), ("m_axi_arlen", "output", 8), ("m_axi_arsize", "output", 3),
    ("m_axi_arburst", "output", 2), ("m_axi_arcache", "output", 4), ("m_axi_arprot", "output", 3),
    ("m_axi_arvalid", "output", 1), ("m_axi_arready", "input", 1), ("m_axi_rdata", "input", 32),
    ("m_axi_rresp", "input", 2), ("m_axi_rlast", "input", 1), ("m_axi_rvalid", "input", 1),
    ("m_axi_rready", "output", 1),
    ("s_axis_tdata", "input", 32), ("s_axis_tvalid", "input", 1), ("s_axis_tready", "output", 1),
    ("s_axis_tlast", "input", 1))


def _port(name: str, direction: str, bits: int, attributes: tuple = ()) -> str:
    rng = f"[{bits - 1}:0]" if bits > 1 else ""
    return "".join(f"  (* {a} *)\n" for a in attributes) + f"  {direction:<6} wire {rng:<6} {name}"


def top_verilog(build_id: int, rekey_words: int, idcode: int, note: str = "", stream_input: bool = False) -> str:
    """Module ``dcs_icap_dma_top`` (Verilog-2005): ``dcs_icap_dma`` with ``BUILD_ID``,
    ``REKEY_WORDS`` and ``STREAM_INPUT`` and ICAPE2 (``ICAP_WIDTH "X32"``, ``DEVICE_ID`` =
    ``idcode``, UG953) on its port; the ports are the controller's buses (:data:`TOP_BUSES`:
    ``s_axi_*`` with 6 address bits, ``m_axi_ar*``/``m_axi_r*``, ``s_axis_*``), ``aclk``,
    ``aresetn`` and ``irq``: the bus ports' names are those Vivado's IP integrator infers as AXI
    interfaces, and ``X_INTERFACE_INFO`` / ``X_INTERFACE_PARAMETER`` attributes (UG994) tie the clock
    to the three interfaces and declare the reset and the interrupt. ``note``: a comment line (the
    build it is for)."""
    ports = [_port("aclk", "input", 1, ('X_INTERFACE_INFO = "xilinx.com:signal:clock:1.0 aclk CLK"',
                                        'X_INTERFACE_PARAMETER = "ASSOCIATED_BUSIF s_axi:m_axi:s_axis, '
                                        'ASSOCIATED_RESET aresetn"')),
             _port("aresetn", "input", 1, ('X_INTERFACE_INFO = "xilinx.com:signal:reset:1.0 aresetn RST"',
                                           'X_INTERFACE_PARAMETER = "POLARITY ACTIVE_LOW"'))]
    ports += [_port(*p) for p in TOP_BUSES]
    ports.append(_port("irq", "output", 1, ('X_INTERFACE_INFO = "xilinx.com:signal:interrupt:1.0 irq INTERRUPT"',
                                            'X_INTERFACE_PARAMETER = "SENSITIVITY LEVEL_HIGH"')))
    decl = ",\n".join(ports)
    conns = ",\n    ".join(f".{n}({n})" for n, _d, _b in TOP_BUSES)
    return f"""// dcsflow: the ICAPE2 stream controller of one build (docs/formats.md, "ICAP stream controller, version 1").
// {note or 'generated by dcsflow.flow.icapdma.top_verilog'}
// BUILD_ID {build_id:08x}, REKEY_WORDS {rekey_words}, {"AXI4-Stream" if stream_input else "memory"} input, ICAPE2 DEVICE_ID {idcode:08x}.
// Sources: dcs_icap_dma.v, this file.
module dcs_icap_dma_top (
{decl}
);
  wire        icap_csib, icap_rdwrb;
  wire [31:0] icap_i, icap_o;
  dcs_icap_dma #(.BUILD_ID(32'h{build_id:08x}), .REKEY_WORDS(32'd{rekey_words}), .STREAM_INPUT({int(stream_input)})) ctl (
    .clk(aclk), .rstn(aresetn),
    {conns},
    .icap_csib(icap_csib), .icap_rdwrb(icap_rdwrb), .icap_i(icap_i), .icap_o(icap_o),
    .busy(), .done(), .irq(irq));
  ICAPE2 #(.ICAP_WIDTH("X32"), .DEVICE_ID(32'h{idcode:08x})) icap (
    .CLK(aclk), .CSIB(icap_csib), .RDWRB(icap_rdwrb), .I(icap_i), .O(icap_o));
endmodule
"""


def build_top(build, note: str = "") -> str:
    """:func:`top_verilog` for ``build`` (:class:`dcsflow.scg.buildfolder.BuildFolder`): its BUILD_ID,
    the words of its rekey (:func:`dcsflow.scg.driver.rekey_icap_words`) and its device's IDCODE."""
    from dcsflow.scg.driver import rekey_icap_words

    return top_verilog(build_id_of(build.design_hash), rekey_icap_words(build.runs, build.idcode), build.idcode,
                       note)


# ------------------------------------------------------------------------------------------ simulation
#: physical address of the memory model's words
MEMORY_BASE = 0x10000000


@dataclass
class Script:
    """Statements of the simulation's test bench after reset (Verilog, in order): AXI4-Lite writes
    and tagged reads, waits, stream packets. :meth:`transfer` is the usual one."""

    lines: list = field(default_factory=list)

    def wr(self, off: int, value: int) -> "Script":
        """AXI4-Lite write of ``value`` at byte offset ``off``."""
        self.lines.append(f"wr({off}, 32'h{value & 0xFFFFFFFF:08x});")
        return self

    def rd(self, off: int, tag: str) -> "Script":
        """AXI4-Lite read printed as ``R <tag> <value>``."""
        self.lines.append(f'rd({off}, "{tag}");')
        return self

    def wait_done(self) -> "Script":
        """Wait until the controller's ``done`` output is high (at most 10 million cycles), then
        print the clock edges ``busy`` was high since the last wait as ``BUSY <n>``."""
        self.lines.append("wait_done;")
        return self

    def wait_sent(self, n: int) -> "Script":
        """Wait until WORDS_SENT reaches ``n`` (the controller's counter, no bus access)."""
        self.lines.append(f"while (dut.ctl.words_sent < {n}) @(posedge clk);")
        return self

    def stream(self, first: int, count: int, last_at: int) -> "Script":
        """``count`` stream beats of words ``first``.. of the memory file, ``tlast`` on beat
        ``last_at`` (0-based; -1: none)."""
        self.lines.append(f"stream({first}, {count}, {last_at});")
        return self

    def transfer(self, n: int, address: int = MEMORY_BASE) -> "Script":
        """ADDRESS, LENGTH, START, wait for DONE, then read STATUS and WORDS_SENT."""
        self.wr(ADDRESS, address).wr(LENGTH, n).wr(CONTROL, START).wait_done()
        return self.rd(STATUS, "status").rd(WORDS_SENT, "sent")


@dataclass
class SimResult:
    """What :func:`simulate` read from the simulation.

    Attributes:
        reads: tag -> values read (in order). busy: the cycles of each transfer (edges with
        ``busy`` high, per :meth:`Script.wait_done`). frames: FAR -> (written flag, 101 words) of every
        frame the model wrote or was given at the start. stat: the model's counters (``words``,
        ``packets``, ``frames_written``, ``pad_frames``, ``dropped_frames``, ``crc_checks``,
        ``crc_errors``, ``bad_headers``, ``ignored_writes``, ``aborts``, ``synced``,
        ``id_error``, ``crc_error``, ``far``). bus: every word written on ICAPE2's I as it was on
        the bus (UG470 parallel bit order); port_aborts: for each ICAP abort, the words the model
        had taken before it; abort_reqs: WORDS_SENT when each ABORT request took effect.
        protocol: the memory model's protocol complaints. max_queue: the most read addresses it
        held at once. stdout: the simulation's output.
    """

    reads: dict
    busy: list
    frames: dict
    stat: dict
    bus: list
    port_aborts: list
    abort_reqs: list
    protocol: list
    max_queue: int
    stdout: str

    def read(self, tag: str) -> int:
        """The last value read under ``tag``."""
        return self.reads[tag][-1]

    @property
    def port_words(self) -> list:
        """The words ICAPE2 took, in the bitstream's bit order (:func:`swap_bits` of :attr:`bus`)."""
        return [swap_bits(w) for w in self.bus]


def swap_bits(w: int) -> int:
    """A word with the bits of each byte reversed: UG470's parallel bus order and back (ICAPE2.md:
    AA995566 on the bus is 5599AA66)."""
    return sum(int(f"{(w >> (8 * k)) & 0xFF:08b}"[::-1], 2) << (8 * k) for k in range(4))


STAT_FIELDS = ("words", "packets", "frames_written", "pad_frames", "dropped_frames", "crc_checks", "crc_errors",
               "bad_headers", "ignored_writes", "aborts", "synced", "id_error", "crc_error", "far")

_TB = r"""`timescale 1ns/1ps
module tb;
  reg clk = 0, rstn = 0;
  always #5 clk = ~clk;
  reg [5:0] awaddr = 0, araddr = 0; reg [31:0] wdata = 0;
  reg awvalid = 0, wvalid = 0, arvalid = 0;
  wire awready, wready, bvalid, arready, rvalid; wire [1:0] bresp, rresp; wire [31:0] rdata;
  wire [31:0] m_araddr, m_rdata; wire [7:0] m_arlen; wire [2:0] m_arsize, m_arprot; wire [1:0] m_arburst, m_rresp;
  wire [3:0] m_arcache; wire m_arvalid, m_arready, m_rlast, m_rvalid, m_rready;
  reg [31:0] tdata = 0; reg tvalid = 0, tlast = 0; wire tready, irq;
  dcs_icap_dma_top dut (.aclk(clk), .aresetn(rstn),
    .s_axi_awaddr(awaddr), .s_axi_awvalid(awvalid), .s_axi_awready(awready), .s_axi_wdata(wdata),
    .s_axi_wstrb(4'hF), .s_axi_wvalid(wvalid), .s_axi_wready(wready), .s_axi_bresp(bresp), .s_axi_bvalid(bvalid),
    .s_axi_bready(1'b1), .s_axi_araddr(araddr), .s_axi_arvalid(arvalid), .s_axi_arready(arready),
    .s_axi_rdata(rdata), .s_axi_rresp(rresp), .s_axi_rvalid(rvalid), .s_axi_rready(1'b1),
    .m_axi_araddr(m_araddr), .m_axi_arlen(m_arlen), .m_axi_arsize(m_arsize), .m_axi_arburst(m_arburst),
    .m_axi_arcache(m_arcache), .m_axi_arprot(m_arprot), .m_axi_arvalid(m_arvalid), .m_axi_arready(m_arready),
    .m_axi_rdata(m_rdata), .m_axi_rresp(m_rresp), .m_axi_rlast(m_rlast), .m_axi_rvalid(m_rvalid),
    .m_axi_rready(m_rready), .s_axis_tdata(tdata), .s_axis_tvalid(tvalid), .s_axis_tready(tready),
    .s_axis_tlast(tlast), .irq(irq));
  dcs_axi_mem_model #(.BASE(32'h@BASE@), .WORDS(@WORDS@), .LATENCY(@LATENCY@), .STALL_PERCENT(@STALL@),
    .SEED(@SEED@), .MEM_FILE("mem.hex"), .ERR_WORD(@ERR@)) ddr (.clk(clk), .araddr(m_araddr), .arlen(m_arlen),
    .arsize(m_arsize), .arburst(m_arburst), .arvalid(m_arvalid), .arready(m_arready), .rdata(m_rdata),
    .rresp(m_rresp), .rlast(m_rlast), .rvalid(m_rvalid), .rready(m_rready));

  // the port: every write cycle printed as on the bus ("P"); busy cycles counted; ABORT taken
  integer port_writes = 0, busy_cycles = 0;
  reg abort_seen = 1'b0;
  always @(posedge clk) if (dut.ctl.busy === 1'b1) busy_cycles = busy_cycles + 1;
  reg prev_csib = 1'b1, prev_rdwrb = 1'b0;          // an edge that changes RDWRB under CSIB low is the abort
  always @(posedge clk) begin
    if (dut.icap_csib === 1'b0 && dut.icap_rdwrb === 1'b0 && !(prev_csib === 1'b0 && prev_rdwrb === 1'b1)) begin
      $display("P %08x", dut.icap_i);
      port_writes = port_writes + 1;
    end
    prev_csib <= dut.icap_csib; prev_rdwrb <= dut.icap_rdwrb;
  end
  always @(posedge clk) begin
    if (dut.ctl.abort_req === 1'b1 && !abort_seen) $display("ABORTREQ %0d", dut.ctl.words_sent);
    abort_seen <= dut.ctl.abort_req === 1'b1;
  end

  reg [31:0] words [0:@WORDS@-1];
  integer n, i;
  initial $readmemh("mem.hex", words);
  task wr(input [5:0] adr, input [31:0] d); begin
    @(negedge clk) awaddr = adr; wdata = d; awvalid = 1; wvalid = 1;
    @(posedge clk); while (!(awready && wready)) @(posedge clk);
    #1 awvalid = 0; wvalid = 0;
  end endtask
  task rd(input [5:0] adr, input [8*16:1] tag); begin
    @(negedge clk) araddr = adr; arvalid = 1;
    @(posedge clk); while (!(arready && rvalid)) @(posedge clk);
    $display("R %0s %0d", tag, rdata);
    #1 arvalid = 0;
  end endtask
  task wait_done; begin
    n = 0;
    while (dut.ctl.done !== 1'b1 && n < 10000000) begin @(posedge clk); n = n + 1; end
    if (dut.ctl.done !== 1'b1) $display("TIMEOUT");
    $display("BUSY %0d", busy_cycles);
    busy_cycles = 0;
  end endtask
  task stream(input integer first, input integer count, input integer last_at); begin
    for (i = 0; i < count; i = i + 1) begin
      @(negedge clk) tdata = words[first + i]; tvalid = 1; tlast = (i == last_at);
      @(posedge clk); while (!tready) @(posedge clk);
    end
    @(negedge clk) tvalid = 0; tlast = 0;
  end endtask
  initial begin
    repeat (3) @(posedge clk); @(negedge clk) rstn = 1;
@SCRIPT@
    repeat (20) @(posedge clk);
    dut.icap.model.dump;
    ddr.report;
    $finish;
  end
endmodule

module ICAPE2 #(parameter ICAP_WIDTH = "X32", parameter [31:0] DEVICE_ID = 32'h03727093,
                parameter SIM_CFG_FILE_NAME = "NONE") (
  input wire CLK, input wire CSIB, input wire RDWRB, input wire [31:0] I, output wire [31:0] O);
  dcs_icape2_model #(.IDCODE(DEVICE_ID), .N_FRAMES(@NFRAMES@), .FAR_FILE("fars.hex"), .ROW_END_FILE("row_end.hex"),
    .INIT_FILE(@INIT@), .INIT_MARK_FILE(@MARK@), .VERBOSE(1)) model (.CLK(CLK), .CSIB(CSIB), .RDWRB(RDWRB), .I(I), .O(O));
endmodule
"""


def _memory_image(template, device) -> tuple[str, str]:
    """$readmemh texts of the model's initial memory (``@word address`` blocks of every written or
    nonzero frame of ``template``) and of its marks (one line per frame: 0, 1 for a frame set, 3 for
    a frame set and written, as ``template``'s written flags)."""
    marks = ["0"] * device.n_frames
    blocks = []
    for far in sorted(set(template.written_fars()) | set(template.nonzero_fars()), key=device.far_index.__getitem__):
        f = device.far_index[far]
        marks[f] = "3" if template.written[f] else "1"
        blocks.append(f"@{f * 101:x}\n" + "\n".join(f"{w:08x}" for w in template.frame(far)))
    return "\n".join(blocks) + "\n", "\n".join(marks) + "\n"


def simulate(words, device, workdir: Path, *, template=None, script: Script | None = None,
             top_text: str | None = None, latency: int = DEFAULT_LATENCY, stall_percent: int = 0, seed: int = 1,
             error_word: int = -1, memory_words: int | None = None, timeout: float | None = None) -> SimResult:
    """Simulate the controller's top (``top_text``, default :func:`top_verilog` with BUILD_ID 0,
    REKEY_WORDS 0 and the device's IDCODE) streaming ``words`` into the ICAPE2 model of ``device``
    (:class:`dcsflow.scg.device.Device`) whose memory starts as ``template``
    (:class:`dcsflow.scg.bitstream.FrameMemory`, default zeros).

    The words are in the memory model at :data:`MEMORY_BASE` (``memory_words`` words, default
    ``words`` and zeros to the end of the last 64-byte line), answered ``latency`` cycles after each read address, with random stalls in
    ``stall_percent`` % of the cycles (``seed``) and SLVERR on word ``error_word``. ``script``:
    the test bench's statements (default :meth:`Script.transfer` of all words). Files go to
    ``workdir``.

    Raises:
        IcapDmaError: the simulation failed, timed out in the bench, or printed no dump.
        dcsflow.tools.ToolMissing: Icarus not installed.
    """
    from .simulate import SimulatorError, icarus

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    words = list(words)
    mw = max(memory_words or -(-len(words) // 16) * 16, 1)     # whole 64-byte lines
    (workdir / "mem.hex").write_text("\n".join(f"{w:08x}" for w in (words + [0] * (mw - len(words)))[:mw]) + "\n")
    (workdir / "fars.hex").write_text("\n".join(f"{f:08x}" for f in device.frame_addresses) + "\n")
    (workdir / "row_end.hex").write_text("\n".join("1" if i in device.row_end else "0"
                                                   for i in range(device.n_frames)) + "\n")
    init = mark = '""'
    if template is not None:
        img, marks = _memory_image(template, device)
        (workdir / "init.hex").write_text(img)
        (workdir / "init_mark.hex").write_text(marks)
        init, mark = '"init.hex"', '"init_mark.hex"'
    script = script or Script().transfer(len(words))
    tb = (_TB.replace("@BASE@", f"{MEMORY_BASE:08x}").replace("@WORDS@", str(mw)).replace("@LATENCY@", str(latency))
          .replace("@STALL@", str(stall_percent)).replace("@SEED@", str(seed)).replace("@ERR@", str(error_word))
          .replace("@NFRAMES@", str(device.n_frames)).replace("@INIT@", init).replace("@MARK@", mark)
          .replace("@SCRIPT@", "\n".join("    " + ln for ln in script.lines)))
    (workdir / "tb.v").write_text(tb)
    (workdir / "top.v").write_text(top_text or top_verilog(0, 0, device.idcode))
    try:
        r = icarus([workdir / "tb.v", workdir / "top.v", CONTROLLER, ICAPE2_MODEL, AXI_MEMORY_MODEL], workdir,
                   top="tb", timeout=timeout, cwd=workdir, error=IcapDmaError)
    except SimulatorError as e:
        raise IcapDmaError(str(e)) from None
    return parse_output(r.stdout)


def parse_output(out: str) -> SimResult:
    """Read the test bench's output (:func:`simulate`). Raises IcapDmaError: a bench timeout or
    no dump."""
    if "TIMEOUT" in out:
        raise IcapDmaError("the controller never set DONE in the simulation (10 million cycles)")
    reads: dict = {}
    frames: dict = {}
    stat = None
    busy, bus, port_aborts, abort_reqs, protocol = [], [], [], [], []
    max_queue = 0
    for ln in out.splitlines():
        f = ln.split()
        if not f:
            continue
        if f[0] == "P":
            bus.append(int(f[1], 16))
        elif f[0] == "R":
            reads.setdefault(f[1], []).append(int(f[2]))
        elif f[0] == "BUSY":
            busy.append(int(f[1]))
        elif f[0] == "F":
            frames[int(f[1], 16)] = (int(f[2]), [int(w, 16) for w in f[3:]])
        elif f[0] == "STAT":
            stat = dict(zip(STAT_FIELDS, [int(x) for x in f[1:-1]] + [int(f[-1], 16)]))
        elif f[0] == "ABORT":
            port_aborts.append(int(f[1]))
        elif f[0] == "ABORTREQ":
            abort_reqs.append(int(f[1]))
        elif f[0] == "PROTOCOL":
            protocol.append(ln)
        elif f[0] == "MAXQ":
            max_queue = int(f[1])
    if stat is None:
        raise IcapDmaError("the simulation printed no configuration-memory dump:\n" + out[-1000:])
    return SimResult(reads, busy, frames, stat, bus, port_aborts, abort_reqs, protocol, max_queue, out)


# ------------------------------------------------------------------------------------------ cost
def controller_cost(workdir: Path) -> dict:
    """The controller alone (default parameters: memory input, 8 bursts of 16 beats outstanding) as Yosys's
    ``synth_xilinx -flatten`` maps it: LUTs, FFs, MUXF7, MUXF8, CARRY4, RAMB18 (a RAMB36E1 counts
    two). Raises YosysError."""
    from .cfglut import synth_cost
    from .yosys import script_path

    cost = synth_cost(f"read_verilog {script_path(CONTROLLER, workdir)}\n", "dcs_icap_dma", Path(workdir),
                      "icap_dma_cost", "ICAP stream controller: cost (synth_xilinx)")
    cost.pop("cfglut5", None)
    return cost
