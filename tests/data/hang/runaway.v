// A design whose elaboration never ends: the generate loop's condition is always true, so Yosys
// (0.23) adds one more block for ever and grows by about 30 MB/s (tests/test_tool_limits.py,
// tests/hostile_probe.py).
module runaway(input [7:0] x, (* PARAM *) input [7:0] key, output [7:0] y);
  genvar i;
  generate
    for (i = 0; i >= 0; i = i + 1) begin : g
      wire [7:0] w = x ^ key ^ i;
    end
  endgenerate
  assign y = x ^ key;
endmodule
