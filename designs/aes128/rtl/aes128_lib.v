// AES-128 building blocks (FIPS-197), Verilog-2005.
// 128-bit convention: byte i of a block/key/state = bits [127-8i -: 8] (byte 0 = the first hex
// byte); state byte i = row (i % 4), column (i / 4).

// SubBytes then ShiftRows: y[r, c] = S(s[r, (c + r) mod 4]).
module aes128_subshift(input wire [127:0] s, output wire [127:0] y);
    genvar c, r;
    generate
        for (c = 0; c < 4; c = c + 1) begin : col
            for (r = 0; r < 4; r = r + 1) begin : row
                aes128_sbox sb(.a(s[127 - 8 * (4 * ((c + r) % 4) + r) -: 8]),
                               .y(y[127 - 8 * (4 * c + r) -: 8]));
            end
        end
    endgenerate
endmodule

// MixColumns (FIPS-197 5.1.3).
module aes128_mixcolumns(input wire [127:0] s, output wire [127:0] y);
    function [7:0] xt(input [7:0] b);
        xt = {b[6:0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
    endfunction
    genvar c;
    generate
        for (c = 0; c < 4; c = c + 1) begin : col
            wire [7:0] a0 = s[127 - 32 * c -: 8];
            wire [7:0] a1 = s[119 - 32 * c -: 8];
            wire [7:0] a2 = s[111 - 32 * c -: 8];
            wire [7:0] a3 = s[103 - 32 * c -: 8];
            assign y[127 - 32 * c -: 8] = xt(a0) ^ xt(a1) ^ a1 ^ a2 ^ a3;
            assign y[119 - 32 * c -: 8] = a0 ^ xt(a1) ^ xt(a2) ^ a2 ^ a3;
            assign y[111 - 32 * c -: 8] = a0 ^ a1 ^ xt(a2) ^ xt(a3) ^ a3;
            assign y[103 - 32 * c -: 8] = xt(a0) ^ a0 ^ a1 ^ a2 ^ xt(a3);
        end
    endgenerate
endmodule

// One step of the key expansion (FIPS-197 5.2): round key r-1 -> round key r, rcon = Rcon[r].
module aes128_keystep(input wire [127:0] k, input wire [7:0] rcon, output wire [127:0] y);
    wire [31:0] w0 = k[127:96], w1 = k[95:64], w2 = k[63:32], w3 = k[31:0];
    wire [31:0] t;
    // SubWord(RotWord(w3)): RotWord = bytes (1, 2, 3, 0)
    aes128_sbox s0(.a(w3[23:16]), .y(t[31:24]));
    aes128_sbox s1(.a(w3[15:8]),  .y(t[23:16]));
    aes128_sbox s2(.a(w3[7:0]),   .y(t[15:8]));
    aes128_sbox s3(.a(w3[31:24]), .y(t[7:0]));
    wire [31:0] v0 = w0 ^ t ^ {rcon, 24'h0};
    wire [31:0] v1 = w1 ^ v0;
    wire [31:0] v2 = w2 ^ v1;
    wire [31:0] v3 = w3 ^ v2;
    assign y = {v0, v1, v2, v3};
endmodule

// Rcon[r] for r = 1..10 (FIPS-197 5.2), 0 otherwise.
module aes128_rcon(input wire [3:0] r, output reg [7:0] rcon);
    always @* begin
        case (r)
            4'd1: rcon = 8'h01;  4'd2: rcon = 8'h02;  4'd3: rcon = 8'h04;  4'd4: rcon = 8'h08;
            4'd5: rcon = 8'h10;  4'd6: rcon = 8'h20;  4'd7: rcon = 8'h40;  4'd8: rcon = 8'h80;
            4'd9: rcon = 8'h1b;  4'd10: rcon = 8'h36;
            default: rcon = 8'h00;
        endcase
    end
endmodule
