// The registered 24-entry parameter-row select of param_row_select.vhd written as a case statement
// with a zero default (Yosys: one $pmux). In Verilog because GHDL 2.0.0 cannot pass this form on:
// its Verilog writer (ghdl --synth --out=verilog) drops the default branch of the one-hot
// multiplexer it makes of a VHDL case statement ("when others => ..."), so Yosys reads a latch there.
// Entry r is entries[(24-r)*6-1 -: 6] (entry 0 in the top bits); indices 24..31 give zero.
module param_row_select_case (
  input            clk,
  (* PARAM *) input [143:0] entries,
  input      [4:0] idx,
  output reg [5:0] cost
);
  always @(posedge clk)
    case (idx)
      5'd0:  cost <= entries[143:138];
      5'd1:  cost <= entries[137:132];
      5'd2:  cost <= entries[131:126];
      5'd3:  cost <= entries[125:120];
      5'd4:  cost <= entries[119:114];
      5'd5:  cost <= entries[113:108];
      5'd6:  cost <= entries[107:102];
      5'd7:  cost <= entries[101:96];
      5'd8:  cost <= entries[95:90];
      5'd9:  cost <= entries[89:84];
      5'd10: cost <= entries[83:78];
      5'd11: cost <= entries[77:72];
      5'd12: cost <= entries[71:66];
      5'd13: cost <= entries[65:60];
      5'd14: cost <= entries[59:54];
      5'd15: cost <= entries[53:48];
      5'd16: cost <= entries[47:42];
      5'd17: cost <= entries[41:36];
      5'd18: cost <= entries[35:30];
      5'd19: cost <= entries[29:24];
      5'd20: cost <= entries[23:18];
      5'd21: cost <= entries[17:12];
      5'd22: cost <= entries[11:6];
      5'd23: cost <= entries[5:0];
      default: cost <= 6'd0;
    endcase
endmodule
