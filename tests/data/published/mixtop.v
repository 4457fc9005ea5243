// Verilog top of a mixed design: y = ~(a ^ k) from the VHDL entity xorsub; k marked with a //PARAM block.
module mixtop (
  input  [7:0] a,
//PARAM
  input  [7:0] k,
//PARAM
  output [7:0] y
);
  wire [7:0] t;
  xorsub u (.a(a), .k(k), .y(t));
  assign y = ~t;
endmodule
