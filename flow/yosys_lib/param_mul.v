// dcsflow: Yosys techmap for multipliers with a parameter operand (DCS / TLUT mapping).
//
// a * P (P = parameter operand) = sum over c of (A_c * P) << (CHUNK*c), A_c = CHUNK-bit slices of the
// regular operand. Every bit of a chunk product A_c * P depends on at most CHUNK regular inputs (plus
// parameter inputs), so the TLUT mapper (TMAP) can implement it with a single TLUT when CHUNK <= K;
// only the final sum of ceil(n/CHUNK) words costs ordinary adder logic.
//
// Cells (select them and `chtype` a `$mul` to one of them, optionally `setparam -set CHUNK <k>`):
//   $__DCS_PMUL   : `$mul` whose B port is the parameter operand (A regular).
//   $__DCS_PMUL_A : `$mul` whose A port is the parameter operand; swaps the ports and becomes
//                   $__DCS_PMUL.
//   $__DCS_CHUNKMUL (internal): one chunk product.
// Parameters are those of Yosys's `$mul` (A_SIGNED, B_SIGNED, A_WIDTH, B_WIDTH, Y_WIDTH) plus CHUNK
// (default 6; values < 1 are treated as 1).
//
// Semantics (Yosys simlib.v `$mul`): the product is signed only when A_SIGNED and B_SIGNED are both
// set; both operands are extended (sign or zero) to Y_WIDTH and multiplied modulo 2**Y_WIDTH. Hence
// only the low min(width, Y_WIDTH) bits of an operand matter, and sign extension only matters when
// width < Y_WIDTH. A signed regular operand is handled by treating its top chunk as a two's complement
// number: sext(A) = sum_{c<N-1} u(A_c) 2^(CHUNK c) + s(A_{N-1}) 2^(CHUNK (N-1)) (mod 2**Y_WIDTH), and
// s(x) * P = u(x without its top bit) * P - x_top * (P << (w-1)); the negative row is added as its
// one's complement plus a carry-in of 1.
//
// The chunk product is written as explicit AND/XOR/OR shift-and-add rows, not as `*`/`+`, so that
// `alumacc` cannot merge it with the other chunks into one `$macc` (which would make every internal
// signal depend on many regular inputs again). The final sum of the chunk products uses `+` ($add,
// ordinary carry logic: CARRY4 in synth_xilinx).

