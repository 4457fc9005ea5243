// Keccak sponge core: SHA3-256 and SHAKE128 with padding in hardware, one Keccak-p[1600] round per
// clock (after the high-speed core of Yalla, Homsirikamol, Kaps, DIAC 2014). Verilog-2005,
// synthesizable; needs keccak_round.v. Ports, protocol and timing: designs/keccak/README.md.
//
// Timing: the next block's words fill a block buffer while the permutation runs; the buffer is
// absorbed in the permutation's first round: 24 cycles per block (12 with rounds12, then bounded by
// the 17/21 word transfers).
//
// Words: 64 bits = one lane; byte k of a word (bits [8k +: 8]) is message byte 8j+k of word j
// (FIPS 202 little-endian lanes). Word j of a block is XORed into lane j (lane index x+5y).
//
// Input (AXI-Stream-like): s_valid/s_ready/s_data, s_last on the message's final word, s_bytes
// = valid bytes of that final word (0..8: the empty message is one word with s_bytes 0; a message
// of 8k bytes ends with a full word, s_bytes 8, or equivalently with an extra word, s_bytes 0).
// Bytes at and above s_bytes are ignored; s_bytes of other words is ignored (8). mode / rounds12 / out_len are sampled at a message's first input
// transfer and held by the core until its last output transfer.
// Output: m_valid/m_ready/m_data, m_last on the final word, m_bytes = valid bytes of the word
// (8, or out_len mod 8 on the final word; bytes above are state bytes, not zero).
module keccak_core (
    input  wire        clk,
    input  wire        rst,        // synchronous, active high: empty state, ready for a message
    input  wire [1:0]  mode,       // 0 SHA3-256, 1 SHAKE128 (2 KMAC128, 3 Lake Keyak: reserved)
    input  wire        rounds12,   // 0: Keccak-f[1600] (24 rounds); 1: Keccak-p[1600, 12]
    input  wire [15:0] out_len,    // SHAKE128 output length in bytes (SHA3-256: always 32)
    input  wire        s_valid,
    output wire        s_ready,
    input  wire [63:0] s_data,
    input  wire        s_last,
    input  wire [3:0]  s_bytes,
    output wire        m_valid,
    input  wire        m_ready,
    output wire [63:0] m_data,
    output wire        m_last,
    output wire [3:0]  m_bytes,
    output wire        busy        // a message is being absorbed, permuted or squeezed
);
    localparam MODE_SHA3_256 = 2'd0, MODE_SHAKE128 = 2'd1;
    // permutation engine (KMAC will add a prefix-block step before the message, Keyak a duplex state)
    localparam E_IDLE = 2'd0, E_PERM = 2'd1, E_SQUEEZE = 2'd2;

    // --- message configuration -------------------------------------------------------------------
    reg           started;        // first word of the message taken: configuration latched
    reg  [1:0]    mode_r;
    reg           r12_r;
    wire [1:0]  mode_e = started ? mode_r : mode;       // in force: the inputs at the first transfer,
    wire        r12_e  = started ? r12_r : rounds12;    // then the latched copy
    wire        shake  = (mode_e == MODE_SHAKE128);
    wire [4:0]  rate_lanes = shake ? 5'd21 : 5'd17;        // 1344 / 1088 bits
    wire [7:0]  dsuffix = shake ? 8'h1F : 8'h06;           // M||1111 + first pad bit / M||01 + first pad bit
    wire [4:0]  first_round = r12_e ? 5'd12 : 5'd0;

    // --- input side: words fill the block buffer B (lane j of the block at [64*j +: 64]) ---------
    reg  [1343:0] B;
    reg           bfull;          // B holds a complete (padded if final) block for the engine
    reg           blast;          // ... and it is the message's final block
    reg           pad_pending;    // the message filled its final block: a padding-only block follows
    reg           in_done;        // the final word was taken
    reg  [4:0]    wi;             // lane of the next input word

    wire [3:0]  nb = !s_last ? 4'd8 : (s_bytes > 4'd8 ? 4'd8 : s_bytes);
    wire [63:0] dmask = nb[3] ? {64{1'b1}} : ((64'd1 << {nb[2:0], 3'b000}) - 64'd1);
    wire [4:0]  pad_lane = wi + {4'd0, nb[3]};             // a full final word: padding in the next lane
    wire        pad_fits = (pad_lane != rate_lanes);       // else the padding needs a block of its own

    assign s_ready = !bfull && !in_done;
    wire xfer_in = s_valid && s_ready;

    // the word (masked to its bytes) and, on the final word, pad10*1 with the domain bits
    reg  [1343:0] X;
    // padding-only block: domain byte at byte 0, 0x80 in the last byte of the rate
    reg  [1343:0] P;
    integer i;
    always @* begin
        X = {1344{1'b0}};
        P = {1344{1'b0}};
        P[7:0] = dsuffix;
        for (i = 0; i < 21; i = i + 1) begin
            if (wi == i)
                X[64*i +: 64] = X[64*i +: 64] ^ (s_data & dmask);
            if (s_last && pad_fits && pad_lane == i)
                X[64*i +: 64] = X[64*i +: 64] ^ ({56'd0, dsuffix} << {nb[2:0], 3'b000});
            if (s_last && pad_fits && rate_lanes == i + 1)
                X[64*i + 56 +: 8] = X[64*i + 56 +: 8] ^ 8'h80;   // last pad bit: bit 7 of the block's last byte
            if (rate_lanes == i + 1)
                P[64*i + 56 +: 8] = P[64*i + 56 +: 8] ^ 8'h80;
        end
    end

    // --- permutation engine and output side ------------------------------------------------------
    reg  [1:0]    eng;
    reg  [1599:0] S;              // the Keccak state (lane (x, y) at [64*(x+5y) +: 64])
    reg  [4:0]    rnd;            // round index ir (24 rounds: 0..23, 12 rounds: 12..23)
    reg           final_r;        // the running permutation is the one after the final block
    reg  [4:0]    wo;             // lane of the next output word
    reg  [15:0]   left;           // output bytes still to deliver

    wire start = (eng == E_IDLE) && bfull;                // absorb B into the first round's input
    wire [63:0]   rc;
    wire [1599:0] S_in = start ? (S ^ {256'd0, B}) : S;
    wire [1599:0] S_round;
    keccak_rc    rcs(.ir(start ? first_round : rnd), .rc(rc));
    keccak_round round(.s_in(S_in), .rc(rc), .s_out(S_round));

    wire xfer_out = (eng == E_SQUEEZE) && m_ready;
    wire msg_end  = xfer_out && (left <= 16'd8);

    always @(posedge clk) begin
        if (rst) begin
            started <= 1'b0; mode_r <= MODE_SHA3_256; r12_r <= 1'b0;
            B <= {1344{1'b0}}; bfull <= 1'b0; blast <= 1'b0; pad_pending <= 1'b0; in_done <= 1'b0;
            wi <= 5'd0;
            eng <= E_IDLE; S <= {1600{1'b0}}; rnd <= 5'd0; final_r <= 1'b0; wo <= 5'd0; left <= 16'd0;
        end else begin
            // input side (never in the same cycle as start: s_ready needs !bfull, start needs bfull)
            if (xfer_in) begin
                B <= B ^ X;
                if (!started) begin
                    started <= 1'b1; mode_r <= mode; r12_r <= rounds12;
                    left <= (mode == MODE_SHAKE128) ? out_len : 16'd32;
                end
                if (s_last) begin
                    bfull <= 1'b1; blast <= pad_fits; pad_pending <= !pad_fits; in_done <= 1'b1; wi <= 5'd0;
                end else if (wi == rate_lanes - 5'd1) begin
                    bfull <= 1'b1; blast <= 1'b0; wi <= 5'd0;
                end else
                    wi <= wi + 5'd1;
            end
            // engine
            case (eng)
                E_IDLE: if (start) begin         // round first_round on S ^ B; B freed (or the pad block)
                    S <= S_round;
                    rnd <= first_round + 5'd1;
                    final_r <= blast;
                    eng <= E_PERM;
                    B <= pad_pending ? P : {1344{1'b0}};
                    bfull <= pad_pending; blast <= pad_pending; pad_pending <= 1'b0;
                end
                E_PERM: begin
                    S <= S_round;
                    rnd <= rnd + 5'd1;
                    if (rnd == 5'd23) begin
                        eng <= final_r ? E_SQUEEZE : E_IDLE;
                        wo <= 5'd0;
                    end
                end
                default: if (xfer_out) begin    // E_SQUEEZE
                    if (msg_end) begin          // final word: clear the state for the next message
                        S <= {1600{1'b0}}; eng <= E_IDLE; wo <= 5'd0; left <= 16'd0;
                        started <= 1'b0; in_done <= 1'b0;
                    end else begin
                        left <= left - 16'd8;
                        if (wo == rate_lanes - 5'd1) begin   // next output block: permute S alone
                            eng <= E_PERM; rnd <= first_round; final_r <= 1'b1; wo <= 5'd0;
                        end else
                            wo <= wo + 5'd1;
                    end
                end
            endcase
        end
    end

    assign m_valid = (eng == E_SQUEEZE);
    assign m_data  = S[64*wo +: 64];
    assign m_last  = (left <= 16'd8);
    assign m_bytes = (left >= 16'd8) ? 4'd8 : left[3:0];
    assign busy    = started;
endmodule
