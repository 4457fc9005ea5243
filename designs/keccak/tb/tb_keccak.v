// Test bench of keccak_core (SHA3-256 / SHAKE128 / KMAC128 sponge, Lake Keyak duplex).
//
// Plusargs: +in=STIM +out=RESULT [+stall=SEED] (random gaps on s_valid and m_ready).
// Defines: KEY_STATE=0/1 sets the core's KEY_STATE parameter (RTL only; a netlist has none).
// Stimulus (text, one record per line):
//   keccak-stim 3                         header
//   K <key hex> <key_len> <custom hex> <custom_len>   KMAC128 key and customization string (kept
//                                         for the following messages; hex of the port values)
//   Z <400 hex>                           KMAC128 key_state port (the state after the S and key blocks;
//                                         kept for the following messages)
//   P <60 hex>                            Lake Keyak keyak_pack port (kept for the following messages)
//   M <mode> <rounds12> <out_len> <n> <kop>   a message of n input words (n >= 1); mode 0 SHA3-256,
//                                         1 SHAKE128, 2 KMAC128, 3 Lake Keyak (kop: the core's kop port)
//   W <32 hex> <bytes> <last>             n lines: one 128-bit word (byte k in bits [8k +: 8]; a block's
//                                         final word holds its last 8 bytes: sim.message_words); <bytes>
//                                         is sent as s_bytes, <last> as s_last
// Result: first line "keccak-results 2"; per output word "O <32 hex> <m_bytes> <m_last>"; per
// message "T <cycle of first input handshake> <last input> <first output> <last output>"; then
// "END", or "TIMEOUT" when the core stops answering.
`timescale 1ns/1ps
module tb;
    reg clk = 1'b0, rst = 1'b1;
    reg [1:0] mode = 2'd0;
    reg rounds12 = 1'b0;
    reg [15:0] out_len = 16'd0;
    reg s_valid = 1'b0, s_last = 1'b0, m_ready = 1'b0;
    reg [127:0] s_data = 128'd0;
    reg [4:0] s_bytes = 5'd0;
    reg [255:0] key = 256'd0;
    reg [5:0] key_len = 6'd0;
    reg [1255:0] custom = 1256'd0;
    reg [7:0] custom_len = 8'd0;
    reg [1599:0] key_state = 1600'd0;
    reg [239:0] keyak_pack = 240'd0;
    reg [3:0] kop = 4'd0;
    wire s_ready, m_valid, m_last, busy;
    wire [127:0] m_data;
    wire [4:0] m_bytes;

`ifdef KEY_STATE
    keccak_core #(.KEY_STATE(`KEY_STATE))
`else
    keccak_core
`endif
                dut(.clk(clk), .rst(rst), .mode(mode), .rounds12(rounds12), .out_len(out_len), .kop(kop),
                    .key(key), .keyak_pack(keyak_pack), .key_len(key_len), .custom(custom), .custom_len(custom_len), .key_state(key_state),
                    .s_valid(s_valid), .s_ready(s_ready), .s_data(s_data), .s_last(s_last), .s_bytes(s_bytes),
                    .m_valid(m_valid), .m_ready(m_ready), .m_data(m_data), .m_last(m_last), .m_bytes(m_bytes),
                    .busy(busy));

    always #5 clk = ~clk;

    integer fin, fout, code, seed, stall, cycle, i, n, nbytes, accepted, done;
    integer t_in0, t_in1, t_out0, t_out1, nout;
    integer a_mode, a_r12, a_len, a_kl, a_cl, a_kop, wl;
    reg [255:0] a_key;
    reg [1255:0] a_cust;
    reg [1599:0] a_state;
    reg [239:0] a_pack;
    reg [8*8-1:0] tag;
    reg [127:0] value;
    reg [127:0] words [0:8191];
    reg [4:0]  wbytes [0:8191];
    reg        wlast [0:8191];

    always @(posedge clk) begin
        if (!rst && s_valid && s_ready) begin
            if (accepted == 0) t_in0 = cycle;
            t_in1 = cycle;
            accepted = accepted + 1;
        end
        if (!rst && m_valid && m_ready) begin
            $fdisplay(fout, "O %032h %0d %0d", m_data, m_bytes, m_last);
            if (nout == 0) t_out0 = cycle;
            t_out1 = cycle;
            nout = nout + 1;
            if (m_last) done = 1;
        end
        if (!rst) m_ready <= stall ? ($random(seed) & 1) : 1'b1;
        cycle <= cycle + 1;
    end

    task run_message;
        integer timeout;
        begin
            accepted = 0; nout = 0; done = 0; timeout = 0;
            while (!done && timeout < 400 + 200 * n + 2 * a_len) begin
                @(negedge clk);
                if (accepted < n && (!stall || ($random(seed) & 1))) begin
                    s_valid = 1'b1;
                    s_data = words[accepted];
                    s_bytes = wbytes[accepted];
                    s_last = wlast[accepted];
                end else begin
                    s_valid = 1'b0;
                    s_last = 1'b0;
                end
                timeout = timeout + 1;
            end
            s_valid = 1'b0;
            if (!done) begin
                $fdisplay(fout, "TIMEOUT");
                $fclose(fout);
                $finish;
            end
            $fdisplay(fout, "T %0d %0d %0d %0d", t_in0, t_in1, t_out0, t_out1);
        end
    endtask

    reg [1023:0] fname;
    initial begin
        cycle = 0; seed = 1; stall = 0; accepted = 0; nout = 0; done = 0;
        if ($value$plusargs("stall=%d", seed)) stall = 1;
        if (!$value$plusargs("in=%s", fname)) begin $display("tb: +in=FILE missing"); $finish; end
        fin = $fopen(fname, "r");
        if (!$value$plusargs("out=%s", fname)) begin $display("tb: +out=FILE missing"); $finish; end
        fout = $fopen(fname, "w");
        $fdisplay(fout, "keccak-results 2");
        code = $fscanf(fin, "%s %d\n", tag, i);
        repeat (3) @(posedge clk);
        #1 rst = 1'b0;
        while (!$feof(fin)) begin
            code = $fscanf(fin, "%s", tag);
            if (code == 1 && tag == "K") begin
                code = $fscanf(fin, " %h %d %h %d\n", a_key, a_kl, a_cust, a_cl);
                key = a_key; key_len = a_kl; custom = a_cust; custom_len = a_cl;
            end else if (code == 1 && tag == "Z") begin
                code = $fscanf(fin, " %h\n", a_state);
                key_state = a_state;
            end else if (code == 1 && tag == "P") begin
                code = $fscanf(fin, " %h\n", a_pack);
                keyak_pack = a_pack;
            end else if (code == 1 && tag == "M") begin
                code = $fscanf(fin, " %d %d %d %d %d\n", a_mode, a_r12, a_len, n, a_kop);
                for (i = 0; i < n; i = i + 1) begin
                    code = $fscanf(fin, "%s %h %d %d\n", tag, value, nbytes, wl);
                    words[i] = value;
                    wbytes[i] = nbytes;
                    wlast[i] = wl;
                end
                @(negedge clk);
                mode = a_mode; rounds12 = a_r12; out_len = a_len; kop = a_kop;
                run_message;
            end
        end
        $fdisplay(fout, "END");
        $fclose(fout);
        $finish;
    end
endmodule
