// an 8-bit parameter input of which only the low 4 bits reach the logic
module narrow (
  input clk,
  (* PARAM *) input [7:0] key,
  input [3:0] d,
  output reg [3:0] q
);
  always @(posedge clk) q <= (d ^ key[3:0]) + {d[1:0], d[3:2]};
endmodule
