// Multiplication in GF(2^128) with GCM's bit order (NIST SP 800-38D §6.3), combinational, in two
// forms that compute the same product z = x · y. Verilog-2005, synthesizable.
//
// Bit order: a 128-bit block is the big-endian integer of its 16 bytes, so the standard's bit 0
// (the leftmost bit, the coefficient of x^0) is vector bit 127 and its bit 127 (the coefficient of
// x^127) is vector bit 0. A hex value of a port is the block's bytes in order, as in the NIST
// files and in dcsflow.designs.aes_modes.model (gf128_mul, ghash_matrix).
//
// Both forms sum with balanced XOR trees (reduction operators), not with the chained XOR of
// Algorithm 1: ABC's restructured mappings of a chain share no internal node with it, and the
// equivalence proof of every conventional candidate (ABC cec) did not finish on the chained form.

// gf128_mul: the generic multiplier (the conventional build). Schoolbook: the unreduced product
// d_k = XOR of x_i y_(k-i) over i (standard bit numbers, k = 0..254), then z_b = XOR of the d_k
// whose x^k reduces modulo P = x^128 + x^7 + x^2 + x + 1 to a polynomial with the term x^b
// (constants made by `red` at elaboration).
module gf128_mul (
    input  wire [127:0] x,
    input  wire [127:0] y,
    output reg  [127:0] z
);
    // RED[255*b +: 255]: the mask of the d_k (bit k) whose x^k mod P has the term x^b
    function [128 * 255 - 1:0] red_table;
        input integer unused;
        reg [128 * 255 - 1:0] r;
        reg [127:0] v;
        integer k, b;
        begin
            r = 0;
            v = 128'd1;                         // x^k mod P, bit t = coefficient of x^t
            for (k = 0; k < 255; k = k + 1) begin
                for (b = 0; b < 128; b = b + 1)
                    r[255 * b + k] = v[b];
                v = {v[126:0], 1'b0} ^ (v[127] ? 128'h87 : 128'd0);
            end
            red_table = r;
        end
    endfunction
    localparam [128 * 255 - 1:0] RED = red_table(0);

    reg [254:0] d;
    reg [381:0] w;      // w[k +: 128]: the y bits that pair with x's vector bits in d_k (zeros above 254)
    integer i, k, b;
    always @* begin
        // d_k = XOR over standard i of x_i y_(k-i); x_i is vector bit p = 127 - i and y_(k-i) is
        // y[254 - k - p] = w[k + p] with w[127 + j] = y[127 - j] (y reversed above 127 zeros)
        w = 382'd0;
        for (i = 0; i < 128; i = i + 1)
            w[127 + i] = y[127 - i];
        for (k = 0; k < 255; k = k + 1)
            d[k] = ^(x & w[k +: 128]);
        for (b = 0; b < 128; b = b + 1)
            z[127 - b] = ^(d & RED[255 * b +: 255]);
    end
endmodule

// gf128_mulh: the product as the linear map X -> X·H of the operand y = H (the TLUT build, H a
// parameter input). Algorithm 1's chain V_0 = y, V_(i+1) = V_i >> 1 (XOR R = 11100001 || 0^120 if
// V_i's vector bit 0 is set) gives V_i = y · x^i, which depends on y alone; every z bit is the
// parity of the x bits whose V_i has that bit set: with y as parameter a row of the matrix of
// model.ghash_matrix(H), XORed by one balanced tree per output bit.
module gf128_mulh (
    input  wire [127:0] x,
    input  wire [127:0] y,
    output reg  [127:0] z
);
    localparam [127:0] R = {8'hE1, 120'd0};
    reg [128 * 128 - 1:0] v;        // V_i in bits [128*i +: 128]
    reg [127:0] m;                  // m[127 - i] = bit b of V_i, aligned with x's vector bits
    integer i, b;
    always @* begin
        v[127:0] = y;
        for (i = 1; i < 128; i = i + 1)
            v[128 * i +: 128] = {1'b0, v[128 * (i - 1) + 1 +: 127]} ^ (v[128 * (i - 1)] ? R : 128'd0);
        for (b = 0; b < 128; b = b + 1) begin
            for (i = 0; i < 128; i = i + 1)
                m[127 - i] = v[128 * i + b];
            z[b] = ^(x & m);
        end
    end
endmodule
