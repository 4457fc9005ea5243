// AES-128 encryption, one round per clock: 11 cycles per block (load + 10 rounds).
//
// Streaming: s_valid/s_ready/s_data in, m_valid/m_ready/m_data out; one block at a time (s_ready
// while idle). key: (* PARAM *). KEY_TABLE selects the key schedule:
//   0: on the fly, one round-key register stepped each round (the conventional core);
//   1: the 11 round keys as a function of the key alone, selected by the round counter (a
//      parameter-only cone: with the key as a parameter it disappears into the PPC and
//      AddRoundKey becomes a TLUT of the state bit and the round counter).
// The state register holds the state before AddRoundKey of round `round`.
module aes128_iter #(parameter KEY_TABLE = 1) (
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
    reg [127:0] st;
    reg [3:0]   round;        // round key to add next (0..9)
    reg         busy;
    assign s_ready = !busy;
    wire out_free = !m_valid || m_ready;
    wire last = round == 4'd9;

    wire [127:0] rkey;        // round key `round`
    wire [127:0] rkey_next;   // round key `round` + 1
    wire [7:0]   rcon;
    aes128_rcon rc(.r(round + 4'd1), .rcon(rcon));

    generate
        if (KEY_TABLE) begin : ktable
            wire [1407:0] k;        // round key r = bits [128*r +: 128]
            assign k[127:0] = key;
            genvar r;
            for (r = 1; r <= 10; r = r + 1) begin : step
                aes128_keystep ks(.k(k[128 * (r - 1) +: 128]),
                                  .rcon(r == 9 ? 8'h1b : r == 10 ? 8'h36 : 8'h01 << (r - 1)),
                                  .y(k[128 * r +: 128]));
            end
            assign rkey = k[128 * round +: 128];
            assign rkey_next = k[128 * (round + 4'd1) +: 128];
        end else begin : onthefly
            reg [127:0] rk;
            aes128_keystep ks(.k(rk), .rcon(rcon), .y(rkey_next));
            assign rkey = rk;
            always @(posedge clk)
                if (!busy) rk <= key;
                else if (!last) rk <= rkey_next;
        end
    endgenerate

    wire [127:0] sr, mc;
    aes128_subshift ss(.s(st ^ rkey), .y(sr));
    aes128_mixcolumns mx(.s(sr), .y(mc));


    always @(posedge clk) begin
        if (!busy) begin
            st <= s_data;
        end else if (!last) begin
            st <= mc;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
            round <= 4'd0;
            m_valid <= 1'b0;
        end else begin
            if (m_valid && m_ready) m_valid <= 1'b0;
            if (!busy) begin
                if (s_valid) begin
                    busy <= 1'b1;
                    round <= 4'd0;
                end
            end else if (!last) begin
                round <= round + 4'd1;
            end else if (out_free) begin
                m_valid <= 1'b1;
                busy <= 1'b0;
                round <= 4'd0;
            end
        end
    end

    always @(posedge clk)
        if (busy && last && out_free) m_data <= sr ^ rkey_next;
endmodule
