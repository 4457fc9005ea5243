// dcsflow: AXI4 read-only memory model for simulating the ICAP stream controller (simulation only).
//
// WORDS 32-bit words at byte address BASE (MEM_FILE, $readmemh). Read addresses queue up (QUEUE deep);
// each burst's first beat comes LATENCY cycles after its address handshake at the earliest, then one
// beat per cycle, in order. With STALL_PERCENT > 0 (random, SEED) a cycle may give no beat and no
// arready. A beat outside [BASE, BASE + 4*WORDS) answers DECERR, the word ERR_WORD (index from BASE,
// -1: none) SLVERR. Protocol checks at every address handshake (ARSIZE 4 bytes, INCR, at most 16
// beats, no 4 KB crossing) print "PROTOCOL <what>"; "MAXQ <n>" at the end of the simulation (task
// report) gives the most addresses that were queued at once.
module dcs_axi_mem_model #(
  parameter [31:0] BASE = 32'h10000000,
  parameter WORDS = 1024,
  parameter LATENCY = 32,
  parameter STALL_PERCENT = 0,
  parameter SEED = 1,
  parameter MEM_FILE = "mem.hex",
  parameter ERR_WORD = -1,
  parameter QUEUE = 16
) (
  input  wire        clk,
  input  wire [31:0] araddr,
  input  wire [7:0]  arlen,
  input  wire [2:0]  arsize,
  input  wire [1:0]  arburst,
  input  wire        arvalid,
  output reg         arready = 1'b0,
  output reg  [31:0] rdata = 32'd0,
  output reg  [1:0]  rresp = 2'b00,
  output reg         rlast = 1'b0,
  output reg         rvalid = 1'b0,
  input  wire        rready
);
  reg [31:0] mem [0:WORDS-1];
  reg [31:0] q_addr [0:QUEUE-1];
  reg [8:0]  q_len [0:QUEUE-1];
  integer    q_time [0:QUEUE-1];
  integer    head = 0, tail = 0, count = 0, maxq = 0, beat = 0, cycle = 0, seed = SEED, idx;
  reg [31:0] a;

  initial $readmemh(MEM_FILE, mem);

  function stall;                           // a random cycle without progress
    input dummy;
    begin stall = STALL_PERCENT > 0 && ({$random(seed)} % 100) < STALL_PERCENT; end
  endfunction

  always @(posedge clk) begin
    cycle = cycle + 1;
    if (arvalid && arready) begin
      if (arsize != 3'd2) $display("PROTOCOL arsize %0d", arsize);
      if (arburst != 2'b01) $display("PROTOCOL arburst %0d", arburst);
      if (arlen > 8'd15) $display("PROTOCOL arlen %0d", arlen);
      if ({20'd0, araddr[11:0]} + 4 * (arlen + 1) > 4096) $display("PROTOCOL 4KB %08x %0d", araddr, arlen);
      q_addr[tail] = araddr; q_len[tail] = arlen + 9'd1; q_time[tail] = cycle + LATENCY;
      tail = (tail + 1) % QUEUE; count = count + 1;
      if (count > maxq) maxq = count;
    end
    arready <= count < QUEUE - 1 && !stall(1'b0);
    if (rvalid && rready) begin
      beat = beat + 1;
      if (beat == q_len[head]) begin head = (head + 1) % QUEUE; count = count - 1; beat = 0; end
    end
    if (!rvalid || rready) begin
      rvalid <= 1'b0;
      if (count > 0 && cycle >= q_time[head] && !stall(1'b0)) begin
        a = q_addr[head] + 4 * beat;
        idx = (a - BASE) >> 2;
        rvalid <= 1'b1;
        rlast <= beat + 1 == q_len[head];
        if (a < BASE || a >= BASE + 4 * WORDS) begin rdata <= 32'd0; rresp <= 2'b11; end
        else begin rdata <= mem[idx]; rresp <= (idx == ERR_WORD) ? 2'b10 : 2'b00; end
      end
    end
  end

  task report;
    $display("MAXQ %0d", maxq);
  endtask
endmodule
