// test bench of the specialized tinyxor netlist: every d, one line "Y <d> <y>" each (key port unused)
`timescale 1ns/1ps
module tb;
  reg [7:0] d;
  wire [7:0] y;
  integer i;
  tinyxor dut (.key(8'd0), .d(d), .y(y));
  initial begin
    for (i = 0; i < 256; i = i + 1) begin
      d = i;
      #1 $display("Y %02x %02x", d, y);
    end
    $finish;
  end
endmodule
