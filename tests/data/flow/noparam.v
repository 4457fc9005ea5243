module noparam (input clk, input [7:0] a, input [7:0] b, output reg [7:0] y);
  always @(posedge clk) y <= (a & b) ^ {a[0], b[7:1]};
endmodule
