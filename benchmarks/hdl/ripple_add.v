// Yosys techmap for the TMAP benchmark of published designs (benchmarks/published_bench.py): every
// $add cell becomes a ripple-carry adder of full-adder gates, bit i: sum = a ^ b ^ c, carry out =
// a & b | (a ^ b) & c. Yosys's own techmap makes a Brent-Kung parallel-prefix adder of every $add
// (techmap.v, $lcu); a ripple adder is the structure the published TLUT flow's synthesis hands its
// mapper (adders as carry chains), so it is the like-for-like input for comparing with its figures.
// Operands are extended to the result width (sign-extended only when both are signed, as $add).
(* techmap_celltype = "$add" *)
module _dcs_ripple_add (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  (* force_downto *) input [A_WIDTH-1:0] A;
  (* force_downto *) input [B_WIDTH-1:0] B;
  (* force_downto *) output [Y_WIDTH-1:0] Y;
  (* force_downto *) wire [Y_WIDTH-1:0] a, b, c;
  localparam SIGNED = A_SIGNED && B_SIGNED;
  \$pos #(.A_SIGNED(SIGNED), .A_WIDTH(A_WIDTH), .Y_WIDTH(Y_WIDTH)) ext_a (.A(A), .Y(a));
  \$pos #(.A_SIGNED(SIGNED), .A_WIDTH(B_WIDTH), .Y_WIDTH(Y_WIDTH)) ext_b (.A(B), .Y(b));
  genvar i;
  generate
    for (i = 0; i < Y_WIDTH; i = i + 1) begin : fa
      if (i == 0) begin : lsb
        assign Y[0] = a[0] ^ b[0];
        assign c[0] = a[0] & b[0];
      end else begin : bit
        assign Y[i] = a[i] ^ b[i] ^ c[i-1];
        assign c[i] = (a[i] & b[i]) | ((a[i] ^ b[i]) & c[i-1]);
      end
    end
  endgenerate
endmodule
