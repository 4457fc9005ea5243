// dcsflow: behavioural model of ICAPE2 and the 7-series configuration logic behind it (simulation only,
// not synthesizable), version 1 (docs/formats.md, "ICAP stream controller, version 1").
//
// Written from UG470's packet format and FACTS.md, with the semantics of the runtime's
// configuration-memory emulator (dcsflow.scg.emulator.ConfigEmulator, whose docstring lists them) so
// that both can be compared word for word:
//   port      one word per rising CLK edge with CSIB = 0 and RDWRB = 0, in UG470's parallel bit order
//             (the bits of each byte reversed: AA995566 arrives as 5599AA66, ICAPE2.md). An edge with
//             CSIB = 0 whose RDWRB differs from the previous edge's, which had CSIB = 0 too, is the ICAP
//             abort (UG470 "ABORT": RDWR_B changed while CSI_B is asserted): nothing is taken on it and
//             the configuration logic loses synchronisation, the open packet and its held and partial
//             frames. Read edges (RDWRB = 1) take nothing; O reads 0 (no read-back in this model).
//   sync      words are ignored until the sync word AA995566; CMD DESYNC (13) returns to that state.
//   packets   type-1 [31:29] = 1: opcode [28:27] (1 read, 2 write), register [26:13], count [10:0];
//             type-2 [31:29] = 2: count [26:0], the register of the last type-1. Any other header
//             while synchronised is counted in bad_headers and ignored.
//   registers every write but to CRC enters the CRC (CRC-32C, reflected polynomial 82F63B78, over the
//             32 data bits then the 5 register bits, LSB first); a CRC write compares (crc_error on a
//             mismatch) and clears it; CMD RCRC clears it; FAR sets the frame address; an IDCODE
//             whose bits [27:0] differ from IDCODE's sets id_error and ignores every later register
//             write but CMD DESYNC; a write to FAR or CMD drops the held and the partial frame.
//   FDRI      the data is cut into 101-word frames; a completed frame is held and written at FAR when
//             the next frame completes (so a burst's last frame, the pad frame, is not written); FAR
//             then moves to the next frame in FDRI order; past the end of a configuration row the next
//             2 completed frames are discarded (row pad frames). A FAR that is no frame of the device
//             drops the frames (dropped_frames).
//
// Parameters: IDCODE; N_FRAMES, the device's frames; FAR_FILE (N_FRAMES hex lines: the FAR of frame
// index i in FDRI order), ROW_END_FILE (N_FRAMES lines 0/1: frame i ends a configuration row);
// INIT_FILE ($readmemh image of the initial memory, word address = 101 * frame index + word, "" for
// zeros) and INIT_MARK_FILE (N_FRAMES lines: 0, or 1 for a frame INIT_FILE sets, 3 for one it sets that
// counts as written; "" for none); VERBOSE
// (1: every ICAP abort prints "ABORT <words taken so far>").
// Task dump: one line "F <far> <written> <101 words>" per frame written or set by INIT_FILE (written: 1
// after an FDRI write, or marked 3), then
// "STAT <words> <packets> <frames_written> <pad_frames> <dropped_frames> <crc_checks> <crc_errors>
// <bad_headers> <ignored_writes> <aborts> <synced> <id_error> <crc_error> <far>".
module dcs_icape2_model #(
  parameter [31:0] IDCODE = 32'h03727093,
  parameter N_FRAMES = 10008,
  parameter FAR_FILE = "fars.hex",
  parameter ROW_END_FILE = "row_end.hex",
  parameter INIT_FILE = "",
  parameter INIT_MARK_FILE = "",
  parameter VERBOSE = 0
) (
  input  wire        CLK,
  input  wire        CSIB,
  input  wire        RDWRB,
  input  wire [31:0] I,
  output wire [31:0] O
);
  localparam FW = 101;
  localparam R_CRC = 0, R_FAR = 1, R_FDRI = 2, R_CMD = 4, R_IDCODE = 12;

  reg [31:0] mem [0:N_FRAMES*FW-1];        // frames neither in INIT_FILE nor written stay unknown (never read)
  reg        written [0:N_FRAMES-1];
  reg [1:0]  marked [0:N_FRAMES-1];
  reg [31:0] fars [0:N_FRAMES-1];
  reg        row_end [0:N_FRAMES-1];
  reg [31:0] buf_w [0:FW-1];
  reg [31:0] held [0:FW-1];

  integer words = 0, packets = 0, frames_written = 0, pad_frames = 0, dropped_frames = 0, crc_checks = 0;
  integer crc_errors = 0, bad_headers = 0, ignored_writes = 0, aborts = 0;
  reg synced = 1'b0, in_error = 1'b0, id_error = 1'b0, crc_error = 1'b0;
  reg [31:0] crc = 32'd0, far = 32'd0;
  integer fidx = -1;                       // frame index of far, -1: no frame
  integer remaining = 0, cur_reg = -1, last_reg = -1, buf_len = 0, skip = 0, k;
  reg has_held = 1'b0;
  reg prev_csib = 1'b1, prev_rdwrb = 1'b0;

  assign O = 32'd0;

  initial begin
    for (k = 0; k < N_FRAMES; k = k + 1) marked[k] = 2'd0;
    $readmemh(FAR_FILE, fars);
    $readmemh(ROW_END_FILE, row_end);
    if (INIT_FILE != "") $readmemh(INIT_FILE, mem);
    if (INIT_MARK_FILE != "") $readmemh(INIT_MARK_FILE, marked);
    for (k = 0; k < N_FRAMES; k = k + 1) written[k] = marked[k][1];
    fidx = index_of(32'd0);
  end

  function [31:0] unswap;                  // UG470 parallel bit order back to the bitstream's: byte k, bit j
    input [31:0] w;                        // of the word is bit 7 - j of byte k on the bus
    integer k, j;
    begin
      for (k = 0; k < 4; k = k + 1)
        for (j = 0; j < 8; j = j + 1) unswap[8 * k + j] = w[8 * k + 7 - j];
    end
  endfunction

  function [31:0] crc_step;                // CRC-32C over {reg[4:0], data[31:0]}, LSB first
    input [31:0] c;
    input [4:0] r;
    input [31:0] d;
    reg [36:0] x;
    integer b;
    begin
      x = {r, d};
      crc_step = c;
      for (b = 0; b < 37; b = b + 1)
        crc_step = (crc_step[0] ^ x[b]) ? (crc_step >> 1) ^ 32'h82F63B78 : crc_step >> 1;
    end
  endfunction

  function integer index_of;               // frame index of a FAR, -1 if it is no frame
    input [31:0] a;
    integer f;
    begin
      index_of = -1;
      for (f = 0; f < N_FRAMES; f = f + 1)
        if (index_of < 0 && fars[f] == a) index_of = f;
    end
  endfunction

  task drop_pipeline;
    begin has_held = 1'b0; skip = 0; buf_len = 0; end
  endtask

  task desync;
    begin synced = 1'b0; in_error = 1'b0; remaining = 0; cur_reg = -1; last_reg = -1; drop_pipeline; end
  endtask

  task complete;                           // buf_w holds a completed frame
    integer j;
    begin
      if (has_held) begin
        if (fidx < 0) dropped_frames = dropped_frames + 1;
        else begin
          for (j = 0; j < FW; j = j + 1) mem[fidx * FW + j] = held[j];
          written[fidx] = 1'b1;
          frames_written = frames_written + 1;
          if (row_end[fidx]) skip = 2;
          if (fidx + 1 < N_FRAMES) begin fidx = fidx + 1; far = fars[fidx]; end
          else fidx = -1;
        end
      end
      if (skip > 0) begin
        skip = skip - 1; has_held = 1'b0; pad_frames = pad_frames + 1;
      end else begin
        for (j = 0; j < FW; j = j + 1) held[j] = buf_w[j];
        has_held = 1'b1;
      end
      buf_len = 0;
    end
  endtask

  task write_reg(input integer r, input [31:0] w);
    begin
      if (in_error && !(r == R_CMD && w == 32'd13)) ignored_writes = ignored_writes + 1;
      else if (r == R_CRC) begin
        crc_checks = crc_checks + 1;
        if (w != crc) begin crc_error = 1'b1; crc_errors = crc_errors + 1; end
        crc = 32'd0;
      end else begin
        crc = crc_step(crc, r[4:0], w);
        if (r == R_CMD) begin
          drop_pipeline;
          if (w == 32'd7) crc = 32'd0;
          else if (w == 32'd13) desync;
        end else if (r == R_FAR) begin
          drop_pipeline;
          far = w;
          fidx = index_of(w);
        end else if (r == R_IDCODE && ((w ^ IDCODE) & 32'h0FFFFFFF) != 0) begin
          id_error = 1'b1; in_error = 1'b1;
        end
      end
    end
  endtask

  task consume(input [31:0] w);
    begin
      words = words + 1;
      if (remaining > 0) begin
        remaining = remaining - 1;
        if (cur_reg == R_FDRI) begin
          if (in_error) ignored_writes = ignored_writes + 1;
          else begin
            crc = crc_step(crc, R_FDRI, w);
            buf_w[buf_len] = w;
            buf_len = buf_len + 1;
            if (buf_len == FW) complete;
          end
        end else write_reg(cur_reg, w);
      end else if (!synced) begin
        if (w == 32'hAA995566) synced = 1'b1;
      end else if (w[31:29] == 3'd1) begin
        last_reg = w[26:13];
        if (w[28:27] == 2'd2) begin packets = packets + 1; cur_reg = w[26:13]; remaining = w[10:0]; end
        else if (w[28:27] == 2'd1) packets = packets + 1;
      end else if (w[31:29] == 3'd2 && last_reg >= 0) begin
        if (w[28:27] == 2'd2) begin packets = packets + 1; cur_reg = last_reg; remaining = w[26:0]; end
        else if (w[28:27] == 2'd1) packets = packets + 1;
      end else bad_headers = bad_headers + 1;
    end
  endtask

  always @(posedge CLK) begin
    if (!CSIB && !prev_csib && RDWRB != prev_rdwrb) begin
      aborts = aborts + 1;
      if (VERBOSE) $display("ABORT %0d", words);
      desync;
    end else if (!CSIB && !RDWRB) consume(unswap(I));
    prev_csib = CSIB;
    prev_rdwrb = RDWRB;
  end

  task dump;
    integer f, j;
    begin
      for (f = 0; f < N_FRAMES; f = f + 1)
        if (written[f] || marked[f] != 2'd0) begin
          $write("F %08x %0d", fars[f], written[f]);
          for (j = 0; j < FW; j = j + 1) $write(" %08x", mem[f * FW + j]);
          $write("\n");
        end
      $display("STAT %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d %08x", words, packets, frames_written,
               pad_frames, dropped_frames, crc_checks, crc_errors, bad_headers, ignored_writes, aborts, synced,
               id_error, crc_error, far);
    end
  endtask
endmodule
