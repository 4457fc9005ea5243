// ARX engine of the pi16-Cipher message processor: one * operation, purely combinational.
//   z = x * y = sigma(mu(x), nu(y)) on chunks of four 16-bit words (word k at bits [16k+15:16k]).
// Source: PI16CIPHER.md ("The * operation"), pi-Cipher v2 specification.
// Written as one combinational always block (synthesizes to the same adders/XORs as continuous
// assignments; Icarus evaluates it about twice as fast).
module picipher_arx (
    input  wire [63:0] x,
    input  wire [63:0] y,
    output reg  [63:0] z
);
    reg [15:0] a0, a1, a2, a3, b0, b1, b2, b3, e0, e1, e2, e3, f0, f1, f2, f3, t;
    always @* begin
        // mu(x): a_i = ROTL(const_i + three words of x, r_i); b = XORs of three a's
        t  = 16'hF0E8 + x[15:0]  + x[31:16] + x[47:32];  a0 = {t[14:0], t[15]};     // ROTL 1
        t  = 16'hE4E2 + x[15:0]  + x[31:16] + x[63:48];  a1 = {t[11:0], t[15:12]};  // ROTL 4
        t  = 16'hE1D8 + x[15:0]  + x[47:32] + x[63:48];  a2 = {t[6:0],  t[15:7]};   // ROTL 9
        t  = 16'hD4D2 + x[31:16] + x[47:32] + x[63:48];  a3 = {t[4:0],  t[15:5]};   // ROTL 11
        b0 = a0 ^ a1 ^ a3;  b1 = a0 ^ a1 ^ a2;  b2 = a1 ^ a2 ^ a3;  b3 = a0 ^ a2 ^ a3;
        // nu(y)
        t  = 16'hD1CC + y[15:0]  + y[47:32] + y[63:48];  e0 = {t[13:0], t[15:14]};  // ROTL 2
        t  = 16'hCAC9 + y[31:16] + y[47:32] + y[63:48];  e1 = {t[10:0], t[15:11]};  // ROTL 5
        t  = 16'hC6C5 + y[15:0]  + y[31:16] + y[47:32];  e2 = {t[8:0],  t[15:9]};   // ROTL 7
        t  = 16'hC3B8 + y[15:0]  + y[31:16] + y[63:48];  e3 = {t[2:0],  t[15:3]};   // ROTL 13
        f0 = e1 ^ e2 ^ e3;  f1 = e0 ^ e2 ^ e3;  f2 = e0 ^ e1 ^ e3;  f3 = e0 ^ e1 ^ e2;
        // sigma: Z = (b1+f1, b2+f2, b3+f3, b0+f0)
        z  = {b0 + f0, b3 + f3, b2 + f2, b1 + f1};
    end
endmodule
