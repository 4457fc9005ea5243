// Small test design: key buffer register (a parameter register), key XOR + adder, and a 4x4
// multiplier with the parameter as one operand.
module keyxor #(parameter W = 8) (
  input clk, input load,
  (* PARAM *) input [W-1:0] key,
  input [W-1:0] d,
  output reg [W-1:0] q,
  output [7:0] m
);
  reg [W-1:0] kb;
  always @(posedge clk) if (load) kb <= key;
  always @(posedge clk) q <= (d ^ kb) + {d[3:0], d[7:4]};
  assign m = d[3:0] * kb[7:4];
endmodule
