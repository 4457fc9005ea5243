// AES-128 encryption, 10 unrolled rounds, one 128-bit block per clock (latency 11 cycles).
//
// Streaming: s_valid/s_ready/s_data in (plaintext), m_valid/m_ready/m_data out (ciphertext); the
// whole pipeline advances when the output register is empty or read (en = !m_valid | m_ready), so
// s_ready = en. key: (* PARAM *) — the parameter input of the TLUT build. The key expansion runs
// on the fly, pipelined alongside the data: stage r holds the state before AddRoundKey r and round
// key r, so every block is encrypted with the key present when it entered. With the key as a
// parameter the round-key registers hold parameter-only values, the front end folds them and the
// whole key expansion becomes a parameter-only cone (the PPC); each AddRoundKey then sits at the
// input of the next round's S-boxes, inside their TLUTs.
module aes128_pipe (
    input  wire         clk,
    input  wire         rst,
    (* PARAM *) input wire [127:0] key,
    input  wire         s_valid,
    output wire         s_ready,
    input  wire [127:0] s_data,
    output reg          m_valid,
    input  wire         m_ready,
    output reg  [127:0] m_data
);
    wire en = !m_valid || m_ready;
    assign s_ready = en;

    // stage r (0..9) = bits [128*r +: 128]
    reg  [1279:0] st;         // state before AddRoundKey r
    reg  [1279:0] rk;         // round key r
    reg  [9:0]    v;
    wire [1279:0] nk;         // [128*(r-1) +: 128]: round key r computed from round key r-1 (r = 1..10)
    wire [1279:0] sr;         // [128*(r-1) +: 128]: SubBytes + ShiftRows of round r

    genvar r;
    generate
        for (r = 1; r <= 10; r = r + 1) begin : round
            aes128_keystep ks(.k(rk[128 * (r - 1) +: 128]),
                              .rcon(r == 9 ? 8'h1b : r == 10 ? 8'h36 : 8'h01 << (r - 1)),
                              .y(nk[128 * (r - 1) +: 128]));
            aes128_subshift ss(.s(st[128 * (r - 1) +: 128] ^ rk[128 * (r - 1) +: 128]),
                               .y(sr[128 * (r - 1) +: 128]));
            if (r < 10) begin : mix
                wire [127:0] mc;
                aes128_mixcolumns mx(.s(sr[128 * (r - 1) +: 128]), .y(mc));
                always @(posedge clk)
                    if (en) begin
                        st[128 * r +: 128] <= mc;
                        rk[128 * r +: 128] <= nk[128 * (r - 1) +: 128];
                    end
            end
        end
    endgenerate

    always @(posedge clk) begin
        if (en) begin
            st[127:0] <= s_data;
            rk[127:0] <= key;
            m_data <= sr[1279:1152] ^ nk[1279:1152];
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            v <= 10'd0;
            m_valid <= 1'b0;
        end else if (en) begin
            v <= {v[8:0], s_valid};
            m_valid <= v[9];
        end
    end
endmodule
