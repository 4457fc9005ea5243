// ALU: builds the value loaded into the pi state, and the output block.
//   op 0 INIT: init_state (from KPIG)
//   op 1 CTR : counter injection: CIS with W0..W3 ^= the 16-bit words of ctr (least significant first)
//   op 2 MSG : rate of s XOR block (encrypt) / rate := ciphertext (decrypt), with v2 padding at byte len
//   op 3 UPD : CIS update after AD: CIS with its rate XORed with the tag accumulator T
// The rate is W0..W3 (bytes 0-7) and W8..W11 (bytes 8-15); byte i of a block is at [8i+7:8i].
// blk: the block's bytes (only the first len are used), len: 0..16 real bytes, dec: decrypt.
// out: ciphertext (encrypt) or plaintext (decrypt); bytes >= len are zero.
// HAS_INIT = 0 removes INIT and UPD (the picipher_cis_mp variant computes them off-chip).
module picipher_alu #(
    parameter HAS_INIT = 1
) (
    input  wire [1:0]   op,
    input  wire [255:0] s,
    input  wire [255:0] cis,
    input  wire [255:0] init_state,
    input  wire [63:0]  ctr,
    input  wire [127:0] tag,
    input  wire [127:0] blk,
    input  wire [4:0]   len,
    input  wire         dec,
    output reg  [255:0] dout,
    output wire [127:0] out
);
    /* verilator lint_off UNUSEDPARAM */
    localparam OP_INIT = 2'd0, OP_CTR = 2'd1, OP_MSG = 2'd2, OP_UPD = 2'd3;   // OP_INIT: the default
    /* verilator lint_on UNUSEDPARAM */

    wire [127:0] ks = {s[191:128], s[63:0]};     // rate (keystream)
    wire [127:0] new_rate;

    // byte masks from len: m = bytes < len (message bytes), p = 0x01 in byte len (v2 padding)
    wire [127:0] m    = ~({128{1'b1}} << {len, 3'b000});
    wire [127:0] pbit = {127'd0, 1'b1} << {len, 3'b000};
    wire [127:0] b    = blk & m;
    assign new_rate = dec ? (b | (~m & (ks ^ pbit))) : (ks ^ b ^ pbit);
    assign out      = (ks & m) ^ b;

    always @* begin
        case (op)
            OP_CTR:  dout = {cis[255:64], cis[63:0] ^ ctr};
            OP_MSG:  dout = {s[255:192], new_rate[127:64], s[127:64], new_rate[63:0]};
            OP_UPD:  dout = HAS_INIT ? {cis[255:192], cis[191:128] ^ tag[127:64], cis[127:64], cis[63:0] ^ tag[63:0]}
                                     : 256'd0;
            default: dout = HAS_INIT ? init_state : 256'd0;
        endcase
    end
endmodule
