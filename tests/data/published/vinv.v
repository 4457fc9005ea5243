// Verilog module used from the VHDL top vhdtop (mixed design): z = ~x.
module vinv (input [7:0] x, output [7:0] z);
  assign z = ~x;
endmodule
