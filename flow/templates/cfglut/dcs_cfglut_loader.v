// dcsflow: CFGLUT5 chain loader, version 1 (docs/formats.md, "CFGLUT5 chain words and loader, version 1").
//
// Loads the INITs of CFGLUT5 TLUTs (UG953 CFGLUT5; Yosys model in <datdir>/xilinx/cells_sim.v:
// `always @(posedge CLK) if (CE) r <= {r[30:0], CDI}; CDO = r[31]`) serially from the fabric. The
// CFGLUT5s form CHAINS chains, chain c = [lut_0, ..., lut_{n-1}]: cdi[c] drives lut_0.CDI, lut_j.CDO
// drives lut_{j+1}.CDI; every CFGLUT5 takes the one `ce` and the loader's clock. All chains shift
// together for S = 32*CHAIN_LUTS cycles; the bit fed at shift cycle t ends in lut_j INIT bit b with
// 32*j + b = S-1-t. Chain words (dcsflow.scg.cfglut.chain_words): groups of 32 chains, G =
// ceil(CHAINS/32); word (g, t) bit k = the bit chain 32g+k takes at cycle t; word order g-major
// (word g*S + t). Verilog-2005 (iverilog -g2005, yosys synth_xilinx).
//
// Parameters: CHAINS (1..65535), CHAIN_LUTS (the longest chain's CFGLUT5s, 1..65535), BUILD_ID
// (32-bit id of the build the chains belong to), ADDR_WIDTH (AXI byte address bits; the word window,
// the upper half of the address space, must hold G*STRIDE words: ADDR_WIDTH >= 3 + clog2(G*STRIDE)
// and 6..32, else elaboration fails on the missing module dcs_cfglut_loader_bad_parameters).
// Derived: S = 32*CHAIN_LUTS, STRIDE_LOG2 = clog2(S), STRIDE = 2**STRIDE_LOG2, WORDS = G*S.
//
// Ports (one clock `clk` for everything, the CFGLUT5s included; `rstn` synchronous, active low):
//   s_axi_*        AXI4-Lite slave, 32-bit data, byte addresses [ADDR_WIDTH-1:0]; address and data
//                  are taken together, one write and one read at a time; s_axi_wstrb is ignored
//                  (full-word writes). bresp OKAY, or SLVERR for a refused write; rresp OKAY.
//   s_axis_*       AXI4-Stream input (DMA): tdata[31:0] one chain word per beat in word order,
//                  tlast on the last beat. s_axis_tready = !busy.
//   cdi[CHAINS-1:0], ce   to the chains: cdi[c] to chain c's lut_0.CDI, ce to every CFGLUT5's CE.
//   hold           1 from START until the shift is over: gate the design's input handshake with it.
//   idle           from the design: no data item in flight (a function of its registered state, low
//                  in the cycle after it accepts an item); the shift starts at the first clock edge
//                  with hold && idle and then runs to its end whatever idle does.
//   busy           = hold. done: STATUS.DONE. irq = DONE & IRQ_ENABLE (level).
//
// Registers (32-bit, byte offsets; writes to other register offsets are ignored with OKAY, reads of
// unmapped offsets and of the word window return 0):
//   0x00 CONTROL     W [0] START  [2] CLEAR (clear DONE and ERROR)   R/W [1] IRQ_ENABLE
//   0x04 STATUS      R [0] BUSY  [1] DONE (sticky)  [2] ERROR (sticky)  [3] SHIFTING
//   0x08 INFO        R [15:0] CHAINS  [31:16] CHAIN_LUTS
//   0x0C BUILD_ID    R
//   0x10 WORDS       R G*S
//   0x14 STRIDE_LOG2 R
//   word window      W 2**(ADDR_WIDTH-1) + 4*(g*STRIDE + t): chain word (g, t), g < G, t < S
// Errors, each setting the sticky ERROR bit (AXI writes answered with SLVERR and without effect):
// a word write or START while BUSY; a word address in the window but outside its used part (g >= G
// or t >= S). Stream: a packet (beats up to tlast) of exactly WORDS beats STARTs a load by itself;
// any other length sets ERROR, starts nothing and resets the beat count (words it wrote stay in the
// memories: load all words again). Do not mix word writes and a stream packet: an AXI write is held
// off (awready low) in a cycle with a stream beat.
//
// Timing, from the clock edge that accepts START (the AXI write, or the stream's last beat): hold,
// busy rise and DONE, irq fall on that edge; with idle high the shift starts on the next edge
// (SHIFTING rises), ce is high for exactly S cycles from the edge after that, and on the edge that
// ends the last ce cycle hold, busy and SHIFTING fall and DONE rises: S + 2 cycles after START. With
// idle low, hold stays high and ce low until the first edge that sees idle high (DONE S + 1 cycles
// after that edge). The CFGLUT5s' O5/O6 are meaningless while SHIFTING.
//
// Storage: one 32-bit memory per group, depth STRIDE, written by AXI or the stream (synchronous
// write) and read at the shift address into a register (registered read: LUTRAM or block RAM);
// cdi[32g+k] = bit k of group g's read register, ce its valid flag, so cdi is aligned with ce.
module dcs_cfglut_loader #(
  parameter CHAINS = 1,
  parameter CHAIN_LUTS = 1,
  parameter [31:0] BUILD_ID = 0,
  parameter ADDR_WIDTH = 16
) (
  input  wire                  clk,
  input  wire                  rstn,
  input  wire [ADDR_WIDTH-1:0] s_axi_awaddr,
  input  wire                  s_axi_awvalid,
  output reg                   s_axi_awready = 1'b0,
  input  wire [31:0]           s_axi_wdata,
  /* verilator lint_off UNUSED */
  input  wire [3:0]            s_axi_wstrb,     // ignored: full-word writes
  /* verilator lint_on UNUSED */
  input  wire                  s_axi_wvalid,
  output reg                   s_axi_wready = 1'b0,
  output reg  [1:0]            s_axi_bresp = 2'b00,
  output reg                   s_axi_bvalid = 1'b0,
  input  wire                  s_axi_bready,
  input  wire [ADDR_WIDTH-1:0] s_axi_araddr,
  input  wire                  s_axi_arvalid,
  output reg                   s_axi_arready = 1'b0,
  output reg  [31:0]           s_axi_rdata = 32'd0,
  output wire [1:0]            s_axi_rresp,
  output reg                   s_axi_rvalid = 1'b0,
  input  wire                  s_axi_rready,
  input  wire [31:0]           s_axis_tdata,
  input  wire                  s_axis_tvalid,
  output wire                  s_axis_tready,
  input  wire                  s_axis_tlast,
  output wire [CHAINS-1:0]     cdi,
  output wire                  ce,
  output wire                  hold,
  input  wire                  idle,
  output wire                  busy,
  output wire                  done,
  output wire                  irq
);
  localparam S = 32 * CHAIN_LUTS;               // shift cycles
  localparam SL = $clog2(S);                    // STRIDE_LOG2
  localparam STRIDE = 1 << SL;                  // words per group memory
  localparam G = (CHAINS + 31) / 32;            // groups of 32 chains
  localparam [31:0] WORDS = G * S;
  localparam IW = ADDR_WIDTH - 3;               // bits of a word index in the window
  localparam [15:0] INFO_CHAINS = CHAINS[15:0];
  localparam [15:0] INFO_CHAIN_LUTS = CHAIN_LUTS[15:0];
  localparam [31:0] S_M1 = S - 1, G_M1 = G - 1;
  localparam [SL-1:0] T_LAST = S_M1[SL-1:0];    // the last shift cycle
  localparam [IW-1:0] G_LAST = G_M1[IW-1:0];    // the last group
  localparam [31:0] INFO_SL = SL;
  localparam [1:0] OKAY = 2'b00, SLVERR = 2'b10;

  generate
    if (ADDR_WIDTH < 6 || ADDR_WIDTH > 32 || CHAINS < 1 || CHAINS > 65535 || CHAIN_LUTS < 1 || CHAIN_LUTS > 65535 ||
        G * STRIDE > (1 << IW)) begin : bad_parameters
      // no such module: elaboration stops here (ADDR_WIDTH too small for the word window, or a count out of range)
      dcs_cfglut_loader_bad_parameters check ();
    end
  endgenerate

  assign s_axi_rresp = OKAY;

  reg busy_q = 1'b0, shifting = 1'b0, issuing = 1'b0, ce_q = 1'b0;
  reg done_q = 1'b0, err_q = 1'b0, irq_en = 1'b0;
  reg [SL-1:0] raddr = {SL{1'b0}};               // shift address (= t of the word read)

  assign busy = busy_q;
  assign hold = busy_q;
  assign done = done_q;
  assign irq = done_q & irq_en;
  assign ce = ce_q;

  // ---- stream input ---------------------------------------------------------------------------------
  reg [IW-1:0] st_g = {IW{1'b0}};                // group and cycle of the next beat's word
  reg [SL-1:0] st_t = {SL{1'b0}};
  reg          st_over = 1'b0;                   // the packet already has WORDS beats
  assign s_axis_tready = !busy_q;
  wire st_beat  = s_axis_tvalid && !busy_q;
  wire st_we    = st_beat && !st_over;
  wire st_final = (st_g == G_LAST) && (st_t == T_LAST);
  wire st_start = st_beat && s_axis_tlast && !st_over && st_final;
  wire st_bad   = st_beat && s_axis_tlast && !(!st_over && st_final);

  // ---- AXI4-Lite write: address and data together, one response; held off during a stream beat -----
  wire          aw_fire = s_axi_awvalid && s_axi_wvalid && !s_axi_awready && !s_axi_bvalid && !st_beat;
  wire          aw_win  = s_axi_awaddr[ADDR_WIDTH-1];
  wire [IW-1:0] aw_idx  = s_axi_awaddr[ADDR_WIDTH-2:2];
  wire [IW-1:0] aw_g    = aw_idx >> SL;
  wire [SL-1:0] aw_t    = aw_idx[SL-1:0];
  /* verilator lint_off CMPCONST */
  wire          aw_used = (aw_g <= G_LAST) && (aw_t <= T_LAST);   // (the t test is constant when S = STRIDE)
  /* verilator lint_on CMPCONST */
  wire          aw_ctrl = !aw_win && aw_idx == 0;
  wire          axi_err = aw_fire && (aw_win ? (busy_q || !aw_used) : (aw_ctrl && s_axi_wdata[0] && busy_q));
  wire          axi_we  = aw_fire && aw_win && aw_used && !busy_q;
  wire          axi_start = aw_fire && aw_ctrl && s_axi_wdata[0] && !busy_q;
  wire          start   = axi_start || st_start;

  // one write port into the group memories (the stream and AXI never write in the same cycle)
  wire          mem_we = axi_we || st_we;
  wire [IW-1:0] mem_g  = st_we ? st_g : aw_g;
  wire [SL-1:0] mem_t  = st_we ? st_t : aw_t;
  wire [31:0]   mem_d  = st_we ? s_axis_tdata : s_axi_wdata;

  always @(posedge clk) begin
    if (!rstn) begin
      s_axi_awready <= 1'b0; s_axi_wready <= 1'b0; s_axi_bvalid <= 1'b0; s_axi_bresp <= OKAY;
      busy_q <= 1'b0; shifting <= 1'b0; issuing <= 1'b0; ce_q <= 1'b0; raddr <= {SL{1'b0}};
      done_q <= 1'b0; err_q <= 1'b0; irq_en <= 1'b0;
      st_g <= {IW{1'b0}}; st_t <= {SL{1'b0}}; st_over <= 1'b0;
    end else begin
      // AXI write channel
      s_axi_awready <= 1'b0; s_axi_wready <= 1'b0;
      if (s_axi_bvalid && s_axi_bready) s_axi_bvalid <= 1'b0;
      if (aw_fire) begin
        s_axi_awready <= 1'b1; s_axi_wready <= 1'b1; s_axi_bvalid <= 1'b1;
        s_axi_bresp <= axi_err ? SLVERR : OKAY;
      end
      if (aw_fire && aw_ctrl) begin
        irq_en <= s_axi_wdata[1];
        if (s_axi_wdata[2]) begin done_q <= 1'b0; err_q <= 1'b0; end
      end
      if (axi_err || st_bad) err_q <= 1'b1;

      // stream beat counter (group-major word order); tlast ends the packet
      if (st_beat) begin
        if (s_axis_tlast) begin
          st_g <= {IW{1'b0}}; st_t <= {SL{1'b0}}; st_over <= 1'b0;
        end else if (!st_over) begin
          if (st_t == T_LAST) begin
            st_t <= {SL{1'b0}};
            if (st_g == G_LAST) st_over <= 1'b1; else st_g <= st_g + 1'b1;
          end else st_t <= st_t + 1'b1;
        end
      end

      // START: hold at once; the shift once idle; DONE at its end
      if (start) begin busy_q <= 1'b1; done_q <= 1'b0; end
      if (busy_q && !shifting && idle) begin shifting <= 1'b1; issuing <= 1'b1; raddr <= {SL{1'b0}}; end
      if (issuing) begin
        raddr <= raddr + 1'b1;
        if (raddr == T_LAST) issuing <= 1'b0;
      end
      ce_q <= issuing;                            // word raddr is in the read registers one cycle later
      if (ce_q && !issuing) begin busy_q <= 1'b0; shifting <= 1'b0; done_q <= 1'b1; end
    end
  end

  // ---- group memories: synchronous write, registered read at the shift address ---------------------
  /* verilator lint_off UNUSED */
  wire [32*G-1:0] rd_all;                        // bits of chains beyond CHAINS in the last group: unused
  /* verilator lint_on UNUSED */
  genvar gi;
  generate
    for (gi = 0; gi < G; gi = gi + 1) begin : group
      reg [31:0] mem [0:STRIDE-1];
      reg [31:0] q;
      always @(posedge clk) begin
        if (mem_we && mem_g == gi) mem[mem_t] <= mem_d;
        if (issuing) q <= mem[raddr];
      end
      assign rd_all[32*gi +: 32] = q;
    end
  endgenerate
  assign cdi = rd_all[CHAINS-1:0];

  // ---- AXI4-Lite read: registers; the word window and unmapped offsets read 0 ----------------------
  wire          ar_win = s_axi_araddr[ADDR_WIDTH-1];
  wire [IW-1:0] ar_idx = s_axi_araddr[ADDR_WIDTH-2:2];
  always @(posedge clk) begin
    if (!rstn) begin
      s_axi_arready <= 1'b0; s_axi_rvalid <= 1'b0; s_axi_rdata <= 32'd0;
    end else begin
      s_axi_arready <= 1'b0;
      if (s_axi_rvalid && s_axi_rready) s_axi_rvalid <= 1'b0;
      if (s_axi_arvalid && !s_axi_arready && !s_axi_rvalid) begin
        s_axi_arready <= 1'b1; s_axi_rvalid <= 1'b1;
        if (ar_win) s_axi_rdata <= 32'd0;
        else case (ar_idx)
          0:       s_axi_rdata <= {30'd0, irq_en, 1'b0};
          1:       s_axi_rdata <= {28'd0, shifting, err_q, done_q, busy_q};
          2:       s_axi_rdata <= {INFO_CHAIN_LUTS, INFO_CHAINS};
          3:       s_axi_rdata <= BUILD_ID;
          4:       s_axi_rdata <= WORDS;
          5:       s_axi_rdata <= INFO_SL;
          default: s_axi_rdata <= 32'd0;
        endcase
      end
    end
  end
endmodule
