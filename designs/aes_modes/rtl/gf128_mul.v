// Multiplication in GF(2^128) with GCM's bit order (NIST SP 800-38D §6.3, Algorithm 1),
// combinational. Verilog-2005, synthesizable.
//
// Bit order: a 128-bit block is the big-endian integer of its 16 bytes, so the standard's bit 0
// (the leftmost bit, the coefficient of x^0) is vector bit 127 and its bit 127 (the coefficient of
// x^127) is vector bit 0. A hex value of a port is the block's bytes in order, as in the NIST
// files and in dcsflow.designs.aes_modes.model (gf128_mul, ghash_matrix).
//
// z = x · y. Algorithm 1 unrolled: V_0 = y, V_{i+1} = V_i >> 1 (XOR R = 11100001 || 0^120 if the
// standard's bit 127 of V_i, vector bit 0, is 1), so V_i = y · x^i; Z = XOR of the V_i for which the
// standard's bit i of x (vector bit 127-i) is 1. The chain V_0 .. V_127 depends on y alone: with y
// = H as parameter input, every bit of z is the XOR of the bits of x that row of the matrix of
// X -> X·H selects (ghash_matrix), which is what the TLUT build maps; with y an ordinary input this
// is the generic multiplier of the conventional build.
module gf128_mul (
    input  wire [127:0] x,
    input  wire [127:0] y,
    output wire [127:0] z
);
    localparam [127:0] R = {8'hE1, 120'd0};

    reg [127:0] v;      // y · x^i at step i
    reg [127:0] acc;    // XOR of the y · x^j, j < i, with the standard's bit j of x set
    integer i;

    always @* begin
        v = y;
        acc = 128'd0;
        for (i = 0; i < 128; i = i + 1) begin
            acc = acc ^ (v & {128{x[127 - i]}});
            v = {1'b0, v[127:1]} ^ (v[0] ? R : 128'd0);
        end
    end

    assign z = acc;
endmodule
