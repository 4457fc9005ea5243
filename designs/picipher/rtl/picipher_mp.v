// pi-Cipher v2 message processor (no AD, no SMN in hardware; the v2 empty-AD step is processed).
// Top module. W = word size: 16 (pi16-Cipher, KEY_BITS = 96 or 128, 32-bit PMN) or 32 / 64
// (pi32- / pi64-Cipher, KEY_BITS = 128 or 256, 128-bit PMN). LENW is derived from W (bits of a byte
// count 0..W: 5, 6, 7); do not set it. BUFFER_KEY = 0: key_mn is a parameter input used directly;
// BUFFER_KEY = 1: seed-style Key||PMN register buffer loaded while key_load is high.
// Port list and handshake: designs/picipher/README.md.
module picipher_mp #(
    parameter W          = 16,
    parameter KEY_BITS   = 96,
    parameter BUFFER_KEY = 0,
    parameter LENW       = W == 16 ? 5 : W == 32 ? 6 : 7
) (
    input  wire                 clk,
    input  wire                 rst,        // synchronous, active high
    (* PARAM *)
    input  wire [KEY_BITS+(W == 16 ? 32 : 128)-1:0] key_mn,   // Key || PMN, byte 0 of the key in the MSBs
    input  wire                 key_load,   // BUFFER_KEY = 1 only: load key_mn into the buffer
    input  wire                 mode,       // 0 encrypt, 1 decrypt
    input  wire [15:0]          s_data,     // message word: byte 2k in [7:0], byte 2k+1 in [15:8]
    input  wire                 s_valid,
    output wire                 s_ready,
    input  wire                 s_last,     // final word of the message
    input  wire [LENW-1:0]      s_bytes,    // with s_last: bytes in the final block (0..W)
    output wire [15:0]          m_data,     // ciphertext (encrypt) / plaintext (decrypt) word
    output wire                 m_valid,
    input  wire                 m_ready,
    output wire                 m_last,
    output wire [LENW-1:0]      m_bytes,    // with m_last: bytes in the final block
    output wire [8*W-1:0]       tag,        // tag, byte 0 in the MSBs; valid from done to next start
    input  wire [8*W-1:0]       tag_in,     // decrypt: expected tag, stable from s_last until done
    output wire                 done,       // one-cycle pulse at the end of a message
    output wire                 tag_ok      // decrypt: tag matched (valid from done to next start)
);
    wire [16*W-1:0] init_state;

    picipher_kpig #(.W(W), .KEY_BITS(KEY_BITS), .PMN_BITS(W == 16 ? 32 : 128), .BUFFER_KEY(BUFFER_KEY)) kpig (
        .clk(clk), .key_load(key_load), .key_mn(key_mn), .init_state(init_state));

    picipher_core #(.W(W), .LENW(LENW), .HAS_INIT(1)) core (
        .clk(clk), .rst(rst), .init_state(init_state), .cis_p({16*W{1'b0}}), .ctr_p(64'd0),
        .tag_p({8*W{1'b0}}),
        .mode(mode), .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready), .s_last(s_last),
        .s_bytes(s_bytes), .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready), .m_last(m_last),
        .m_bytes(m_bytes), .tag(tag), .tag_in(tag_in), .done(done), .tag_ok(tag_ok));
endmodule
