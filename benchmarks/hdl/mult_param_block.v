// 8-bit regular operand times an 8-bit coefficient marked as a parameter input by a //PARAM block
// (the published TLUT flow's Verilog style), registered product. The front end rewrites x * coef
// into chunk products of K regular bits (dcsflow.flow.param_arith), as for (* PARAM *) ports.
module mult_param_block (
  input clk,
  input [7:0] x,
//PARAM
  input [7:0] coef,
//PARAM
  output reg [15:0] y
);
  always @(posedge clk) y <= x * coef;
endmodule
