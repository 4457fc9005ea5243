// dcsflow: input-handshake gate for the CFGLUT5 chain loader, version 1 (docs/formats.md, "CFGLUT5
// chain words and loader, version 1"). Verilog-2005.
//
// Sits between a design's input handshake and the outside world so that no data item is processed
// with a half-loaded key: while `hold` is high (the loader's hold, or any other request), no new data
// item is let in, and `idle` tells the loader when no item is in flight any more. The beats of one
// item are never split: an item that has started takes all its beats.
//
// A data item enters through valid/ready beats (a beat when both are high); with HAS_LAST = 1 its
// last beat carries `s_last`, with HAS_LAST = 0 every beat is a whole item. It has left the design at
// a one-cycle pulse of `done` (HAS_DONE = 1) or at an output beat m_valid && m_ready (HAS_DONE = 0).
//
// Ports (one clock; `rst` synchronous, active high, as the design's):
//   s_valid, s_ready      the outside side of the input handshake (s_ready is the design's, gated)
//   s_valid_core, s_ready_core   the design's side
//   s_last, done, m_valid, m_ready   from the design's ports (tie unused ones to 0)
//   hold                  1: let no new item in
//   idle                  no item in flight and none half-entered (registered)
//   start                 1 in a cycle whose clock edge takes the first beat of an item
module dcs_cfglut_gate #(
  parameter HAS_LAST = 0,
  parameter HAS_DONE = 0
) (
  input  wire clk,
  input  wire rst,
  input  wire hold,
  input  wire s_valid,
  output wire s_ready,
  output wire s_valid_core,
  input  wire s_ready_core,
  input  wire s_last,
  input  wire done,
  input  wire m_valid,
  input  wire m_ready,
  output wire idle,
  output wire start
);
  reg        in_item = 1'b0;     // an item has taken some but not all of its beats
  reg [15:0] inflight = 16'd0;   // items that have started and not yet left
  wire block = hold & ~in_item;
  assign s_valid_core = s_valid & ~block;
  assign s_ready = s_ready_core & ~block;
  wire beat = s_valid_core & s_ready_core;
  assign start = beat & ~in_item;
  wire leave = HAS_DONE ? done : (m_valid & m_ready);
  always @(posedge clk) begin
    if (rst) begin
      in_item <= 1'b0;
      inflight <= 16'd0;
    end else begin
      if (beat) in_item <= HAS_LAST ? ~s_last : 1'b0;
      if (start && !leave) inflight <= inflight + 16'd1;
      else if (!start && leave && inflight != 16'd0) inflight <= inflight - 16'd1;
    end
  end
  assign idle = (inflight == 16'd0) & ~in_item;
endmodule
