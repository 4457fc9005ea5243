// Multi-purpose Keccak core: SHA3-256, SHAKE128 and KMAC128 (sponge) and Lake Keyak v1 (duplex, one
// piston) with padding and frame bits in hardware, one Keccak-p[1600] round per clock (after the
// high-speed core of Yalla, Homsirikamol, Kaps, DIAC 2014). Verilog-2005, synthesizable; needs
// keccak_round.v. Ports, protocol and timing: designs/keccak/README.md.
//
// Timing: the next block's words fill a block buffer while the permutation runs; the buffer is
// absorbed in the permutation's first round: 24 cycles per block (12 with rounds12; the 9 or 11
// word transfers overlap). Lake Keyak's body blocks are buffered the same way: the duplex output
// of a block (its words XOR the state after the previous permutation) is formed as the block is
// absorbed and leaves from an output buffer while the next permutation runs and the next block's
// words arrive: 12 cycles per 1344-bit body block.
//
// Words: 128 bits = two lanes, byte k in bits [8k +: 8] (FIPS 202 little-endian lanes); word j of
// a block is XORed into lanes 2j, 2j+1 (lane index x+5y). The rates are odd numbers of lanes (17,
// 21): a block's final word carries one lane (8 bytes; its upper half is ignored) and the next
// word starts the next block -- words never straddle a block.
//
// Input (AXI-Stream-like): s_valid/s_ready/s_data, s_last on the message's final word, s_bytes
// = valid bytes of that final word (0..16, 0..8 on a block's final word: the empty message is one
// word with s_bytes 0; a message whose last word is full ends with it, or equivalently with an
// extra word, s_bytes 0). Bytes at and above s_bytes are ignored; s_bytes of other words is
// ignored. mode / rounds12 /
// out_len / kop are sampled at a message's first input transfer and held by the core until its
// last output transfer. KMAC128: key / key_len / custom / custom_len are read when the prefix
// blocks are absorbed (1 and 25 cycles after the first input transfer); hold them while busy.
// Output: m_valid/m_ready/m_data, m_last on the final word, m_bytes = valid bytes of the word
// (16, 8 on a block's final word, or the rest of out_len on the final word; bytes above are state
// bytes, not zero).
// Lake Keyak (mode 3): a message's input is its metadata segment (nonce and associated data), then
// its body segment (kop[2]), then for unwrap the tag, each segment ending with s_last and starting
// a block; the output is the body (ciphertext or plaintext), one word per body word (each body
// block's words after the whole block has arrived), then the tag (wrap) or one status word whose
// bit 0 flags a tag mismatch (unwrap; the plaintext has left the core before). The state carries
// over between a session's messages.
module keccak_core #(
    // 0: KMAC128 absorbs its customization block and key block (two permutations) from the key,
    // key_len, custom, custom_len ports; 1: KMAC128 starts from key_state, the state after those
    // two blocks (a function of the parameter inputs alone, computed outside: by the PPC's
    // parameter transform), saving both permutations; key and custom are then not read. Lake Keyak:
    // 0 forms the key pack from key / key_len, 1 takes it from keyak_pack (key not read)
    parameter KEY_STATE = 0
) (
    input  wire        clk,
    input  wire        rst,        // synchronous, active high: empty state, ready for a message
    input  wire [1:0]  mode,       // 0 SHA3-256, 1 SHAKE128, 2 KMAC128, 3 Lake Keyak
    input  wire        rounds12,   // 0: Keccak-f[1600] (24 rounds); 1: Keccak-p[1600, 12] (Lake Keyak: always 12)
    input  wire [15:0] out_len,    // SHAKE128 / KMAC128 output length, Lake Keyak tag length, in bytes (SHA3-256: always 32)
    input  wire [3:0]  kop,        // Lake Keyak operation: [0] start a session (key pack, then the nonce),
                                   // [1] unwrap (decrypt, check the tag), [2] the message has a body, [3] forget
    (* PARAM *)
    input  wire [255:0] key,       // KMAC128 key, byte k in bits [8k +: 8] (KEY_STATE = 0)
    (* PARAM *)
    input  wire [5:0]  key_len,    // KMAC128 key length in bytes, 0..32 (values > 32 count as 32)
    (* PARAM *)
    input  wire [1255:0] custom,   // KMAC128 customization string S, byte k in bits [8k +: 8]
    (* PARAM *)
    input  wire [7:0]  custom_len, // length of S in bytes, 0..157 (values > 157 count as 157)
    (* PARAM *)
    input  wire [1599:0] key_state, // KMAC128 state after the S block and the key block (KEY_STATE = 1)
    (* PARAM *)
    input  wire [239:0] keyak_pack, // Lake Keyak key pack, bytes 0..29 (KEY_STATE = 1)
    input  wire        s_valid,
    output wire        s_ready,
    input  wire [127:0] s_data,
    input  wire        s_last,
    input  wire [4:0]  s_bytes,
    output wire        m_valid,
    input  wire        m_ready,
    output wire [127:0] m_data,
    output wire        m_last,
    output wire [4:0]  m_bytes,
    output wire        busy        // a message is being absorbed, permuted or squeezed
);
    localparam MODE_SHA3_256 = 2'd0, MODE_SHAKE128 = 2'd1, MODE_KMAC128 = 2'd2, MODE_KEYAK = 2'd3;
    // permutation engine; E_STATUS: Lake Keyak's final status word (unwrap, forget)
    localparam E_IDLE = 2'd0, E_PERM = 2'd1, E_SQUEEZE = 2'd2, E_STATUS = 2'd3;
    // Lake Keyak phase of a message: metadata words, body words, tag (squeeze or compare), forget's
    // second block (the outer part zeroed: B collects the state's outer lanes, one per cycle)
    localparam K_META = 2'd0, K_BODY = 2'd1, K_TAG = 2'd2, K_FGT2 = 2'd3;
    // KMAC128 prefix blocks, absorbed by the engine from E_IDLE before the message's blocks:
    // PRE_CUST bytepad(encode_string("KMAC") || encode_string(S), 168), then PRE_KEY
    // bytepad(encode_string(K), 168) -- the key block, a function of the key alone: its own phase,
    // so that KEY_STATE = 1 can replace both prefix phases by key_state
    localparam PRE_NONE = 2'd0, PRE_CUST = 2'd1, PRE_KEY = 2'd2;

    // --- message configuration -------------------------------------------------------------------
    reg           started;        // first word of the message taken: configuration latched
    reg  [1:0]    mode_r;
    reg           r12_r;
    reg  [15:0]   len_r;
    reg  [3:0]    kop_r;
    wire [1:0]  mode_e = started ? mode_r : mode;       // in force: the inputs at the first transfer,
    wire        r12_e  = started ? r12_r : rounds12;    // then the latched copy
    wire [15:0] len_e  = started ? len_r : out_len;
    wire [3:0]  kop_e  = started ? kop_r : kop;
    wire        shake  = (mode_e == MODE_SHAKE128);
    wire        kmac   = (mode_e == MODE_KMAC128);
    wire        keyak  = (mode_e == MODE_KEYAK);
    wire        kforget = keyak && kop_e[3];
    wire        kstart  = keyak && kop_e[0] && !kop_e[3];
    wire        kunwrap = keyak && kop_e[1] && !kop_e[3];
    wire        kbody   = kop_e[2];
    reg  [1:0]  kph;              // Lake Keyak phase (K_META between messages)
    wire        r168   = shake || kmac || keyak;
    wire [4:0]  rate_lanes = r168 ? 5'd21 : 5'd17;         // 1344 / 1088 bits
    wire [4:0]  first_round = (r12_e || keyak) ? 5'd12 : 5'd0;

    // trailer appended after the message bytes by the hardware (bytes little-endian, tl bytes):
    // SHA3-256 0x06 (M||01 + first pad bit), SHAKE128 0x1F (M||1111 + first pad bit), KMAC128
    // right_encode(L) with L = 8*out_len bits, then 0x04 (cSHAKE: M||00 + first pad bit); Lake
    // Keyak the frame bits and the first pad bit: 0x06 metadata ends, body next; 0x05 tag next;
    // forget's first block 0x01 (no frame bits). Keyak's last pad bit (bit 1347) is in byte BR.
    wire [18:0] lbits = {len_e, 3'b000};
    reg  [39:0] trl;
    reg  [2:0]  tl;
    always @* begin
        if (keyak) begin
            trl = {32'd0, kforget ? 8'h01 : (kph == K_META && kbody) ? 8'h06 : 8'h05}; tl = 3'd1;
        end else if (!kmac) begin
            trl = {32'd0, shake ? 8'h1F : 8'h06}; tl = 3'd1;
        end else if (len_e < 16'd32) begin
            trl = {16'd0, 8'h04, 8'h01, lbits[7:0]}; tl = 3'd3;
        end else if (len_e < 16'd8192) begin
            trl = {8'd0, 8'h04, 8'h02, lbits[7:0], lbits[15:8]}; tl = 3'd4;
        end else begin
            trl = {8'h04, 8'h03, lbits[7:0], lbits[15:8], 5'd0, lbits[18:16]}; tl = 3'd5;
        end
    end

    // lengths: key and customization bytes (clamped to the ports' size), bytes of the input word
    wire [5:0]   klen = (key_len > 6'd32) ? 6'd32 : key_len;
    wire [7:0]   clen = (custom_len > 8'd157) ? 8'd157 : custom_len;
    wire         kfgt2 = keyak && (kph == K_FGT2);
    reg  [4:0]   wi;              // lane of the next input word's low half (even: blocks start at lane 0 or 4)
    // a Lake Keyak session's first block starts its metadata at lane 4, after the key pack (bytes
    // 0..29) and the piston diversifier (bytes 30, 31: one piston, index 0)
    wire [4:0]   wi_e = (!started && kstart) ? 5'd4 : wi;
    wire         in_last = s_last && !kfgt2;               // forget's second block takes no input
    // a block's final word holds one lane (the rates are odd numbers of lanes): 8 bytes, the
    // word's upper half is not the block's
    reg          whalf;           // wi is the lane of a block's final word (kept beside wi: no comparator
                                  // on the path to B; wi_e differs from wi only at lane 4, never final)
    wire         ihalf = whalf;
    wire [4:0]   wmax = ihalf ? 5'd8 : 5'd16;               // bytes of the block in this word
    wire [4:0]   nb = kforget && !kfgt2 ? 5'd0 : !in_last ? wmax : (s_bytes > wmax ? wmax : s_bytes);
    // byte masks as thermometer codes (byte i kept when i < length): no subtractor, whose carry
    // chain (1256 bits for S) would not fit a slice column
    reg  [255:0] kmask;
    reg  [1255:0] cmask;
    reg  [127:0] dmask;
    integer mi;
    always @* begin
        for (mi = 0; mi < 32; mi = mi + 1) kmask[8*mi +: 8] = {8{mi < klen}};
        for (mi = 0; mi < 157; mi = mi + 1) cmask[8*mi +: 8] = {8{mi < clen}};
        for (mi = 0; mi < 16; mi = mi + 1) dmask[8*mi +: 8] = {8{mi < nb}};
    end

    // Lake Keyak key pack (bytes 0..29): 30, the key (at most 28 bytes), 0x01, zeros
    wire [4:0]   kk = (klen > 6'd28) ? 5'd28 : klen[4:0];
    reg  [239:0] kpack;
    integer ki;
    always @* begin
        kpack[7:0] = 8'h1E;
        for (ki = 0; ki < 28; ki = ki + 1)
            kpack[8*ki + 8 +: 8] = (ki < kk) ? key[8*ki +: 8] : (ki == kk) ? 8'h01 : 8'h00;
        kpack[232 +: 8] = (kk == 5'd28) ? 8'h01 : 8'h00;
    end
    wire [239:0] kpack_e = KEY_STATE ? keyak_pack : kpack;

    // KMAC128 prefix blocks (byte i of a block in bits [8i +: 8])
    wire [8:0]   kbits = {klen, 3'b000};
    // bytepad(encode_string(K), 168): left_encode(168) = 01 A8, left_encode(8*klen), K, zeros
    wire [1343:0] key_blk = klen[5]
        ? ({1088'd0, key & kmask} << 40) | {1304'd0, 8'h00, 8'h01, 8'h02, 8'hA8, 8'h01}
        : ({1088'd0, key & kmask} << 32) | {1312'd0, kbits[7:0], 8'h01, 8'hA8, 8'h01};
    wire [10:0]  cbits = {clen, 3'b000};
    // bytepad(encode_string("KMAC") || encode_string(S), 168):
    // 01 A8 | 01 20 'K' 'M' 'A' 'C' | left_encode(8*clen) | S | zeros
    wire [63:0]  chead = {8'h43, 8'h41, 8'h4D, 8'h4B, 8'h20, 8'h01, 8'hA8, 8'h01};
    wire [1343:0] cust_blk = (clen < 8'd32)
        ? ({88'd0, custom & cmask} << 80) | {1264'd0, cbits[7:0], 8'h01, chead}
        : ({88'd0, custom & cmask} << 88) | {1256'd0, cbits[7:0], 5'd0, cbits[10:8], 8'h02, chead};

    // --- input side: words fill the block buffer B (lane j of the block at [64*j +: 64]) ---------
    reg  [1343:0] B;
    reg           bfull;          // B holds a complete (padded if final) block for the engine
    reg           blast;          // ... and it is the message's final block
    reg           pad_pending;    // the message filled its final block: a padding-only block follows
    reg           in_done;        // the final word was taken
    reg  [7:0]    BR;             // Lake Keyak: byte 168 of the block (state bits 1344..1351): frame
                                  // bits of a full block and the last pad bit (bit 1347)
    // the word's bytes and, on the final word, the trailer at byte nb of the word, in a 3-lane
    // window from lane wi_e (at most byte 20: 16 data bytes and 5 trailer bytes). Only a block's
    // final word (one lane, nb <= 8) can reach past the rate: its window bytes from 8 on are byte
    // 168 (Lake Keyak's BR) or spill into one more block; every other word is at least 3 lanes
    // before the end of the rate (the rates are odd numbers of lanes, words start at even ones)
    wire [191:0] twin = {152'd0, trl} << {nb, 3'b000};
    wire        pad_fits = !ihalf || ({1'b0, nb} + {3'd0, tl} <= 6'd8);   // else one more block
    wire [39:0] spill_w = twin[64 +: 40];
    reg  [39:0] spill;            // trailer bytes past the final data block (pad_pending)

    // Lake Keyak body: B collects the input words (plaintext for wrap, ciphertext for unwrap) while
    // the previous block is permuted; V marks the ciphertext bytes of an unwrap block. When the
    // block is absorbed the duplex output B ^ S (outer part) goes to the output buffer O, and the
    // state absorbs the plaintext: S ^ B for wrap; for unwrap S ^ B ^ (S & V), which puts the
    // ciphertext into the outer part and leaves the frame and pad bits XORed in
    reg  [4:0]    wo;             // lane of the next output word
    reg  [1599:0] S;              // the Keccak state (lane (x, y) at [64*(x+5y) +: 64])
    reg  [1:0]    eng;
    reg  [1343:0] O;              // body output block, word 0 at [127:0], shifted out word by word
    reg  [3:0]    ocnt;           // body output words left in O
    reg  [4:0]    olb;            // valid bytes of O's final word
    reg  [175:0]  V;              // unwrap: byte i of B holds ciphertext (bytes 168..175: unused)
    reg           bbody;          // B holds a body block
    reg  [3:0]    bw;             // words of the body block in B
    reg  [4:0]    bb;             // valid bytes of its final word
    wire          o_valid = (ocnt != 4'd0);
    wire [4:0]    lidx = (eng == E_SQUEEZE) ? wo : wi;
    wire [127:0]  Sl = S[64*lidx +: 128];                  // lanes lidx, lidx + 1
    wire          kbody_ph = keyak && (kph == K_BODY);
    // forget's second block takes the state's outer lanes instead of an input word
    wire [127:0]  D = kfgt2 ? Sl : s_data;
    reg  [1343:0] Vx;             // V, one bit per state bit
    integer vi, vj, vk;
    always @* for (vi = 0; vi < 168; vi = vi + 1) Vx[8*vi +: 8] = {8{V[vi]}};

    assign s_ready = !keyak ? (!bfull && !in_done)
                   : (kph == K_META) ? (!bfull && !in_done)
                   : (kph == K_BODY) ? !bfull
                   : (kph == K_TAG)  ? (kunwrap && eng == E_SQUEEZE)
                   : 1'b0;
    wire xfer_in  = s_valid && s_ready;
    wire xfer_tag = xfer_in && keyak && (kph == K_TAG);       // unwrap: a tag word to compare
    wire xfer_f   = kfgt2 && (eng == E_IDLE) && !bfull;       // forget: one outer lane into B
    wire wstep    = (xfer_in && !xfer_tag) || xfer_f;         // a word into B

    // the word (masked to its bytes) and, on the final word, pad10*1 with the domain bits
    wire [191:0] Wd = (in_last ? twin : 192'd0) ^ {64'd0, D & dmask};
    reg  [1343:0] X;
    // padding block: the spilled trailer bytes from byte 0, 0x80 in the last byte of the rate
    reg  [1343:0] P;
    integer i;
    always @* begin
        X = {1344{1'b0}};
        P = {1304'd0, spill};
        for (i = 0; i < 21; i = i + 1) begin
            if (wi_e == i)
                X[64*i +: 64] = X[64*i +: 64] ^ Wd[63:0];
            if (wi_e + 5'd1 == i && !ihalf)
                X[64*i +: 64] = X[64*i +: 64] ^ Wd[127:64];
            if (wi_e + 5'd2 == i && !ihalf)
                X[64*i +: 64] = X[64*i +: 64] ^ Wd[191:128];
            if (!keyak && in_last && pad_fits && rate_lanes == i + 1)
                X[64*i + 56 +: 8] = X[64*i + 56 +: 8] ^ 8'h80;   // last pad bit: bit 7 of the block's last byte
            if (rate_lanes == i + 1)
                P[64*i + 56 +: 8] = P[64*i + 56 +: 8] ^ 8'h80;
        end
    end

    // --- permutation engine and output side ------------------------------------------------------
    reg  [4:0]    rnd;            // round index ir (24 rounds: 0..23, 12 rounds: 12..23)
    reg           final_r;        // the running permutation is the one after the final block
    reg  [15:0]   left;           // output bytes still to deliver (Lake Keyak unwrap: tag bytes to compare)
    reg           fail;           // Lake Keyak unwrap: a tag byte differed

    reg  [1:0]    pre;            // KMAC128 prefix block to absorb next (PRE_NONE: the message's)
    // with KEY_STATE the prefix phases never run: a constant, so that synthesis drops the block builders
    wire [1:0] pre_e = KEY_STATE ? PRE_NONE : pre;
    wire start_pre = (eng == E_IDLE) && (pre_e != PRE_NONE);
    // a body block waits for the previous block's output words to leave O
    wire start = (eng == E_IDLE) && (pre_e != PRE_NONE || (bfull && !o_valid));   // absorb into the first round's input
    wire [1343:0] A = (pre_e == PRE_CUST) ? cust_blk : (pre_e == PRE_KEY) ? key_blk : B ^ (S[1343:0] & Vx);
    wire [63:0]   rc;
    // KEY_STATE: the KMAC message's first block is absorbed into key_state instead of S (which is
    // zero between messages); XORing it in the round input keeps the state flip-flops' inputs as
    // they are (no load multiplexer), each key_state bit joins the LUT that forms its S_in bit
    // (KMAC128) or the first block of a Lake Keyak session, whose key pack and diversifier are XORed
    // in the same way (in both builds: from keyak_pack with KEY_STATE, else built from key)
    reg           kfirst;         // the next block from B is a KMAC128 message's first (KEY_STATE) or a Keyak session's
    wire [1599:0] KS = !kfirst ? {1600{1'b0}}
                     : keyak ? {1344'd0, 16'h0001, kpack_e}
                     : KEY_STATE ? key_state : {1600{1'b0}};
    wire [1599:0] S_in = start ? (S ^ {248'd0, BR, A} ^ KS) : S;
    wire [1599:0] S_round;
    keccak_rc    rcs(.ir(start ? first_round : rnd), .rc(rc));
    keccak_round round(.s_in(S_in), .rc(rc), .s_out(S_round));

    // squeeze step: an output word taken (after any waiting body word), or for Keyak unwrap a tag word compared
    wire xfer_sq  = (eng == E_SQUEEZE) && (kunwrap ? xfer_tag : (!o_valid && m_ready));
    wire sq_end   = xfer_sq && (left <= {11'd0, owb});
    wire xfer_st  = (eng == E_STATUS) && !o_valid && m_ready;
    wire msg_end  = (sq_end && !kunwrap) || xfer_st;
    // squeeze words: two lanes, the block's final word one (8 bytes)
    reg           ohalf;          // wo is the lane of a block's final output word (kept beside wo)
    wire [4:0]    owb = ohalf ? 5'd8 : 5'd16;
    reg  [127:0]  tmask;          // bytes of the tag word still compared (left, at most owb)
    integer ti;
    always @* for (ti = 0; ti < 16; ti = ti + 1) tmask[8*ti +: 8] = {8{left > ti && owb > ti}};

    always @(posedge clk) begin
        if (rst) begin
            started <= 1'b0; mode_r <= MODE_SHA3_256; r12_r <= 1'b0; len_r <= 16'd0; pre <= PRE_NONE;
            kfirst <= 1'b0; kop_r <= 4'd0; kph <= K_META; BR <= 8'd0; fail <= 1'b0;
            O <= {1344{1'b0}}; ocnt <= 4'd0; olb <= 5'd0; V <= 176'd0; bbody <= 1'b0; bw <= 4'd0; bb <= 5'd0;
            spill <= 40'd0;
            B <= {1344{1'b0}}; bfull <= 1'b0; blast <= 1'b0; pad_pending <= 1'b0; in_done <= 1'b0;
            wi <= 5'd0; whalf <= 1'b0; ohalf <= 1'b0;
            eng <= E_IDLE; rnd <= 5'd0; final_r <= 1'b0; wo <= 5'd0; left <= 16'd0;
        end else begin
            // body output words (Lake Keyak): one out of O per transfer; O is loaded as its block is
            // absorbed, which waits until O is empty
            if (o_valid && m_ready) begin
                O <= O >> 128; ocnt <= ocnt - 4'd1;
            end
            // a body word into B: its valid bytes (unwrap: ciphertext bytes), the block's size so far
            if (xfer_in && kbody_ph) begin
                bbody <= 1'b1; bw <= wi_e[4:1] + 4'd1; bb <= nb;   // the body starts at lane 0
                if (kunwrap)
                    for (vj = 0; vj < 21; vj = vj + 2)
                        if (wi_e == vj)
                            for (vk = 0; vk < 16; vk = vk + 1) V[8*vj + vk] <= dmask[8*vk];
            end
            // input side (never in the same cycle as a start from B: s_ready and xfer_f need !bfull,
            // that start needs bfull; a prefix-block start leaves B alone)
            if (wstep) begin
                B <= B ^ X;
                if (!started) begin
                    started <= 1'b1; mode_r <= mode; r12_r <= rounds12; len_r <= out_len; kop_r <= kop;
                    left <= (mode == MODE_SHA3_256) ? 16'd32 : out_len;
                    fail <= 1'b0;
                    if (mode == MODE_KMAC128) begin
                        if (KEY_STATE) kfirst <= 1'b1;
                        else pre <= PRE_CUST;
                    end
                    if (mode == MODE_KEYAK && kop[0] && !kop[3]) kfirst <= 1'b1;
                end
                if (keyak && in_last) begin      // end of a segment: trailer after the data, BR
                    bfull <= 1'b1; wi <= 5'd0; whalf <= 1'b0; in_done <= 1'b1;
                    BR <= 8'h08 ^ (ihalf ? twin[64 +: 8] : 8'd0);
                    // after this block: the body (engine idle), forget's second block, or the tag
                    blast <= !(kforget || (kph == K_META && kbody));
                    kph <= kforget ? K_FGT2 : (kph == K_META && kbody) ? K_BODY : K_TAG;
                end else if (in_last) begin
                    bfull <= 1'b1; blast <= pad_fits; pad_pending <= !pad_fits; in_done <= 1'b1;
                    wi <= 5'd0; whalf <= 1'b0;
                    spill <= spill_w;
                end else if (ihalf) begin
                    // a full block with more to come (Keyak frame bits in byte 168: 00 metadata more,
                    // 11 body more; forget's second block: pad10*1 from bit 1344)
                    bfull <= 1'b1; blast <= kfgt2; wi <= 5'd0; whalf <= 1'b0;
                    if (keyak) BR <= kfgt2 ? 8'h09 : (kph == K_BODY) ? 8'h0F : 8'h0C;
                end else begin
                    wi <= wi_e + 5'd2; whalf <= (wi_e + 5'd2 == rate_lanes - 5'd1);
                end
            end
            if (xfer_tag)
                fail <= fail | (|((s_data ^ Sl) & tmask));
            // engine
            case (eng)
                E_IDLE: if (start_pre) begin     // KMAC128: the S block, then the key block
                    rnd <= first_round + 5'd1;
                    final_r <= 1'b0;
                    eng <= E_PERM;
                    pre <= (pre == PRE_CUST) ? PRE_KEY : PRE_NONE;
                end else if (start) begin        // round first_round on S ^ B; B freed (or the pad block)
                    if (bbody) begin             // Lake Keyak body: the duplex output to O
                        O <= B ^ S[1343:0]; ocnt <= bw; olb <= bb;
                    end
                    V <= 176'd0; bbody <= 1'b0;
                    rnd <= first_round + 5'd1;
                    final_r <= blast;
                    eng <= E_PERM;
                    B <= pad_pending ? P : {1344{1'b0}};
                    BR <= 8'd0;
                    kfirst <= 1'b0;
                    bfull <= pad_pending; blast <= pad_pending; pad_pending <= 1'b0;
                end
                E_PERM: begin
                    rnd <= rnd + 5'd1;
                    if (rnd == 5'd23) begin
                        eng <= !final_r ? E_IDLE : kfgt2 ? E_STATUS : E_SQUEEZE;
                        wo <= 5'd0; ohalf <= 1'b0;
                    end
                end
                E_SQUEEZE: if (xfer_sq) begin
                    if (sq_end) begin
                        if (kunwrap) eng <= E_STATUS;
                    end else begin
                        left <= left - {11'd0, owb};
                        if (ohalf) begin                     // next output block: permute S alone
                            eng <= E_PERM; rnd <= first_round; final_r <= 1'b1; wo <= 5'd0; ohalf <= 1'b0;
                        end else begin
                            wo <= wo + 5'd2; ohalf <= (wo + 5'd2 == rate_lanes - 5'd1);
                        end
                    end
                end
                default: ;                      // E_STATUS: the status word waits for m_ready
            endcase
            // a message's last output word: the next message may start (the state is cleared, except
            // in a Lake Keyak session, which continues)
            if (msg_end) begin
                eng <= E_IDLE; wo <= 5'd0; ohalf <= 1'b0; left <= 16'd0;
                started <= 1'b0; in_done <= 1'b0; kph <= K_META;
            end
        end
    end

    // output: a waiting body word first, then squeezed words (not for Keyak unwrap) or the status word
    wire sq_valid = (eng == E_SQUEEZE) && !kunwrap;
    assign m_valid = o_valid || sq_valid || (eng == E_STATUS);

    // the state register, in one place so that synthesis sees a clear, a load and a hold: cleared
    // at reset, at a message's first transfer (except in a Lake Keyak session's later messages and
    // forget; the engine is idle then) and after a sponge message's last output word; loaded with
    // the round's output in every round; a Keyak tag past one block pads it (bits 1 and 1347)
    // before the next permutation
    wire s_clr  = rst || (xfer_in && !started && !(mode == MODE_KEYAK && (!kop[0] || kop[3])))
                      || (msg_end && !keyak);
    wire s_load = (eng == E_PERM) || start;
    wire s_pad  = keyak && xfer_sq && !sq_end && ohalf;
    always @(posedge clk) begin
        if (s_clr)
            S <= {1600{1'b0}};
        else if (s_load)
            S <= S_round;
        else if (s_pad) begin
            S[1] <= !S[1];
            S[1347] <= !S[1347];
        end
    end
    assign m_data  = o_valid ? O[127:0] : (eng == E_STATUS) ? {127'd0, fail} : Sl;
    assign m_last  = o_valid ? 1'b0 : (eng == E_STATUS) ? 1'b1 : (left <= {11'd0, owb});
    assign m_bytes = o_valid ? ((ocnt == 4'd1) ? olb : 5'd16) : (eng == E_STATUS) ? 5'd0
                   : (left >= {11'd0, owb}) ? owb : left[4:0];
    assign busy    = started;
endmodule
