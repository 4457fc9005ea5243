// dcsflow: Yosys techmap turning an adder or subtracter into ripple-carry logic of plain gates, so that
// the LUT mapper (TMAP) sees it as logic instead of synth_xilinx making it a CARRY4 chain
// (flow/adders.py selects the cells; benchmarks/published_bench.py maps every adder with it).
//
// Bit i: sum = a ^ b ^ c, carry out = a & b | (a ^ b) & c; a subtraction A - B is A + ~B + 1 (carry
// in 1). Operands are extended to the result width, sign-extended only when both are signed, as
// Yosys's $add / $sub (simlib.v). Cells: $add, $sub (Yosys 0.23 coarse cells, before alumacc).

(* techmap_celltype = "$add $sub" *)
module _dcs_ripple (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  parameter _TECHMAP_CELLTYPE_ = "";
  localparam SUB = _TECHMAP_CELLTYPE_ == "$sub";
  (* force_downto *) input [A_WIDTH-1:0] A;
  (* force_downto *) input [B_WIDTH-1:0] B;
  (* force_downto *) output [Y_WIDTH-1:0] Y;
  (* force_downto *) wire [Y_WIDTH-1:0] a, b0, b, c;
  localparam SIGNED = A_SIGNED && B_SIGNED;
  \$pos #(.A_SIGNED(SIGNED), .A_WIDTH(A_WIDTH), .Y_WIDTH(Y_WIDTH)) ext_a (.A(A), .Y(a));
  \$pos #(.A_SIGNED(SIGNED), .A_WIDTH(B_WIDTH), .Y_WIDTH(Y_WIDTH)) ext_b (.A(B), .Y(b0));
  assign b = SUB ? ~b0 : b0;
  genvar i;
  generate
    for (i = 0; i < Y_WIDTH; i = i + 1) begin : fa
      if (i == 0) begin : lsb
        if (SUB) begin : one
          assign Y[0] = ~(a[0] ^ b[0]);
          assign c[0] = a[0] | b[0];
        end else begin : zero
          assign Y[0] = a[0] ^ b[0];
          assign c[0] = a[0] & b[0];
        end
      end else begin : bit
        assign Y[i] = a[i] ^ b[i] ^ c[i-1];
        assign c[i] = (a[i] & b[i]) | ((a[i] ^ b[i]) & c[i-1]);
      end
    end
  endgenerate
endmodule
