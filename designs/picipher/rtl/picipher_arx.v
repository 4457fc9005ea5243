// ARX engine of the pi-Cipher message processor: one * operation, purely combinational.
//   z = x * y = sigma(mu(x), nu(y)) on chunks of four W-bit words (word k at bits [Wk+W-1:Wk]).
// W = 16, 32 or 64 (pi16/pi32/pi64-Cipher). Constants and rotation amounts per word size: the
// reference's parameter headers (PI_MU_CONST, PI_MU_ROT_CONST, PI_NY_CONST, PI_NY_ROT_CONST;
// designs/picipher/model.py cites them). Source of the operation: PI16CIPHER.md ("The * operation").
// Written as one combinational always block (synthesizes to the same adders/XORs as continuous
// assignments; Icarus evaluates it about twice as fast).
module picipher_arx #(
    parameter W = 16
) (
    input  wire [4*W-1:0] x,
    input  wire [4*W-1:0] y,
    output reg  [4*W-1:0] z
);
    localparam [63:0] MC0 = W == 16 ? 64'hF0E8 : W == 32 ? 64'hF0E8E4E2 : 64'hF0E8E4E2E1D8D4D2;
    localparam [63:0] MC1 = W == 16 ? 64'hE4E2 : W == 32 ? 64'hE1D8D4D2 : 64'hD1CCCAC9C6C5C3B8;
    localparam [63:0] MC2 = W == 16 ? 64'hE1D8 : W == 32 ? 64'hD1CCCAC9 : 64'hB4B2B1ACAAA9A6A5;
    localparam [63:0] MC3 = W == 16 ? 64'hD4D2 : W == 32 ? 64'hC6C5C3B8 : 64'hA39C9A999695938E;
    localparam [63:0] NC0 = W == 16 ? 64'hD1CC : W == 32 ? 64'hB4B2B1AC : 64'h8D8B87787472716C;
    localparam [63:0] NC1 = W == 16 ? 64'hCAC9 : W == 32 ? 64'hAAA9A6A5 : 64'h6A696665635C5A59;
    localparam [63:0] NC2 = W == 16 ? 64'hC6C5 : W == 32 ? 64'hA39C9A99 : 64'h5655534E4D4B473C;
    localparam [63:0] NC3 = W == 16 ? 64'hC3B8 : W == 32 ? 64'h9695938E : 64'h3A393635332E2D2B;
    localparam integer MR0 = W == 16 ? 1  : W == 32 ? 5  : 7;
    localparam integer MR1 = W == 16 ? 4  : W == 32 ? 11 : 19;
    localparam integer MR2 = W == 16 ? 9  : W == 32 ? 17 : 31;
    localparam integer MR3 = W == 16 ? 11 : W == 32 ? 23 : 53;
    localparam integer NR0 = W == 16 ? 2  : W == 32 ? 3  : 11;
    localparam integer NR1 = W == 16 ? 5  : W == 32 ? 10 : 23;
    localparam integer NR2 = W == 16 ? 7  : W == 32 ? 19 : 37;
    localparam integer NR3 = W == 16 ? 13 : W == 32 ? 29 : 59;

    // word k of a chunk is at [W*k+W-1:W*k] (slices written out, not wires: the same synthesis as the
    // pi16-only version of this module)
    reg  [W-1:0] a0, a1, a2, a3, b0, b1, b2, b3, e0, e1, e2, e3, f0, f1, f2, f3, t;
    // ROTL(t, r) = {t[W-1-r:0], t[W-1:W-r]}
    always @* begin
        // mu(x): a_i = ROTL(const_i + three words of x, r_i); b = XORs of three a's
        t  = MC0[W-1:0] + x[W-1:0] + x[2*W-1:W] + x[3*W-1:2*W];  a0 = {t[W-1-MR0:0], t[W-1:W-MR0]};
        t  = MC1[W-1:0] + x[W-1:0] + x[2*W-1:W] + x[4*W-1:3*W];  a1 = {t[W-1-MR1:0], t[W-1:W-MR1]};
        t  = MC2[W-1:0] + x[W-1:0] + x[3*W-1:2*W] + x[4*W-1:3*W];  a2 = {t[W-1-MR2:0], t[W-1:W-MR2]};
        t  = MC3[W-1:0] + x[2*W-1:W] + x[3*W-1:2*W] + x[4*W-1:3*W];  a3 = {t[W-1-MR3:0], t[W-1:W-MR3]};
        b0 = a0 ^ a1 ^ a3;  b1 = a0 ^ a1 ^ a2;  b2 = a1 ^ a2 ^ a3;  b3 = a0 ^ a2 ^ a3;
        // nu(y)
        t  = NC0[W-1:0] + y[W-1:0] + y[3*W-1:2*W] + y[4*W-1:3*W];  e0 = {t[W-1-NR0:0], t[W-1:W-NR0]};
        t  = NC1[W-1:0] + y[2*W-1:W] + y[3*W-1:2*W] + y[4*W-1:3*W];  e1 = {t[W-1-NR1:0], t[W-1:W-NR1]};
        t  = NC2[W-1:0] + y[W-1:0] + y[2*W-1:W] + y[3*W-1:2*W];  e2 = {t[W-1-NR2:0], t[W-1:W-NR2]};
        t  = NC3[W-1:0] + y[W-1:0] + y[2*W-1:W] + y[4*W-1:3*W];  e3 = {t[W-1-NR3:0], t[W-1:W-NR3]};
        f0 = e1 ^ e2 ^ e3;  f1 = e0 ^ e2 ^ e3;  f2 = e0 ^ e1 ^ e3;  f3 = e0 ^ e1 ^ e2;
        // sigma: Z = (b1+f1, b2+f2, b3+f3, b0+f0)
        z  = {b0 + f0, b3 + f3, b2 + f2, b1 + f1};
    end
endmodule
