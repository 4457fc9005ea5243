// tiny_keyxor (tests/data/tinydesign): y = (d ^ key) ^ (rotl(d, 1) & key)
module tinyxor ((* PARAM *) input [7:0] key, input [7:0] d, output [7:0] y);
  assign y = (d ^ key) ^ ({d[6:0], d[7]} & key);
endmodule
