// The smallest design with a parameter input: tests/test_timeouts.py builds it to check a test
// bench that never returns.
module hang(input [3:0] d, (* PARAM *) input [3:0] key, output [3:0] y);
  assign y = d ^ key;
endmodule