(* techmap_celltype = "$__DCS_PMUL" *)
module _dcs_pmul (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  parameter CHUNK = 6;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;

  localparam SIGNED = (A_SIGNED != 0) && (B_SIGNED != 0);
  localparam K = (CHUNK < 1) ? 1 : CHUNK;
  // bits of each operand that reach the result, and whether its sign extension does
  localparam AW = (A_WIDTH < Y_WIDTH) ? A_WIDTH : Y_WIDTH;
  localparam AS = SIGNED && (A_WIDTH < Y_WIDTH);
  localparam BW = (B_WIDTH < Y_WIDTH) ? B_WIDTH : Y_WIDTH;
  localparam BS = SIGNED && (B_WIDTH < Y_WIDTH);
  localparam N = (AW + K - 1) / K;   // number of chunks of the regular operand

  genvar c;
  generate
    if (N == 0 || BW == 0) begin : empty
      assign Y = {Y_WIDTH{1'b0}};
    end else begin : chunks
      wire [Y_WIDTH*N-1:0] parts;    // chunk product c, already shifted by K*c
      wire [Y_WIDTH*N-1:0] sums;     // running sum of parts 0..c
      for (c = 0; c < N; c = c + 1) begin : chunk
        localparam S = c * K;
        localparam W = (AW - S < K) ? AW - S : K;
        wire [Y_WIDTH-S-1:0] p;
        \$__DCS_CHUNKMUL #(.A_SIGNED(AS && (c == N - 1)), .A_WIDTH(W), .B_SIGNED(BS), .B_WIDTH(BW),
                          .Y_WIDTH(Y_WIDTH - S))
          m (.A(A[S +: W]), .B(B[BW-1:0]), .Y(p));
        if (S == 0) begin : noshift
          assign parts[c*Y_WIDTH +: Y_WIDTH] = p;
        end else begin : shift
          assign parts[c*Y_WIDTH +: Y_WIDTH] = {p, {S{1'b0}}};
        end
        if (c == 0) begin : first
          assign sums[0 +: Y_WIDTH] = parts[0 +: Y_WIDTH];
        end else begin : add
          assign sums[c*Y_WIDTH +: Y_WIDTH] = sums[(c-1)*Y_WIDTH +: Y_WIDTH] + parts[c*Y_WIDTH +: Y_WIDTH];
        end
      end
      assign Y = sums[(N-1)*Y_WIDTH +: Y_WIDTH];
    end
  endgenerate
endmodule

(* techmap_celltype = "$__DCS_PMUL_A" *)
module _dcs_pmul_a (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  parameter CHUNK = 6;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  // multiplication commutes: the parameter operand goes to port B
  \$__DCS_PMUL #(.A_SIGNED(B_SIGNED), .B_SIGNED(A_SIGNED), .A_WIDTH(B_WIDTH), .B_WIDTH(A_WIDTH),
                .Y_WIDTH(Y_WIDTH), .CHUNK(CHUNK))
    _TECHMAP_REPLACE_ (.A(B), .B(A), .Y(Y));
endmodule

// Y = ext(A) * ext(B) mod 2**Y_WIDTH (ext: sign extension if *_SIGNED, else zero extension), as
// shift-and-add rows of fine-grained gate cells ($_AND_, $_XOR_, $_OR_, $_NOT_). Row i adds
// (A[i] & ext(B)) << i; with A_SIGNED the top row is subtracted (one's complement plus carry-in 1).
// Requires A_WIDTH <= Y_WIDTH. Gate cells instead of Verilog operators: alumacc cannot see them, and
// parsing this file does not advance Yosys's auto-name counter (operators in generate loops do), so
// a design without a parameter-operand `$mul` gets exactly the same netlist and names as without
// this techmap run.
(* techmap_celltype = "$__DCS_CHUNKMUL" *)
module _dcs_chunkmul (A, B, Y);
  parameter A_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_SIGNED = 0;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;

  wire [Y_WIDTH*(A_WIDTH+1)-1:0] acc;     // acc row r = sum of rows 0..r-1; row 0 = 0
  assign acc[0 +: Y_WIDTH] = {Y_WIDTH{1'b0}};
  genvar i, j;
  generate
    for (i = 0; i < A_WIDTH; i = i + 1) begin : row
      localparam NEG = (A_SIGNED != 0) && (i == A_WIDTH - 1);
      wire [Y_WIDTH:0] cy;                 // carries of this row's ripple adder
      if (NEG) begin : cin1
        assign cy[0] = 1'b1;
      end else begin : cin0
        assign cy[0] = 1'b0;
      end
      for (j = 0; j < Y_WIDTH; j = j + 1) begin : col
        wire pp, q, x, s, g, p;
        // partial product bit pp = A[i] & ext(B)[j-i]
        if (j < i) begin : z0
          assign pp = 1'b0;
        end else if (j - i < B_WIDTH) begin : b
          \$_AND_ u_pp (.A(A[i]), .B(B[j - i]), .Y(pp));
        end else if (B_SIGNED != 0) begin : bs
          \$_AND_ u_pp (.A(A[i]), .B(B[B_WIDTH - 1]), .Y(pp));
        end else begin : z1
          assign pp = 1'b0;
        end
        if (NEG) begin : neg
          \$_NOT_ u_q (.A(pp), .Y(q));
        end else begin : pos
          assign q = pp;
        end
        // full adder: acc + q + carry
        assign x = acc[i*Y_WIDTH + j];
        \$_XOR_ u_s (.A(x), .B(q), .Y(s));
        \$_XOR_ u_y (.A(s), .B(cy[j]), .Y(acc[(i+1)*Y_WIDTH + j]));
        \$_AND_ u_g (.A(x), .B(q), .Y(g));
        \$_AND_ u_p (.A(s), .B(cy[j]), .Y(p));
        \$_OR_  u_c (.A(g), .B(p), .Y(cy[j+1]));
      end
    end
  endgenerate
  assign Y = acc[A_WIDTH*Y_WIDTH +: Y_WIDTH];
endmodule
