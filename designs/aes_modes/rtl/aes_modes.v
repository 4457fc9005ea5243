// AES-128-CMAC (NIST SP 800-38B) and AES-128-GCM (NIST SP 800-38D, 96-bit IV) on the iterative
// AES-128 core (aes128_iter, designs/aes128/rtl): 11 cycles per AES block. Verilog-2005.
//
// key: (* PARAM *). KEY_TABLE selects how the key-only values are made:
//   1 (TLUT build): the hash subkey H = E_K(0^128) is the parameter input `hkey` (the design's
//     parameter transform computes it from the key on the host: an AES encryption in the PPC would
//     put ten unrolled rounds between the key and every TLUT entry of the multiplier, too deep for
//     the TLUT proof). The round keys (aes128_iter's KEY_TABLE=1) and the CMAC subkeys
//     K1 = dbl(H), K2 = dbl(K1) (SP 800-38B §6.1: L = E_K(0^128) = H) are a parameter-only cone
//     that leaves the circuit for the PPC. GHASH's multiplier reads H, so its every output bit is
//     the parity of the multiplier input's bits that a row of the matrix of X -> X·H selects: the
//     TLUT mapper takes each row as parameterized XORs.
//   0 (conventional build): after reset (or a key_load pulse while idle) the core encrypts 0^128
//     with the key at the port (11 cycles) and keeps H in a register; K1 and K2 are formed from
//     it; GHASH has the generic multiplier gf128_mul(z, H) (schoolbook); the round keys are stepped on the fly;
//     `hkey` is not read.
//
// Blocks: a 128-bit word is the big-endian integer of its 16 bytes (byte 0 in bits [127:120]).
// Input words (s_valid/s_ready/s_data, with s_bytes = valid bytes 0..16, the first ones; s_type;
// s_last; mode, read on a message's first word):
//   mode 0, CMAC: the message's words (s_type 2), 16 bytes each but the last (s_last; 0..16 bytes;
//     the empty message is one word of 0 bytes). Output: one word, the tag (m_type 3).
//   mode 1, GCM encryption / mode 2, GCM decryption: the IV word first (s_type 0, the 96-bit IV in
//     bits [127:32]), then the additional data (s_type 1), then the payload (s_type 2: plaintext,
//     or ciphertext); only a segment's last word may be short. s_last marks the message's last IV,
//     additional-data or payload word. A decryption then takes the tag word (s_type 3, s_bytes
//     bytes compared, 16 for a full tag). Output: one word per payload word (m_type 2: ciphertext
//     or plaintext, m_bytes as the input word, bytes past m_bytes zero), then the tag (encryption,
//     m_type 3, 16 bytes) or a status word (decryption, m_type 3, m_bytes 0, m_data 0, m_tag_ok:
//     the tag verified). The plaintext of a decryption leaves the core before the tag is checked.
// m_last marks a message's last output word. Lengths: up to 2^32 - 1 bytes of additional data and
// of payload per message.
//
// Timing (no stalls): CMAC 11 cycles per block; GCM: the IV word starts E_K(J0) (11 cycles), then
// the first counter block (11); each payload word takes its keystream block and starts the next:
// 11 cycles per payload block; additional-data words one cycle each; after the last word, the
// length block and the tag take one cycle each.
module aes_modes #(parameter KEY_TABLE = 1) (
    input  wire         clk,
    input  wire         rst,
    (* PARAM *) input wire [127:0] key,
    (* PARAM *) input wire [127:0] hkey,    // KEY_TABLE=1: H = E_K(0^128); KEY_TABLE=0: unused
    input  wire         key_load,       // conventional build: recompute H (core idle); TLUT build: unused
    input  wire [1:0]   mode,
    input  wire         s_valid,
    output reg          s_ready,
    input  wire [127:0] s_data,
    input  wire [4:0]   s_bytes,
    input  wire [1:0]   s_type,
    input  wire         s_last,
    output reg          m_valid,
    input  wire         m_ready,
    output reg  [127:0] m_data,
    output reg  [4:0]   m_bytes,
    output reg  [1:0]   m_type,
    output reg          m_last,
    output reg          m_tag_ok
);
    localparam [1:0] MODE_CMAC = 2'd0, MODE_ENC = 2'd1, MODE_DEC = 2'd2;
    localparam [1:0] T_IV = 2'd0, T_AD = 2'd1, T_DATA = 2'd2, T_TAG = 2'd3;
    localparam [2:0] PH_IDLE = 3'd0, PH_J0 = 3'd1, PH_BODY = 3'd2, PH_LEN = 3'd3, PH_FIN = 3'd4,
                     PH_TAG = 3'd5, PH_CMAC_END = 3'd6;

    // ---------------------------------------------------------------- message state
    reg  [2:0]   ph;
    reg  [1:0]   mode_r;
    reg          last_r;        // the IV word was the message's last word (no AD, no payload)
    reg  [95:0]  iv;
    reg  [31:0]  ctr;           // next counter block's 32-bit count (inc32)
    reg  [127:0] ej0;           // E_K(J0)
    reg  [31:0]  len_a, len_c;  // bytes of additional data and of payload

    // ---------------------------------------------------------------- AES-128 core
    reg          a_in_valid, a_out_ready;
    reg  [127:0] a_in;
    wire         a_in_ready, a_out_valid;
    wire [127:0] a_out;
    aes128_iter #(.KEY_TABLE(KEY_TABLE)) aes(
        .clk(clk), .rst(rst), .key(key), .s_valid(a_in_valid), .s_ready(a_in_ready), .s_data(a_in),
        .m_valid(a_out_valid), .m_ready(a_out_ready), .m_data(a_out));

    // ---------------------------------------------------------------- key-only values
    wire [127:0] h;             // hash subkey H = E_K(0^128) = CMAC's L
    wire         h_ok;          // H is known
    reg          h_busy;        // conventional: E_K(0) in the AES core
    generate
        if (KEY_TABLE) begin : kt
            assign h = hkey;
            assign h_ok = 1'b1;
        end else begin : otf
            reg [127:0] h_r;
            reg         h_valid;
            assign h = h_r;
            assign h_ok = h_valid;
            always @(posedge clk)
                if (rst || (key_load && ph == PH_IDLE && !h_busy)) h_valid <= 1'b0;
                else if (h_busy && a_out_valid) begin
                    h_r <= a_out;
                    h_valid <= 1'b1;
                end
        end
    endgenerate
    // dbl() of SP 800-38B §6.1: shift left, XOR R_128 = 0x87 if the MSB was set
    wire [127:0] k1 = {h[126:0], 1'b0} ^ (h[127] ? 128'h87 : 128'h0);
    wire [127:0] k2 = {k1[126:0], 1'b0} ^ (k1[127] ? 128'h87 : 128'h0);

    // ---------------------------------------------------------------- GHASH: z <- z·H ^ d
    // With z = Y_{i-1} ^ X_i, z·H ^ X_{i+1} = Y_i ^ X_{i+1} (SP 800-38D §6.4); the tag is
    // Y_n ^ E_K(J0), the same step with d = E_K(J0).
    reg  [127:0] z;
    wire [127:0] zh;
    generate
        if (KEY_TABLE) begin : mh
            gf128_mulh mul(.x(z), .y(h), .z(zh));      // rows of the matrix of X -> X·H: TLUTs
        end else begin : mg
            gf128_mul mul(.x(z), .y(h), .z(zh));       // the generic multiplier
        end
    endgenerate


    wire out_free = !m_valid || m_ready;
    // word mask: bytes 0 .. s_bytes-1; CMAC padding 10* at byte s_bytes (SP 800-38B §6.2 step 3)
    wire [127:0] mask, pad;
    genvar b;
    generate
        for (b = 0; b < 16; b = b + 1) begin : byt
            assign mask[127 - 8 * b -: 8] = {8{s_bytes > b}};
            assign pad[127 - 8 * b -: 8] = s_bytes == b ? 8'h80 : 8'h00;
        end
    endgenerate
    wire [127:0] word = s_data & mask;
    wire         full = s_bytes[4];
    wire [127:0] cmac_in = word ^ (s_last ? (full ? k1 : (pad ^ k2)) : 128'd0);
    wire [127:0] stream = word ^ (a_out & mask);      // GCTR: payload XOR keystream
    wire         can_start = h_ok && !h_busy && a_in_ready && !a_out_valid;

    // combinational handshakes and the AES input
    always @* begin
        s_ready = 1'b0;
        a_in_valid = 1'b0;
        a_in = 128'd0;
        a_out_ready = 1'b0;
        case (ph)
            PH_IDLE: begin
                a_out_ready = 1'b1;         // H (conventional), or a stray keystream block: dropped
                s_ready = can_start;
                if (!h_ok) begin
                    a_in_valid = !h_busy;   // conventional build: E_K(0^128) -> H
                end else begin
                    a_in = mode == MODE_CMAC ? cmac_in : {s_data[127:32], 32'd1};   // J0 = IV || 0^31 || 1
                    a_in_valid = s_valid && can_start;
                end
            end
            PH_J0: begin
                a_out_ready = 1'b1;
                a_in = {iv, ctr};
                a_in_valid = a_out_valid && !last_r;
            end
            PH_BODY: begin
                if (mode_r == MODE_CMAC) begin
                    s_ready = a_out_valid;
                    a_in = a_out ^ cmac_in;
                    a_in_valid = s_valid && a_out_valid;
                    a_out_ready = s_valid;
                end else begin
                    s_ready = s_type == T_AD || (a_out_valid && out_free);
                    a_in = {iv, ctr};
                    if (s_type == T_DATA) begin
                        a_out_ready = s_valid && out_free;
                        a_in_valid = s_valid && a_out_valid && out_free && !s_last;
                    end
                end
            end
            PH_CMAC_END: a_out_ready = out_free;
            default: begin                                       // PH_LEN, PH_FIN, PH_TAG
                a_out_ready = 1'b1;
                s_ready = ph == PH_TAG && mode_r == MODE_DEC && out_free;
            end
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            ph <= PH_IDLE;
            m_valid <= 1'b0;
            h_busy <= 1'b0;
        end else begin
            if (m_valid && m_ready) m_valid <= 1'b0;
            case (ph)
                PH_IDLE: begin
                    if (!KEY_TABLE) begin
                        if (!h_ok && !h_busy && a_in_ready) h_busy <= 1'b1;
                        else if (h_busy && a_out_valid) h_busy <= 1'b0;
                    end
                    if (s_valid && can_start) begin
                        mode_r <= mode;
                        if (mode == MODE_CMAC) begin
                            ph <= s_last ? PH_CMAC_END : PH_BODY;
                        end else begin
                            iv <= s_data[127:32];
                            ctr <= 32'd2;
                            z <= 128'd0;
                            len_a <= 32'd0;
                            len_c <= 32'd0;
                            last_r <= s_last;
                            ph <= PH_J0;
                        end
                    end
                end
                PH_J0:
                    if (a_out_valid) begin
                        ej0 <= a_out;
                        if (!last_r) ctr <= ctr + 32'd1;
                        ph <= last_r ? PH_LEN : PH_BODY;
                    end
                PH_BODY:
                    if (s_valid && s_ready) begin
                        if (mode_r == MODE_CMAC) begin
                            if (s_last) ph <= PH_CMAC_END;
                        end else begin
                            if (s_type == T_AD) begin
                                z <= zh ^ word;
                                len_a <= len_a + {27'd0, s_bytes};
                            end else begin
                                z <= zh ^ (mode_r == MODE_ENC ? stream : word);
                                len_c <= len_c + {27'd0, s_bytes};
                                ctr <= ctr + 32'd1;
                                m_valid <= 1'b1;
                                m_data <= stream;
                                m_bytes <= s_bytes;
                                m_type <= T_DATA;
                                m_last <= 1'b0;
                                m_tag_ok <= 1'b0;
                            end
                            if (s_last) ph <= PH_LEN;
                        end
                    end
                PH_LEN: begin
                    // len(A) || len(C) in bits, 64 bits each (SP 800-38D §7.1 step 5)
                    z <= zh ^ {29'd0, len_a, 3'd0, 29'd0, len_c, 3'd0};
                    ph <= PH_FIN;
                end
                PH_FIN: begin
                    z <= zh ^ ej0;
                    ph <= PH_TAG;
                end
                PH_TAG:
                    if (out_free && (mode_r == MODE_ENC || s_valid)) begin
                        m_valid <= 1'b1;
                        m_type <= T_TAG;
                        m_last <= 1'b1;
                        if (mode_r == MODE_ENC) begin
                            m_data <= z;
                            m_bytes <= 5'd16;
                            m_tag_ok <= 1'b0;
                        end else begin
                            m_data <= 128'd0;
                            m_bytes <= 5'd0;
                            m_tag_ok <= ((z ^ s_data) & mask) == 128'd0;
                        end
                        ph <= PH_IDLE;
                    end
                PH_CMAC_END:
                    if (a_out_valid && out_free) begin
                        m_valid <= 1'b1;
                        m_data <= a_out;
                        m_bytes <= 5'd16;
                        m_type <= T_TAG;
                        m_last <= 1'b1;
                        m_tag_ok <= 1'b0;
                        ph <= PH_IDLE;
                    end
                default: ph <= PH_IDLE;
            endcase
        end
    end
endmodule
