// A correct Verilog design for the front-end check: an accumulator with an active-low asynchronous
// reset, a parameter input k ((* PARAM *)), a case statement with a default, and a combinational
// output y. out_q has no reset: x until the first clock edge (not compared).
module fc_acc (
  input             clk,
  input             rst_n,
  input      [7:0]  d,
  input      [1:0]  op,
  (* PARAM *) input [7:0] k,
  output reg [11:0] acc,
  output reg [3:0]  out_q,
  output     [7:0]  y
);
  always @(posedge clk or negedge rst_n)
    if (!rst_n)
      acc <= 12'd0;
    else
      case (op)
        2'd0: acc <= acc + d;
        2'd1: acc <= acc - k;
        2'd2: acc <= {4'd0, d ^ k};
        default: acc <= acc;
      endcase

  always @(posedge clk)
    out_q <= d[3:0] + k[3:0];

  assign y = (d & k) | {8{op[0]}};
endmodule
