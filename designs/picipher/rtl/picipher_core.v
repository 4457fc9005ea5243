// Message-processor datapath shared by picipher_mp (HAS_INIT = 1) and picipher_cis_mp (HAS_INIT = 0):
// pi core, ALU, tag accumulator, MPCU, CIS and counter registers, and the 16-bit stream buffers.
// Ports and handshake: see designs/picipher/README.md.
module picipher_core #(
    parameter HAS_INIT = 1
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [255:0] init_state,   // HAS_INIT: Key||PMN||01||0 from KPIG
    /* verilator lint_off UNUSEDSIGNAL */   // which of these are used depends on HAS_INIT
    input  wire [255:0] cis_p,        // !HAS_INIT: CIS after init + empty-AD step
    input  wire [63:0]  ctr_p,        // !HAS_INIT: counter after the empty-AD step
    input  wire [127:0] tag_p,        // !HAS_INIT: tag accumulator after the empty-AD step
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire         mode,         // 0 encrypt, 1 decrypt; sampled when a message starts
    input  wire [15:0]  s_data,
    input  wire         s_valid,
    output wire         s_ready,
    input  wire         s_last,
    input  wire [4:0]   s_bytes,
    output wire [15:0]  m_data,
    output wire         m_valid,
    input  wire         m_ready,
    output wire         m_last,
    output wire [4:0]   m_bytes,
    output wire [127:0] tag,
    input  wire [127:0] tag_in,
    output reg          done,
    output reg          tag_ok
);
    // ---------------- control ----------------
    /* verilator lint_off UNUSEDSIGNAL */   // cis_we is unused when HAS_INIT = 0
    wire       start, pi_load, pi_start, blk_sel, in_consume, out_write, cis_we, ctr_ld0, ctr_inc;
    /* verilator lint_on UNUSEDSIGNAL */
    wire       tag_add, finish, pi_busy;
    wire [1:0] alu_op;

    reg          in_full, in_last, msg_in_done, running, dec;
    reg  [2:0]   in_cnt;
    reg  [4:0]   in_bytes;
    reg  [127:0] inbuf;
    reg  [127:0] outbuf;
    reg  [3:0]   out_left;
    reg          out_last_blk;
    reg  [4:0]   out_bytes;
    wire         out_busy = (out_left != 4'd0);

    picipher_mpcu #(.HAS_INIT(HAS_INIT)) mpcu (
        .clk(clk), .rst(rst), .s_valid(s_valid), .in_full(in_full), .in_last(in_last),
        .in_bytes(in_bytes), .out_busy(out_busy), .pi_busy(pi_busy), .start(start),
        .pi_load(pi_load), .pi_start(pi_start), .alu_op(alu_op), .blk_sel(blk_sel),
        .in_consume(in_consume), .out_write(out_write), .cis_we(cis_we), .ctr_ld0(ctr_ld0),
        .ctr_inc(ctr_inc), .tag_add(tag_add), .finish(finish));

    // ---------------- datapath ----------------
    wire [255:0] s, dout, cis;
    wire [127:0] t, out_blk;
    reg  [63:0]  ctr;
    wire [63:0]  ctr_next = ctr + 64'd1;

    generate
        if (HAS_INIT) begin : g_cis
            reg [255:0] cis_r;
            always @(posedge clk)
                if (cis_we) cis_r <= s;
            assign cis = cis_r;
        end else begin : g_cis_p
            assign cis = cis_p;          // the parameter input is the CIS: no register
        end
    endgenerate

    always @(posedge clk) begin
        if (start && !HAS_INIT) ctr <= ctr_p;
        else if (ctr_ld0)       ctr <= s[127:64];    // W4..W7
        else if (ctr_inc)       ctr <= ctr_next;
    end

    picipher_pi pi_core (.clk(clk), .rst(rst), .load(pi_load), .din(dout), .start(pi_start),
                         .busy(pi_busy), .s(s));

    picipher_alu #(.HAS_INIT(HAS_INIT)) alu (
        .op(alu_op), .s(s), .cis(cis), .init_state(init_state), .ctr(ctr_next), .tag(t),
        .blk(blk_sel ? inbuf : 128'd0), .len(blk_sel ? in_bytes : 5'd0), .dec(dec & blk_sel),
        .dout(dout), .out(out_blk));

    picipher_tag tag_acc (.clk(clk), .clr(start && HAS_INIT), .ld(start && !HAS_INIT), .init(tag_p),
                          .add(tag_add), .rate({s[191:128], s[63:0]}), .t(t));

    // tag port: T as 8 little-endian words = 16 bytes; byte 0 in tag[127:120] (hex-string order)
    genvar b;
    generate
        for (b = 0; b < 16; b = b + 1) begin : g_tag
            assign tag[127-8*b -: 8] = t[8*b+7:8*b];
        end
    endgenerate

    // ---------------- input stream: 16-bit words collected into a 16-byte block ----------------
    assign s_ready = running && !in_full && !msg_in_done;
    always @(posedge clk) begin
        if (rst) begin
            running <= 1'b0; in_full <= 1'b0; msg_in_done <= 1'b0; in_cnt <= 3'd0; dec <= 1'b0;
        end else if (start) begin
            running <= 1'b1; in_full <= 1'b0; msg_in_done <= 1'b0; in_cnt <= 3'd0; dec <= mode;
        end else begin
            if (finish) running <= 1'b0;
            if (in_consume) in_full <= 1'b0;
            if (s_valid && s_ready) begin
                inbuf[16*in_cnt +: 16] <= s_data;
                if (s_last || in_cnt == 3'd7) begin
                    in_full  <= 1'b1;
                    in_cnt   <= 3'd0;
                    in_last  <= s_last;
                    in_bytes <= (!s_last || s_bytes > 5'd16) ? 5'd16 : s_bytes;
                    if (s_last) msg_in_done <= 1'b1;
                end else begin
                    in_cnt <= in_cnt + 3'd1;
                end
            end
        end
    end

    // ---------------- output stream: the block's words, low word first ----------------
    wire [3:0] out_words = in_bytes[4:1] + {3'd0, in_bytes[0]};   // words of the block: ceil(bytes / 2)
    assign m_valid = out_busy;
    assign m_data  = outbuf[15:0];
    assign m_last  = out_last_blk && (out_left == 4'd1);
    assign m_bytes = out_bytes;
    always @(posedge clk) begin
        if (rst) begin
            out_left <= 4'd0;
        end else if (out_write) begin
            outbuf       <= out_blk;
            out_left     <= (in_bytes == 5'd0) ? 4'd1 : out_words;
            out_last_blk <= in_last;
            out_bytes    <= in_bytes;
        end else if (m_valid && m_ready) begin
            outbuf   <= {16'd0, outbuf[127:16]};
            out_left <= out_left - 4'd1;
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
