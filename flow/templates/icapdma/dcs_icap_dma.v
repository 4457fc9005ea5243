// dcsflow: ICAPE2 stream controller, version 1 (docs/formats.md, "ICAP stream controller, version 1").
//
// Streams a configuration packet stream (UG470: sync word, type-1/type-2 packets) into ICAPE2, one
// 32-bit word per clock cycle, from memory through an AXI4 master (STREAM_INPUT = 0: read channels
// only; INCR bursts of 16 beats, each one aligned 64-byte line, so none crosses a 4 KB boundary; up to
// MAX_BURSTS outstanding) or from an AXI4-Stream input (STREAM_INPUT = 1). The words go through a FIFO
// of 256 words (one RAMB18, which also holds the controller's own finishing words) and leave in
// UG470's parallel bit order: the bits within each byte reversed (ICAPE2.md: AA995566 is 5599AA66 on
// I[31:0]). Verilog-2005 (iverilog -g2005, verilator --lint-only -Wall, yosys synth_xilinx).
//
// Memory input: ADDRESS must be 64-byte aligned; the controller reads whole 64-byte lines, so the
// memory must be readable up to the end of the line that holds the last word (words past LENGTH are
// read and dropped; a bus error on one of them may still set ERR_BUS, after every word was sent).
//
// The controller follows the packets it sends (sync word; type-1 and type-2 write headers and their
// word counts; CMD DESYNC) and never leaves the port inside a packet:
//   - a write header whose word count goes past LENGTH is not sent: ERR_PACKET, then CMD DESYNC;
//   - ABORT stops the stream at the next packet boundary (the open packet is sent to its end from the
//     stream's own words): ERR_ABORT, then CMD DESYNC;
//   - a bus error (RRESP not OKAY: ERR_BUS) or a stream packet whose tlast comes before LENGTH words
//     (ERR_SHORT) stops the stream after the last good word; inside a packet the controller then
//     signals the ICAP abort (UG470 "ABORT": RDWRB changed while CSIB is asserted; here CSIB/RDWRB
//     1/1, 0/1, 0/0, then CSIB high for 4 cycles: nothing is written on those edges) and sends dummy,
//     sync, NOOP, CMD DESYNC, NOOP, NOOP (PORT_ABORTED);
//   - a stream that ends synchronised gets CMD DESYNC, NOOP, NOOP (DESYNC_ADDED).
// The configuration logic writes a frame when the next frame of its FDRI packet has arrived, so a
// stopped stream leaves only whole frames, and WORDS_SENT tells which (scg.icapdma.frames_written).
//
// Parameters: BUILD_ID (the build's id), REKEY_WORDS (the build's words per rekey; 0 = any LENGTH),
// STREAM_INPUT (0: memory, 1: AXI4-Stream), MAX_BURSTS (1..8), ADDR_WIDTH (AXI4-Lite byte address
// bits, 6..16).
//
// Registers (32-bit, byte offsets; writes elsewhere are ignored, reads elsewhere return 0):
//   0x00 CONTROL     W1 [0] START [1] ABORT [2] CLEAR   R/W [3] IRQ_ENABLE
//   0x04 STATUS      R [0] BUSY [1] DONE [2] ERROR [3] SYNCED [4] PORT_ABORTED [5] DESYNC_ADDED
//                      [8] ERR_PACKET [9] ERR_BUS [10] ERR_ABORT [11] ERR_START [12] ERR_SHORT
//   0x08 ADDRESS     W byte address of the first word (memory input; bits [5:0] must be 0)
//   0x0C LENGTH      W words [23:0]
//   0x10 WORDS_SENT  R stream words the ICAP took since the last accepted START
//   0x14 BUILD_ID, 0x18 REKEY_WORDS, 0x1C MAGIC 0x49434441, 0x20 INFO [7:0] version 1, [8] STREAM_INPUT
// ADDRESS and LENGTH read 0. START is refused (ERR_START, nothing else changes) while BUSY, with
// LENGTH 0, with LENGTH not REKEY_WORDS (when REKEY_WORDS is not 0) or, from memory, an ADDRESS not
// 64-byte aligned; an accepted START clears DONE, the error bits, PORT_ABORTED and DESYNC_ADDED.
// CLEAR clears the same bits. ABORT while idle does nothing. Writes to ADDRESS and LENGTH
// while BUSY are ignored. BUSY falls (DONE rises) once the port is finished and every read burst
// issued has returned its beats. irq = DONE & IRQ_ENABLE.
//
// Ports (one clock `clk`, at most 100 MHz for ICAPE2; `rstn` synchronous, active low, taken one cycle
// later):
//   s_axi_*   AXI4-Lite slave (address and data taken together; s_axi_wstrb ignored; bresp/rresp OKAY)
//   m_axi_ar*, m_axi_r*   AXI4 master read channels (32-bit data, ARLEN 15, ARSIZE 4 bytes, INCR)
//   s_axis_*  AXI4-Stream input (one word per beat)
//   icap_csib, icap_rdwrb, icap_i, icap_o   to ICAPE2's CSIB, RDWRB, I and from O (unused: write only)
//   busy, done, irq
module dcs_icap_dma #(
  parameter [31:0] BUILD_ID = 32'd0,
  parameter [31:0] REKEY_WORDS = 32'd0,
  parameter STREAM_INPUT = 0,
  parameter MAX_BURSTS = 8,
  parameter ADDR_WIDTH = 6
) (
  input  wire                  clk,
  input  wire                  rstn,
  /* verilator lint_off UNUSED */
  input  wire [ADDR_WIDTH-1:0] s_axi_awaddr,    // bits [1:0] ignored: word registers
  /* verilator lint_on UNUSED */
  input  wire                  s_axi_awvalid,
  output reg                   s_axi_awready = 1'b0,
  /* verilator lint_off UNUSED */
  input  wire [31:0]           s_axi_wdata,     // ADDRESS [5:0] only tested for zero
  input  wire [3:0]            s_axi_wstrb,     // ignored: full-word writes
  /* verilator lint_on UNUSED */
  input  wire                  s_axi_wvalid,
  output reg                   s_axi_wready = 1'b0,
  output wire [1:0]            s_axi_bresp,
  output reg                   s_axi_bvalid = 1'b0,
  input  wire                  s_axi_bready,
  /* verilator lint_off UNUSED */
  input  wire [ADDR_WIDTH-1:0] s_axi_araddr,    // bits [1:0] ignored
  /* verilator lint_on UNUSED */
  input  wire                  s_axi_arvalid,
  output reg                   s_axi_arready = 1'b0,
  output reg  [31:0]           s_axi_rdata = 32'd0,
  output wire [1:0]            s_axi_rresp,
  output reg                   s_axi_rvalid = 1'b0,
  input  wire                  s_axi_rready,
  output wire [31:0]           m_axi_araddr,
  output wire [7:0]            m_axi_arlen,
  output wire [2:0]            m_axi_arsize,
  output wire [1:0]            m_axi_arburst,
  output wire [3:0]            m_axi_arcache,
  output wire [2:0]            m_axi_arprot,
  output reg                   m_axi_arvalid = 1'b0,
  input  wire                  m_axi_arready,
  input  wire [31:0]           m_axi_rdata,
  input  wire [1:0]            m_axi_rresp,
  input  wire                  m_axi_rlast,
  input  wire                  m_axi_rvalid,
  output wire                  m_axi_rready,
  input  wire [31:0]           s_axis_tdata,
  input  wire                  s_axis_tvalid,
  output wire                  s_axis_tready,
  input  wire                  s_axis_tlast,
  output reg                   icap_csib = 1'b1,
  output reg                   icap_rdwrb = 1'b0,
  output reg  [31:0]           icap_i = 32'd0,
  /* verilator lint_off UNUSED */
  input  wire [31:0]           icap_o,          // write only: nothing is read back
  /* verilator lint_on UNUSED */
  output wire                  busy,
  output wire                  done,
  output wire                  irq
);
  localparam LW = 24;                                   // LENGTH and the word counters
  localparam [8:0] FILL_LIMIT = 9'd256 - 9'd16 * MAX_BURSTS;   // issue a burst only below this fill
  localparam [3:0] MAX_OUT = MAX_BURSTS;
  localparam [31:0] MAGIC = 32'h49434441;
  localparam [31:0] INFO = STREAM_INPUT != 0 ? 32'h00000101 : 32'h00000001;
  localparam [2:0] S_IDLE = 3'd0, S_RUN = 3'd1, S_ABT = 3'd2, S_FIN = 3'd3, S_DRAIN = 3'd4;

  generate
    if (STREAM_INPUT < 0 || STREAM_INPUT > 1 || MAX_BURSTS < 1 || MAX_BURSTS > 8 || ADDR_WIDTH < 6 ||
        ADDR_WIDTH > 16) begin : bad_parameters
      dcs_icap_dma_bad_parameters check ();             // no such module: elaboration stops here
    end
  endgenerate

  assign s_axi_bresp = 2'b00;
  assign s_axi_rresp = 2'b00;
  assign m_axi_arlen = 8'd15;                           // one 64-byte line per burst
  assign m_axi_arsize = 3'd2;                           // 4 bytes per beat
  assign m_axi_arburst = 2'b01;                         // INCR
  assign m_axi_arcache = 4'b0011;                       // normal, non-cacheable, bufferable
  assign m_axi_arprot = 3'b000;
  assign m_axi_rready = 1'b1;                           // the fill limit keeps room for every beat

  // ---- registers and state ---------------------------------------------------------------------
  // nrx counts up: ~(words still to request or take; memory input: in steps of 16, bit 24 set once
  // past zero); all ones: nothing left. A packet boundary is where WORDS_SENT reaches pkt_end (set
  // by every word sent at a boundary: the sync word, a header, a NOOP).
  reg  [2:0]    state = S_IDLE;
  reg           irq_en = 1'b0, misaligned = 1'b0;
  reg  [31:6]   line = 26'd0;                           // the next 64-byte line to read
  reg           done_q = 1'b0, e_packet = 1'b0, e_bus = 1'b0, e_abort = 1'b0, e_start = 1'b0, e_short = 1'b0;
  reg           port_aborted = 1'b0, desync_added = 1'b0, abort_req = 1'b0;
  reg  [LW-1:0] len_q = {LW{1'b0}}, words_sent = {LW{1'b0}}, pkt_end = {LW{1'b0}};
  reg  [LW:0]   nrx = {(LW+1){1'b1}};
  wire          busy_q = state != S_IDLE;
  wire          send_none = words_sent == len_q, rem_none = words_sent == pkt_end, rx_none = nrx[LW] | &nrx[LW-1:0];
  assign busy = busy_q;
  assign done = done_q;
  assign irq = done_q & irq_en;
  assign m_axi_araddr = {line, 6'd0};

  // ---- AXI4-Lite write: address and data together ----------------------------------------------
  wire aw_fire = s_axi_awvalid && s_axi_wvalid && !s_axi_awready && !s_axi_bvalid;
  wire [ADDR_WIDTH-3:0] aw_i = s_axi_awaddr[ADDR_WIDTH-1:2];
  wire ctl_wr = aw_fire && aw_i == 0;
  /* verilator lint_off WIDTH */
  wire len_ok = len_q != 0 && (REKEY_WORDS == 0 || {8'd0, len_q} == REKEY_WORDS);
  /* verilator lint_on WIDTH */
  wire start_req = ctl_wr && s_axi_wdata[0];
  wire start_ok = start_req && !busy_q && len_ok && (STREAM_INPUT != 0 || !misaligned);

  // ---- input: 64-byte lines from memory, or beats from the stream, into the FIFO -------------------
  reg  [3:0]    bursts = 4'd0;                          // bursts issued whose last beat has not come
  reg           rx_stop = 1'b0;                         // take no more words (error, or the stream stopped)
  reg  [8:0]    wptr = 9'd0, rptr = 9'd0;               // FIFO pointers: [7:0] index, [8] wrap
  reg           rom = 1'b0;                             // reads come from the finishing words
  reg  [2:0]    fin = 3'd0;                             // the next finishing word
  wire [8:0]    fill = wptr - rptr;
  wire          ar_issue = STREAM_INPUT == 0 && state == S_RUN && !rx_stop && !m_axi_arvalid && !rx_none &&
                           bursts != MAX_OUT && fill < FILL_LIMIT;
  wire          r_beat = STREAM_INPUT == 0 && m_axi_rvalid;   // rready is 1
  wire          r_keep = r_beat && !rx_stop && m_axi_rresp == 2'b00;
  assign s_axis_tready = STREAM_INPUT != 0 && state == S_RUN && !rx_stop && !rx_none && fill < 9'd255;
  wire          s_beat = s_axis_tvalid && s_axis_tready;
  wire          push = r_keep || s_beat;

  // ---- FIFO and finishing words (block RAM, first word fall-through through q) --------------------
  reg  [31:0]   mem [0:511];                            // [0..255] FIFO, [256..262] finishing words
  reg  [31:0]   q = 32'd0;
  reg           q_valid = 1'b0;
  wire          fifo_empty = rom ? fin == 3'd7 : wptr == rptr;
  wire          take;
  wire          pop = !fifo_empty && (!q_valid || take);
  initial begin                                         // dummy, sync, NOOP, CMD DESYNC, NOOP, NOOP
    mem[256] = 32'hFFFFFFFF; mem[257] = 32'hAA995566; mem[258] = 32'h20000000; mem[259] = 32'h30008001;
    mem[260] = 32'h0000000D; mem[261] = 32'h20000000; mem[262] = 32'h20000000;
  end
  always @(posedge clk) begin
    if (push) mem[{1'b0, wptr[7:0]}] <= STREAM_INPUT != 0 ? s_axis_tdata : m_axi_rdata;
    if (pop) q <= mem[rom ? {6'b100000, fin} : {1'b0, rptr[7:0]}];
  end

  // ---- the packet tracker and the decision on q ---------------------------------------------------
  reg           synced = 1'b0, have_last = 1'b0, last_cmd = 1'b0, cur_cmd = 1'b0;
  wire          at_bnd = !synced || rem_none;
  wire          q_t1 = q[31:29] == 3'd1;
  wire          q_t2 = q[31:29] == 3'd2 && have_last;
  wire          q_hdr = synced && rem_none && (q_t1 || q_t2) && q[28:27] == 2'b10;
  wire          q_sync = !synced && q == 32'hAA995566;
  wire [26:0]   q_cnt = !q_hdr ? 27'd0 : q_t1 ? {16'd0, q[10:0]} : q[26:0];
  wire [26:0]   q_end = q_cnt + {3'd0, words_sent} + 27'd1;   // the next boundary if q is sent
  wire          too_long = q_valid && !send_none && q_hdr && q_end > {3'd0, len_q};
  wire          stop_abort = abort_req && at_bnd;
  assign take = (state == S_RUN && q_valid && !send_none && !stop_abort && !too_long) ||
                (state == S_FIN && q_valid);
  wire          rx_done = (rx_none || rx_stop) && bursts == 0 && !m_axi_arvalid;
  wire          data_end = send_none || (rx_done && fifo_empty && !q_valid);
  wire          run_end = state == S_RUN && (stop_abort || too_long || data_end);

  function [31:0] swap_bits;                            // UG470 parallel bit order: bits of each byte reversed
    input [31:0] w;
    integer b;
    begin
      for (b = 0; b < 32; b = b + 1) swap_bits[b] = w[(b & ~7) + 7 - (b & 7)];
    end
  endfunction

  reg  [2:0] step = 3'd0;                               // S_ABT: the abort sequence's cycle
  reg        rst = 1'b1;                                // rstn, registered (one inverter for all resets)
  always @(posedge clk) rst <= !rstn;

  always @(posedge clk) begin
    // AXI4-Lite write channel
    s_axi_awready <= 1'b0; s_axi_wready <= 1'b0;
    if (s_axi_bvalid && s_axi_bready) s_axi_bvalid <= 1'b0;
    if (aw_fire) begin s_axi_awready <= 1'b1; s_axi_wready <= 1'b1; s_axi_bvalid <= 1'b1; end
    if (aw_fire && aw_i == 2 && !busy_q) begin line <= s_axi_wdata[31:6]; misaligned <= s_axi_wdata[5:0] != 6'd0; end
    if (aw_fire && aw_i == 3 && !busy_q) len_q <= s_axi_wdata[LW-1:0];
    if (ctl_wr) begin
      irq_en <= s_axi_wdata[3];
      if (s_axi_wdata[2]) begin
        done_q <= 1'b0; e_packet <= 1'b0; e_bus <= 1'b0; e_abort <= 1'b0; e_start <= 1'b0; e_short <= 1'b0;
        port_aborted <= 1'b0; desync_added <= 1'b0;
      end
      if (s_axi_wdata[1] && busy_q) abort_req <= 1'b1;
      if (start_req && !start_ok) e_start <= 1'b1;
    end

    // input
    if (m_axi_arvalid && m_axi_arready) begin m_axi_arvalid <= 1'b0; line <= line + 1'b1; end
    if (ar_issue) begin m_axi_arvalid <= 1'b1; nrx[LW:4] <= nrx[LW:4] + 1'b1; end
    if (s_beat) nrx <= nrx + 1'b1;
    bursts <= bursts + {3'd0, ar_issue} - {3'd0, r_beat && m_axi_rlast};
    if (push) wptr <= wptr + 1'b1;
    if (pop && !rom) rptr <= rptr + 1'b1;
    if (pop && rom) fin <= fin + 1'b1;
    if (r_beat && !rx_stop && m_axi_rresp != 2'b00) begin e_bus <= 1'b1; rx_stop <= 1'b1; end
    if (s_beat && s_axis_tlast && nrx[LW-1:0] != {{(LW-1){1'b1}}, 1'b0}) begin e_short <= 1'b1; rx_stop <= 1'b1; end
    if (pop) q_valid <= 1'b1; else if (take) q_valid <= 1'b0;

    // the port: q on I (bit order swapped) every cycle, CSIB low when it is taken
    icap_i <= swap_bits(q);
    icap_csib <= !take; icap_rdwrb <= 1'b0;
    if (take && state == S_RUN) begin
      words_sent <= words_sent + 1'b1;
      if (!synced) begin
        synced <= q_sync;
      end else if (!rem_none) begin
        if (cur_cmd && q == 32'h0000000D) begin synced <= 1'b0; have_last <= 1'b0; end
      end else if (q_t1) begin
        have_last <= 1'b1; last_cmd <= q[26:13] == 14'd4;
      end
      if (q_sync || (synced && rem_none)) pkt_end <= q_end[LW-1:0];  // fits: too_long kept it within LENGTH
      if (q_hdr) cur_cmd <= q_t1 ? q[26:13] == 14'd4 : last_cmd;
    end

    case (state)
      S_IDLE: if (start_ok) begin
        state <= S_RUN; done_q <= 1'b0;
        e_packet <= 1'b0; e_bus <= 1'b0; e_abort <= 1'b0; e_start <= 1'b0; e_short <= 1'b0;
        port_aborted <= 1'b0; desync_added <= 1'b0; abort_req <= 1'b0;
        words_sent <= {LW{1'b0}}; rx_stop <= 1'b0;
        nrx <= {1'b0, ~len_q};
        wptr <= 9'd0; rptr <= 9'd0; rom <= 1'b0; q_valid <= 1'b0;
        synced <= 1'b0; have_last <= 1'b0;
      end
      S_RUN: if (run_end) begin
        rx_stop <= 1'b1;
        if (too_long) e_packet <= 1'b1;
        if (stop_abort && !send_none) e_abort <= 1'b1;
        step <= 3'd0;
        // the finishing words: from 0 after the ICAP abort, from 3 (CMD DESYNC) otherwise
        rom <= 1'b1; q_valid <= 1'b0; fin <= (synced && !rem_none) ? 3'd0 : 3'd3;
        if (synced && !rem_none) begin state <= S_ABT; port_aborted <= 1'b1; end
        else if (synced) begin state <= S_FIN; desync_added <= 1'b1; end
        else state <= S_DRAIN;
      end
      S_ABT: begin                                    // cycles 0..6: CSIB/RDWRB 1/1, 0/1, 0/0 (abort), 1/0 x4
        step <= step + 1'b1;
        q_valid <= 1'b0; fin <= 3'd0;                 // hold the finishing words until S_FIN
        icap_csib <= step != 3'd1 && step != 3'd2;
        icap_rdwrb <= step == 3'd0 || step == 3'd1;
        if (step == 3'd6) state <= S_FIN;
      end
      S_FIN: if (fifo_empty && !q_valid) begin
        state <= S_DRAIN; synced <= 1'b0; have_last <= 1'b0;
      end
      default: if (bursts == 0 && !m_axi_arvalid) begin     // S_DRAIN: every issued burst has returned
        state <= S_IDLE; done_q <= 1'b1; abort_req <= 1'b0;
      end
    endcase

    if (rst) begin                                    // reset: the control state only
      s_axi_awready <= 1'b0; s_axi_wready <= 1'b0; s_axi_bvalid <= 1'b0;
      state <= S_IDLE; irq_en <= 1'b0; done_q <= 1'b0; abort_req <= 1'b0;
      e_packet <= 1'b0; e_bus <= 1'b0; e_abort <= 1'b0; e_start <= 1'b0; e_short <= 1'b0;
      m_axi_arvalid <= 1'b0; bursts <= 4'd0; q_valid <= 1'b0; synced <= 1'b0; len_q <= {LW{1'b0}};
      icap_csib <= 1'b1; icap_rdwrb <= 1'b0;
    end
  end

  // ---- AXI4-Lite read: registers ------------------------------------------------------------------
  wire [ADDR_WIDTH-3:0] ar_i = s_axi_araddr[ADDR_WIDTH-1:2];
  wire e_any = e_packet | e_bus | e_abort | e_start | e_short;
  always @(posedge clk) begin
    s_axi_arready <= 1'b0;
    if (s_axi_rvalid && s_axi_rready) s_axi_rvalid <= 1'b0;
    if (s_axi_arvalid && !s_axi_arready && !s_axi_rvalid) begin
      s_axi_arready <= 1'b1; s_axi_rvalid <= 1'b1;
      case (ar_i)
        0:       s_axi_rdata <= {28'd0, irq_en, 3'd0};
        1:       s_axi_rdata <= {19'd0, e_short, e_start, e_abort, e_bus, e_packet, 2'd0, desync_added,
                                 port_aborted, synced, e_any, done_q, busy_q};
        4:       s_axi_rdata <= {{(32-LW){1'b0}}, words_sent};
        5:       s_axi_rdata <= BUILD_ID;
        6:       s_axi_rdata <= REKEY_WORDS;
        7:       s_axi_rdata <= MAGIC;
        8:       s_axi_rdata <= INFO;
        default: s_axi_rdata <= 32'd0;
      endcase
    end
    if (rst) begin s_axi_arready <= 1'b0; s_axi_rvalid <= 1'b0; end
  end
endmodule
