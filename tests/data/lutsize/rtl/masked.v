// Test design of the LUT-size tests (tests/test_lut_size.py): functions of more than four regular
// inputs once the parameter is folded into the LUTs, so that a build at LUT size 6 has TLUTs of
// five or six inputs and one at LUT size 4 must split them.
//   p: parity of the bits of a that key selects (an 8-input XOR once key is fixed)
//   s: a per-bit select by key between a ^ b and a & b, plus a parameter-operand adder (a ^ key) + b
//   m: a multiplier with a parameter operand (a * key[3:0]: chunk products of the LUT size)
module masked (
  input clk,
  (* PARAM *) input [7:0] key,
  input [7:0] a,
  input [7:0] b,
  output reg p,
  output reg [7:0] s,
  output reg [7:0] t,
  output reg [11:0] m
);
  integer i;
  always @(posedge clk) begin
    p <= ^(a & key);
    for (i = 0; i < 8; i = i + 1)
      s[i] <= key[i] ? a[i] ^ b[i] : a[i] & b[i];
    t <= (a ^ key) + b;
    m <= a * key[3:0];
  end
endmodule
