// pi-function core: the 256-bit state register and the permutation pi (R = 3 rounds x 8 * operations),
// one * operation per clock cycle (24 cycles per pi).
//
// The state is a chunk shift register: pos0 = s[63:0] .. pos3 = s[255:192] (word Wn at [16n+15:16n]).
//   E1 step (J_i = J_{i-1} * IS_i, J_{-1} = C1): x = first ? C1 : pos3, y = pos0, s <= {z, pos3, pos2, pos1}
//   E2 step (K_k = J_k * K_{k+1}, K_4 = C2):   x = pos3, y = first ? C2 : pos0, s <= {pos2, pos1, pos0, z}
// After the four E1 steps pos0..pos3 = J0..J3; after the four E2 steps pos0..pos3 = K0..K3 (the new state).
//
// Interface: load (s <= din) and start (begin pi) may be asserted together while !busy; busy is high
// for the 24 cycles of pi; s holds the result from the cycle busy falls until the next load.
module picipher_pi (
    input  wire         clk,
    input  wire         rst,      // synchronous, active high
    input  wire         load,
    input  wire [255:0] din,
    input  wire         start,
    output reg          busy,
    output reg  [255:0] s
);
    reg [4:0] cnt;                       // step 0..23: round = cnt[4:3], phase = cnt[2:0]
    wire       e2    = cnt[2];
    wire       first = (cnt[1:0] == 2'd0);

    reg [63:0] c1, c2;                   // round constants (PI16CIPHER.md, rows r0..r2), word 0 in [15:0]
    always @* begin
        case (cnt[4:3])
            2'd0:    begin c1 = 64'hA6A5_AAA9_B1AC_B4B2; c2 = 64'h938E_9695_9A99_A39C; end
            2'd1:    begin c1 = 64'h716C_7472_8778_8D8B; c2 = 64'h5A59_635C_6665_6A69; end
            default: begin c1 = 64'h473C_4D4B_534E_5655; c2 = 64'h2D2B_332E_3635_3A39; end
        endcase
    end

    wire [63:0] pos0 = s[63:0], pos1 = s[127:64], pos2 = s[191:128], pos3 = s[255:192];
    wire [63:0] x = (!e2 && first) ? c1 : pos3;
    wire [63:0] y = ( e2 && first) ? c2 : pos0;
    wire [63:0] z;

    picipher_arx arx (.x(x), .y(y), .z(z));

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
