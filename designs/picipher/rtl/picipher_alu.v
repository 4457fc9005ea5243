// ALU: builds the value loaded into the pi state, and the output block. W = word size (16/32/64);
// a block (the rate) is 8 words = W bytes; LENW = bits of a byte count 0..W.
//   op 0 INIT: init_state (from KPIG)
//   op 1 CTR : counter injection: CIS with the 64 bits of W0.. ^= ctr (W-bit words, least significant first)
//   op 2 MSG : rate of s XOR block (encrypt) / rate := ciphertext (decrypt), with v2 padding at byte len
//   op 3 UPD : CIS update after AD: CIS with its rate XORed with the tag accumulator T
// The rate is W0..W3 (block bytes 0..W/2-1) and W8..W11 (bytes W/2..W-1); byte i of a block is at [8i+7:8i].
// blk: the block's bytes (only the first len are used), len: 0..W real bytes, dec: decrypt.
// out: ciphertext (encrypt) or plaintext (decrypt); bytes >= len are zero.
// HAS_INIT = 0 removes INIT and UPD (the picipher_cis_mp variant computes them off-chip).
module picipher_alu #(
    parameter W        = 16,
    parameter LENW     = 5,
    parameter HAS_INIT = 1
) (
    input  wire [1:0]      op,
    input  wire [16*W-1:0] s,
    input  wire [16*W-1:0] cis,
    input  wire [16*W-1:0] init_state,
    input  wire [63:0]     ctr,
    input  wire [8*W-1:0]  tag,
    input  wire [8*W-1:0]  blk,
    input  wire [LENW-1:0] len,
    input  wire            dec,
    output reg  [16*W-1:0] dout,
    output wire [8*W-1:0]  out
);
    /* verilator lint_off UNUSEDPARAM */
    localparam OP_INIT = 2'd0, OP_CTR = 2'd1, OP_MSG = 2'd2, OP_UPD = 2'd3;   // OP_INIT: the default
    /* verilator lint_on UNUSEDPARAM */
    localparam RW = 8 * W, CW = 4 * W;   // bits of the rate, of a chunk

    wire [RW-1:0] ks = {s[3*CW-1:2*CW], s[CW-1:0]};     // rate (keystream)
    wire [RW-1:0] new_rate;

    // byte masks from len: m = bytes < len (message bytes), p = 0x01 in byte len (v2 padding)
    wire [RW-1:0] m    = ~({RW{1'b1}} << {len, 3'b000});
    wire [RW-1:0] pbit = {{(RW-1){1'b0}}, 1'b1} << {len, 3'b000};
    wire [RW-1:0] b    = blk & m;
    assign new_rate = dec ? (b | (~m & (ks ^ pbit))) : (ks ^ b ^ pbit);
    assign out      = (ks & m) ^ b;

    always @* begin
        case (op)
            OP_CTR:  dout = {cis[16*W-1:64], cis[63:0] ^ ctr};
            OP_MSG:  dout = {s[4*CW-1:3*CW], new_rate[RW-1:CW], s[2*CW-1:CW], new_rate[CW-1:0]};
            OP_UPD:  dout = HAS_INIT ? {cis[4*CW-1:3*CW], cis[3*CW-1:2*CW] ^ tag[RW-1:CW], cis[2*CW-1:CW],
                                        cis[CW-1:0] ^ tag[CW-1:0]}
                                     : {16*W{1'b0}};
            default: dout = HAS_INIT ? init_state : {16*W{1'b0}};
        endcase
    end
endmodule
