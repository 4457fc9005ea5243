// pi-function core: the 16W-bit state register and the permutation pi (R = 3 rounds x 8 * operations),
// one * operation per clock cycle (24 cycles per pi). W = 16, 32 or 64 (word size).
//
// The state is a chunk shift register of 4W-bit chunks: pos0 = s[4W-1:0] .. pos3 = s[16W-1:12W]
// (word Wn at [Wn+W-1:Wn]).
//   E1 step (J_i = J_{i-1} * IS_i, J_{-1} = C1): x = first ? C1 : pos3, y = pos0, s <= {z, pos3, pos2, pos1}
//   E2 step (K_k = J_k * K_{k+1}, K_4 = C2):   x = pos3, y = first ? C2 : pos0, s <= {pos2, pos1, pos0, z}
// After the four E1 steps pos0..pos3 = J0..J3; after the four E2 steps pos0..pos3 = K0..K3 (the new state).
//
// Interface: load (s <= din) and start (begin pi) may be asserted together while !busy; busy is high
// for the 24 cycles of pi; s holds the result from the cycle busy falls until the next load.
module picipher_pi #(
    parameter W = 16
) (
    input  wire          clk,
    input  wire          rst,      // synchronous, active high
    input  wire          load,
    input  wire [16*W-1:0] din,
    input  wire          start,
    output reg           busy,
    output reg  [16*W-1:0] s
);
    localparam CW = 4 * W;               // bits of a chunk
    reg [4:0] cnt;                       // step 0..23: round = cnt[4:3], phase = cnt[2:0]
    wire       e2    = cnt[2];
    wire       first = (cnt[1:0] == 2'd0);

    // Round constants C1, C2 of rounds 0..2, word 0 in the low bits (PI16CIPHER.md rows r0..r2 for
    // W = 16; PI_CONST of the reference's pi32/pi64 parameter headers, cited in model.py).
    localparam [255:0] R0C1 = W == 16 ? 256'hA6A5_AAA9_B1AC_B4B2 : W == 32 ? 256'h635C5A59_6A696665_7472716C_8D8B8778
                              : 256'hB1ACAAA9A6A5A39C_CAC9C6C5C3B8B4B2_E4E2E1D8D4D2D1CC_271E1D1B170FF0E8;
    localparam [255:0] R0C2 = W == 16 ? 256'h938E_9695_9A99_A39C : W == 32 ? 256'h332E2D2B_3A393635_4D4B473C_5655534E
                              : 256'h534E4D4B473C3A39_6665635C5A595655_87787472716C6A69_9A999695938E8D8B;
    localparam [255:0] R1C1 = W == 16 ? 256'h716C_7472_8778_8D8B : W == 32 ? 256'hD4D2D1CC_E4E2E1D8_170FF0E8_271E1D1B
                              : 256'hC6C5C3B8B4B2B1AC_E1D8D4D2D1CCCAC9_1D1B170FF0E8E4E2_3635332E2D2B271E;
    localparam [255:0] R1C2 = W == 16 ? 256'h5A59_635C_6665_6A69 : W == 32 ? 256'hA6A5A39C_B1ACAAA9_C3B8B4B2_CAC9C6C5
                              : 256'h635C5A595655534E_7472716C6A696665_9695938E8D8B8778_AAA9A6A5A39C9A99;
    localparam [255:0] R2C1 = W == 16 ? 256'h473C_4D4B_534E_5655 : W == 32 ? 256'h716C6A69_87787472_938E8D8B_9A999695
                              : 256'hD4D2D1CCCAC9C6C5_170FF0E8E4E2E1D8_332E2D2B271E1D1B_4D4B473C3A393635;
    localparam [255:0] R2C2 = W == 16 ? 256'h2D2B_332E_3635_3A39 : W == 32 ? 256'h473C3A39_534E4D4B_5A595655_6665635C
                              : 256'h716C6A696665635C_938E8D8B87787472_A6A5A39C9A999695_C3B8B4B2B1ACAAA9;

    reg [CW-1:0] c1, c2;
    always @* begin
        case (cnt[4:3])
            2'd0:    begin c1 = R0C1[CW-1:0]; c2 = R0C2[CW-1:0]; end
            2'd1:    begin c1 = R1C1[CW-1:0]; c2 = R1C2[CW-1:0]; end
            default: begin c1 = R2C1[CW-1:0]; c2 = R2C2[CW-1:0]; end
        endcase
    end

    wire [CW-1:0] pos0 = s[CW-1:0], pos1 = s[2*CW-1:CW], pos2 = s[3*CW-1:2*CW], pos3 = s[4*CW-1:3*CW];
    wire [CW-1:0] x = (!e2 && first) ? c1 : pos3;
    wire [CW-1:0] y = ( e2 && first) ? c2 : pos0;
    wire [CW-1:0] z;

    picipher_arx #(.W(W)) arx (.x(x), .y(y), .z(z));

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
            cnt  <= 5'd0;
        end else if (!busy) begin
            if (start) begin
                busy <= 1'b1;
                cnt  <= 5'd0;
            end
        end else begin
            cnt <= cnt + 5'd1;
            if (cnt == 5'd23) busy <= 1'b0;
        end
    end

    always @(posedge clk) begin
        if (!busy) begin
            if (load) s <= din;
        end else if (!e2) begin
            s <= {z, pos3, pos2, pos1};
        end else begin
            s <= {pos2, pos1, pos0, z};
        end
    end
endmodule
