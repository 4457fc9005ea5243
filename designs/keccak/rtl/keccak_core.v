// Keccak sponge core: SHA3-256 and SHAKE128 with padding in hardware, one Keccak-p[1600] round per
// clock (after the high-speed core of Yalla, Homsirikamol, Kaps, DIAC 2014). Verilog-2005,
// synthesizable; needs keccak_round.v. Ports, protocol and timing: designs/keccak/README.md.
//
// Words: 64 bits = one lane; byte k of a word (bits [8k +: 8]) is message byte 8j+k of word j
// (FIPS 202 little-endian lanes). Word j of a block is XORed into lane j (lane index x+5y).
//
// Input (AXI-Stream-like): s_valid/s_ready/s_data, s_last on the message's final word, s_bytes
// = valid bytes of that final word (0..8; 0 only for a message of length 0 sent as one word with
// s_bytes 0, or after a multiple of 8 bytes). Bytes at and above s_bytes are ignored; s_bytes of
// other words is ignored (8). mode / rounds12 / out_len are sampled at a message's first input
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
    // states (KMAC will add a prefix-block state before ST_ABSORB, Keyak a duplex state)
    localparam ST_ABSORB = 2'd0, ST_PERM = 2'd1, ST_PAD = 2'd2, ST_SQUEEZE = 2'd3;

    reg  [1:0]    st;
    reg  [1:0]    after;          // state entered when the permutation ends
    reg  [1599:0] S;              // the Keccak state (lane (x, y) at [64*(x+5y) +: 64])
    reg  [4:0]    rnd;            // round index ir (24 rounds: 0..23, 12 rounds: 12..23)
    reg  [4:0]    w;              // lane of the next input / output word
    reg           started;        // first word of the message taken: configuration latched
    reg  [1:0]    mode_r;
    reg           r12_r;
    reg  [15:0]   left;           // output bytes still to deliver

    // configuration in force: the inputs at the first transfer, then the latched copy
    wire [1:0]  mode_e = started ? mode_r : mode;
    wire        r12_e  = started ? r12_r : rounds12;
    wire        shake  = (mode_e == MODE_SHAKE128);
    wire [4:0]  rate_lanes = shake ? 5'd21 : 5'd17;        // 1344 / 1088 bits
    wire [7:0]  dsuffix = shake ? 8'h1F : 8'h06;           // M||1111 + first pad bit / M||01 + first pad bit
    wire [4:0]  first_round = r12_e ? 5'd12 : 5'd0;

    // input word: valid bytes, mask, where the padding starts
    wire [3:0]  nb = !s_last ? 4'd8 : (s_bytes > 4'd8 ? 4'd8 : s_bytes);
    wire [63:0] dmask = nb[3] ? {64{1'b1}} : ((64'd1 << {nb[2:0], 3'b000}) - 64'd1);
    wire [4:0]  in_pad_lane = w + {4'd0, nb[3]};           // a full last word: padding in the next lane
    wire        in_pad_fits = (in_pad_lane != rate_lanes);  // else the padding needs a block of its own

    wire xfer_in  = (st == ST_ABSORB) && s_valid;
    wire xfer_out = (st == ST_SQUEEZE) && m_ready;

    // XOR mask applied to the state in ST_ABSORB (data word and padding) and ST_PAD (padding only)
    wire        data_we = xfer_in;
    wire        pad_we  = (xfer_in && s_last && in_pad_fits) || (st == ST_PAD);
    wire [4:0]  pad_lane = (st == ST_PAD) ? 5'd0 : in_pad_lane;
    wire [2:0]  pad_byte = (st == ST_PAD) ? 3'd0 : nb[2:0];
    reg  [1599:0] X;
    integer i;
    always @* begin
        X = {1600{1'b0}};
        for (i = 0; i < 21; i = i + 1) begin
            if (data_we && w == i)
                X[64*i +: 64] = X[64*i +: 64] ^ (s_data & dmask);
            if (pad_we && pad_lane == i)
                X[64*i +: 64] = X[64*i +: 64] ^ ({56'd0, dsuffix} << {pad_byte, 3'b000});
            if (pad_we && rate_lanes == i + 1)
                X[64*i + 56 +: 8] = X[64*i + 56 +: 8] ^ 8'h80;   // last pad bit: bit 7 of the block's last byte
        end
    end

    wire [63:0]   rc;
    wire [1599:0] S_round;
    keccak_rc    rcs(.ir(rnd), .rc(rc));
    keccak_round round(.s_in(S), .rc(rc), .s_out(S_round));

    always @(posedge clk) begin
        if (rst) begin
            st <= ST_ABSORB; after <= ST_ABSORB; S <= {1600{1'b0}}; rnd <= 5'd0; w <= 5'd0;
            started <= 1'b0; mode_r <= MODE_SHA3_256; r12_r <= 1'b0; left <= 16'd0;
        end else begin
            case (st)
                ST_ABSORB: if (xfer_in) begin
                    S <= S ^ X;
                    if (!started) begin
                        started <= 1'b1; mode_r <= mode; r12_r <= rounds12;
                        left <= (mode == MODE_SHAKE128) ? out_len : 16'd32;
                    end
                    rnd <= first_round;
                    if (s_last) begin
                        st <= ST_PERM; w <= 5'd0;
                        after <= in_pad_fits ? ST_SQUEEZE : ST_PAD;
                    end else if (w == rate_lanes - 5'd1) begin
                        st <= ST_PERM; w <= 5'd0; after <= ST_ABSORB;
                    end else
                        w <= w + 5'd1;
                end
                ST_PERM: begin
                    S <= S_round;
                    rnd <= rnd + 5'd1;
                    if (rnd == 5'd23) st <= after;
                end
                ST_PAD: begin                       // padding-only block (message filled the last one)
                    S <= S ^ X;
                    rnd <= first_round;
                    st <= ST_PERM; after <= ST_SQUEEZE;
                end
                default: if (xfer_out) begin        // ST_SQUEEZE
                    if (left <= 16'd8) begin        // final word: clear the state for the next message
                        S <= {1600{1'b0}}; st <= ST_ABSORB; w <= 5'd0; started <= 1'b0; left <= 16'd0;
                    end else begin
                        left <= left - 16'd8;
                        rnd <= first_round;
                        if (w == rate_lanes - 5'd1) begin
                            st <= ST_PERM; w <= 5'd0; after <= ST_SQUEEZE;
                        end else
                            w <= w + 5'd1;
                    end
                end
            endcase
        end
    end

    assign s_ready = (st == ST_ABSORB);
    assign m_valid = (st == ST_SQUEEZE);
    assign m_data  = S[64*w +: 64];
    assign m_last  = (left <= 16'd8);
    assign m_bytes = (left >= 16'd8) ? 4'd8 : left[3:0];
    assign busy    = started;
endmodule
