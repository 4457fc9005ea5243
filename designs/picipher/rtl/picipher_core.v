// Message-processor datapath shared by picipher_mp (HAS_INIT = 1) and picipher_cis_mp (HAS_INIT = 0):
// pi core, ALU, tag accumulator, MPCU, CIS and counter registers, and the 16-bit stream buffers.
// W = word size (16, 32, 64): a block is W bytes = W/2 stream words; LENW = bits of a byte count 0..W
// (5, 6, 7; derived from W by the tops). Ports and handshake: see designs/picipher/README.md.
module picipher_core #(
    parameter W        = 16,
    parameter LENW     = 5,
    parameter HAS_INIT = 1
) (
    input  wire            clk,
    input  wire            rst,
    input  wire [16*W-1:0] init_state,   // HAS_INIT: Key||PMN||01||0 from KPIG
    /* verilator lint_off UNUSEDSIGNAL */   // which of these are used depends on HAS_INIT
    input  wire [16*W-1:0] cis_p,        // !HAS_INIT: CIS after init + empty-AD step
    input  wire [63:0]     ctr_p,        // !HAS_INIT: counter after the empty-AD step
    input  wire [8*W-1:0]  tag_p,        // !HAS_INIT: tag accumulator after the empty-AD step
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire            mode,         // 0 encrypt, 1 decrypt; sampled when a message starts
    input  wire [15:0]     s_data,
    input  wire            s_valid,
    output wire            s_ready,
    input  wire            s_last,
    input  wire [LENW-1:0] s_bytes,
    output wire [15:0]     m_data,
    output wire            m_valid,
    input  wire            m_ready,
    output wire            m_last,
    output wire [LENW-1:0] m_bytes,
    output wire [8*W-1:0]  tag,
    input  wire [8*W-1:0]  tag_in,
    output reg             done,
    output reg             tag_ok
);
    localparam RW = 8 * W;                 // bits of a block (the rate)
    localparam OLW = LENW - 1;             // bits of a stream-word count 0..W/2
    localparam ICW = LENW - 2;             // bits of a stream-word index 0..W/2-1
    localparam [LENW-1:0] BLOCK = {1'b1, {(LENW-1){1'b0}}};   // bytes of a block: W = 2^(LENW-1)
    localparam [ICW-1:0]  LASTW = {ICW{1'b1}};               // index of a block's last stream word
    // ---------------- control ----------------
    /* verilator lint_off UNUSEDSIGNAL */   // cis_we is unused when HAS_INIT = 0
    wire       start, pi_load, pi_start, blk_sel, in_consume, out_write, cis_we, ctr_ld0, ctr_inc;
    /* verilator lint_on UNUSEDSIGNAL */
    wire       tag_add, finish, pi_busy;
    wire [1:0] alu_op;

    reg          in_full, in_last, msg_in_done, running, dec;
    reg  [ICW-1:0]  in_cnt;
    reg  [LENW-1:0] in_bytes;
    reg  [RW-1:0]   inbuf;
    reg  [RW-1:0]   outbuf;
    reg  [OLW-1:0]  out_left;
    reg             out_last_blk;
    reg  [LENW-1:0] out_bytes;
    wire            out_busy = (out_left != {OLW{1'b0}});

    picipher_mpcu #(.LENW(LENW), .HAS_INIT(HAS_INIT)) mpcu (
        .clk(clk), .rst(rst), .s_valid(s_valid), .in_full(in_full), .in_last(in_last),
        .in_bytes(in_bytes), .out_busy(out_busy), .pi_busy(pi_busy), .start(start),
        .pi_load(pi_load), .pi_start(pi_start), .alu_op(alu_op), .blk_sel(blk_sel),
        .in_consume(in_consume), .out_write(out_write), .cis_we(cis_we), .ctr_ld0(ctr_ld0),
        .ctr_inc(ctr_inc), .tag_add(tag_add), .finish(finish));

    // ---------------- datapath ----------------
    wire [16*W-1:0] s, dout, cis;
    wire [RW-1:0]   t, out_blk;
    reg  [63:0]  ctr;
    wire [63:0]  ctr_next = ctr + 64'd1;

    generate
        if (HAS_INIT) begin : g_cis
            reg [16*W-1:0] cis_r;
            always @(posedge clk)
                if (cis_we) cis_r <= s;
            assign cis = cis_r;
        end else begin : g_cis_p
            assign cis = cis_p;          // the parameter input is the CIS: no register
        end
    endgenerate

    always @(posedge clk) begin
        if (start && !HAS_INIT) ctr <= ctr_p;
        else if (ctr_ld0)       ctr <= s[4*W+63:4*W];    // 64 bits from W4 up
        else if (ctr_inc)       ctr <= ctr_next;
    end

    picipher_pi #(.W(W)) pi_core (.clk(clk), .rst(rst), .load(pi_load), .din(dout), .start(pi_start),
                         .busy(pi_busy), .s(s));

    picipher_alu #(.W(W), .LENW(LENW), .HAS_INIT(HAS_INIT)) alu (
        .op(alu_op), .s(s), .cis(cis), .init_state(init_state), .ctr(ctr_next), .tag(t),
        .blk(blk_sel ? inbuf : {RW{1'b0}}), .len(blk_sel ? in_bytes : {LENW{1'b0}}), .dec(dec & blk_sel),
        .dout(dout), .out(out_blk));

    picipher_tag #(.W(W)) tag_acc (.clk(clk), .clr(start && HAS_INIT), .ld(start && !HAS_INIT), .init(tag_p),
                          .add(tag_add), .rate({s[12*W-1:8*W], s[4*W-1:0]}), .t(t));

    // tag port: T as 8 little-endian words = W bytes; byte 0 in tag[8W-1:8W-8] (hex-string order)
    genvar b;
    generate
        for (b = 0; b < W; b = b + 1) begin : g_tag
            assign tag[RW-1-8*b -: 8] = t[8*b+7:8*b];
        end
    endgenerate

    // ---------------- input stream: 16-bit words collected into a W-byte block ----------------
    assign s_ready = running && !in_full && !msg_in_done;
    always @(posedge clk) begin
        if (rst) begin
            running <= 1'b0; in_full <= 1'b0; msg_in_done <= 1'b0; in_cnt <= {ICW{1'b0}}; dec <= 1'b0;
        end else if (start) begin
            running <= 1'b1; in_full <= 1'b0; msg_in_done <= 1'b0; in_cnt <= {ICW{1'b0}}; dec <= mode;
        end else begin
            if (finish) running <= 1'b0;
            if (in_consume) in_full <= 1'b0;
            if (s_valid && s_ready) begin
                inbuf[16*in_cnt +: 16] <= s_data;
                if (s_last || in_cnt == LASTW) begin
                    in_full  <= 1'b1;
                    in_cnt   <= {ICW{1'b0}};
                    in_last  <= s_last;
                    in_bytes <= (!s_last || s_bytes > BLOCK) ? BLOCK : s_bytes;
                    if (s_last) msg_in_done <= 1'b1;
                end else begin
                    in_cnt <= in_cnt + {{(ICW-1){1'b0}}, 1'b1};
                end
            end
        end
    end

    // ---------------- output stream: the block's words, low word first ----------------
    wire [OLW-1:0] out_words = in_bytes[LENW-1:1] + {{(OLW-1){1'b0}}, in_bytes[0]};   // ceil(bytes / 2)
    assign m_valid = out_busy;
    assign m_data  = outbuf[15:0];
    assign m_last  = out_last_blk && (out_left == {{(OLW-1){1'b0}}, 1'b1});
    assign m_bytes = out_bytes;
    always @(posedge clk) begin
        if (rst) begin
            out_left <= {OLW{1'b0}};
        end else if (out_write) begin
            outbuf       <= out_blk;
            out_left     <= (in_bytes == {LENW{1'b0}}) ? {{(OLW-1){1'b0}}, 1'b1} : out_words;
            out_last_blk <= in_last;
            out_bytes    <= in_bytes;
        end else if (m_valid && m_ready) begin
            outbuf   <= {16'd0, outbuf[RW-1:16]};
            out_left <= out_left - {{(OLW-1){1'b0}}, 1'b1};
        end
    end

    // ---------------- done / tag check ----------------
    always @(posedge clk) begin
        if (rst) begin
            done <= 1'b0; tag_ok <= 1'b0;
        end else begin
            done <= finish;
            if (start) tag_ok <= 1'b0;
            else if (finish) tag_ok <= dec && (tag == tag_in);
        end
    end
endmodule
