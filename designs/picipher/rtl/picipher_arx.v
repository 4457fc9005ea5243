// ARX engine of the pi16-Cipher message processor: one * operation, purely combinational.
//   z = x * y = sigma(mu(x), nu(y)) on chunks of four 16-bit words (word k at bits [16k+15:16k]).
// Source: PI16CIPHER.md ("The * operation"), pi-Cipher v2 specification.
module picipher_arx (
    input  wire [63:0] x,
    input  wire [63:0] y,
    output wire [63:0] z
);
    wire [15:0] x0 = x[15:0], x1 = x[31:16], x2 = x[47:32], x3 = x[63:48];
    wire [15:0] y0 = y[15:0], y1 = y[31:16], y2 = y[47:32], y3 = y[63:48];

    // mu
    wire [15:0] sa0 = 16'hF0E8 + x0 + x1 + x2;
    wire [15:0] sa1 = 16'hE4E2 + x0 + x1 + x3;
    wire [15:0] sa2 = 16'hE1D8 + x0 + x2 + x3;
    wire [15:0] sa3 = 16'hD4D2 + x1 + x2 + x3;
    wire [15:0] a0 = {sa0[14:0], sa0[15]};      // ROTL 1
    wire [15:0] a1 = {sa1[11:0], sa1[15:12]};   // ROTL 4
    wire [15:0] a2 = {sa2[6:0],  sa2[15:7]};    // ROTL 9
    wire [15:0] a3 = {sa3[4:0],  sa3[15:5]};    // ROTL 11
    wire [15:0] b0 = a0 ^ a1 ^ a3;
    wire [15:0] b1 = a0 ^ a1 ^ a2;
    wire [15:0] b2 = a1 ^ a2 ^ a3;
    wire [15:0] b3 = a0 ^ a2 ^ a3;

    // nu
    wire [15:0] se0 = 16'hD1CC + y0 + y2 + y3;
    wire [15:0] se1 = 16'hCAC9 + y1 + y2 + y3;
    wire [15:0] se2 = 16'hC6C5 + y0 + y1 + y2;
    wire [15:0] se3 = 16'hC3B8 + y0 + y1 + y3;
    wire [15:0] e0 = {se0[13:0], se0[15:14]};   // ROTL 2
    wire [15:0] e1 = {se1[10:0], se1[15:11]};   // ROTL 5
    wire [15:0] e2 = {se2[8:0],  se2[15:9]};    // ROTL 7
    wire [15:0] e3 = {se3[2:0],  se3[15:3]};    // ROTL 13
    wire [15:0] f0 = e1 ^ e2 ^ e3;
    wire [15:0] f1 = e0 ^ e2 ^ e3;
    wire [15:0] f2 = e0 ^ e1 ^ e3;
    wire [15:0] f3 = e0 ^ e1 ^ e2;

    // sigma: Z = (b1+f1, b2+f2, b3+f3, b0+f0)
    assign z = {b0 + f0, b3 + f3, b2 + f2, b1 + f1};
endmodule
