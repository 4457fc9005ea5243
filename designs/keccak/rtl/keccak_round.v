// One round of Keccak-p[1600] (FIPS 202 §3.3: Rnd(A, ir) = iota(chi(pi(rho(theta(A)))), ir)),
// combinational, and the table of its 24 round constants. Verilog-2005, synthesizable.
//
// State layout (FIPS 202 §3.1.2 and Appendix B.1): the 1600-bit vector holds 25 lanes of 64 bits;
// lane (x, y) is bits [64*(x+5*y) +: 64]; bit z of a lane is bit 64*(x+5*y)+z. With the state as
// a byte string S[0..199] (byte i = bits [8*i +: 8]), every lane is little-endian: byte 8*(x+5*y)+k
// of S is bits 8k..8k+7 of lane (x, y). A hex value of the vector written MSB first is therefore
// the byte string S reversed (int.from_bytes(S, "little") in Python).
//
// keccak_round: s_in -> s_out, with the round constant RC[ir] given as the 64-bit input rc (from
// keccak_rc below, or a constant); Keccak-p[1600, nr] applies the rounds ir = 24-nr .. 23.
module keccak_round (
    input  wire [1599:0] s_in,
    input  wire [63:0]   rc,
    output wire [1599:0] s_out
);
    // rho offsets r[x+5y] (FIPS 202 Table 2)
    function integer rho;
        input integer i;
        begin
            case (i)
                0: rho = 0;   1: rho = 1;   2: rho = 62;  3: rho = 28;  4: rho = 27;
                5: rho = 36;  6: rho = 44;  7: rho = 6;   8: rho = 55;  9: rho = 20;
                10: rho = 3;  11: rho = 10; 12: rho = 43; 13: rho = 25; 14: rho = 39;
                15: rho = 41; 16: rho = 45; 17: rho = 15; 18: rho = 21; 19: rho = 8;
                20: rho = 18; 21: rho = 2;  22: rho = 61; 23: rho = 56; default: rho = 14;
            endcase
        end
    endfunction

    wire [63:0] a [0:24];      // input lanes
    wire [63:0] c [0:4];       // theta: column parities
    wire [63:0] d [0:4];       // theta: C[x-1] ^ rot(C[x+1], 1)
    wire [63:0] t [0:24];      // after theta
    wire [63:0] b [0:24];      // after rho and pi
    wire [63:0] e [0:24];      // after chi (iota applied on lane 0 at the output)

    genvar x, y;
    generate
        for (x = 0; x < 25; x = x + 1) begin : lanes_in
            assign a[x] = s_in[64*x +: 64];
        end
        for (x = 0; x < 5; x = x + 1) begin : theta_c
            assign c[x] = a[x] ^ a[x+5] ^ a[x+10] ^ a[x+15] ^ a[x+20];
        end
        for (x = 0; x < 5; x = x + 1) begin : theta_d
            assign d[x] = c[(x+4)%5] ^ {c[(x+1)%5][62:0], c[(x+1)%5][63]};
        end
        for (y = 0; y < 5; y = y + 1) begin : rows
            for (x = 0; x < 5; x = x + 1) begin : cols
                // theta
                assign t[x+5*y] = a[x+5*y] ^ d[x];
                // rho then pi: B[x, y] = rot(T[(x+3y) mod 5, x], r[(x+3y) mod 5 + 5x])
                if (rho(((x+3*y)%5) + 5*x) == 0) begin : norot
                    assign b[x+5*y] = t[((x+3*y)%5) + 5*x];
                end else begin : rot
                    assign b[x+5*y] = (t[((x+3*y)%5) + 5*x] << rho(((x+3*y)%5) + 5*x))
                                    | (t[((x+3*y)%5) + 5*x] >> (64 - rho(((x+3*y)%5) + 5*x)));
                end
            end
        end
        for (y = 0; y < 5; y = y + 1) begin : chi_rows
            for (x = 0; x < 5; x = x + 1) begin : chi_cols
                // chi: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y])
                assign e[x+5*y] = b[x+5*y] ^ (~b[(x+1)%5+5*y] & b[(x+2)%5+5*y]);
                if (x + 5*y == 0) begin : iota
                    assign s_out[63:0] = e[0] ^ rc;
                end else begin : pass
                    assign s_out[64*(x+5*y) +: 64] = e[x+5*y];
                end
            end
        end
    endgenerate
endmodule

// Round constant RC[ir] of Keccak-p[1600] (FIPS 202 §3.2.5, Algorithm 6), ir = 0..23; other
// indices give 0.
module keccak_rc (
    input  wire [4:0]  ir,
    output reg  [63:0] rc
);
    always @* begin
        case (ir)
            5'd0:  rc = 64'h0000000000000001;
            5'd1:  rc = 64'h0000000000008082;
            5'd2:  rc = 64'h800000000000808A;
            5'd3:  rc = 64'h8000000080008000;
            5'd4:  rc = 64'h000000000000808B;
            5'd5:  rc = 64'h0000000080000001;
            5'd6:  rc = 64'h8000000080008081;
            5'd7:  rc = 64'h8000000000008009;
            5'd8:  rc = 64'h000000000000008A;
            5'd9:  rc = 64'h0000000000000088;
            5'd10: rc = 64'h0000000080008009;
            5'd11: rc = 64'h000000008000000A;
            5'd12: rc = 64'h000000008000808B;
            5'd13: rc = 64'h800000000000008B;
            5'd14: rc = 64'h8000000000008089;
            5'd15: rc = 64'h8000000000008003;
            5'd16: rc = 64'h8000000000008002;
            5'd17: rc = 64'h8000000000000080;
            5'd18: rc = 64'h000000000000800A;
            5'd19: rc = 64'h800000008000000A;
            5'd20: rc = 64'h8000000080008081;
            5'd21: rc = 64'h8000000000008080;
            5'd22: rc = 64'h0000000080000001;
            5'd23: rc = 64'h8000000080008008;
            default: rc = 64'h0;
        endcase
    end
endmodule
