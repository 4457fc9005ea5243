// 4x4 multiplier, one operand a parameter input (no attribute: named with --param c).
module mul4 (input [3:0] x, input [3:0] c, output [7:0] p);
  assign p = x * c;
endmodule
