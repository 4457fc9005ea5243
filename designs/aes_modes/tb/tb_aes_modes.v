// Test bench of the AES-128 modes core (aes_modes, or a netlist of it).
//
// Plusargs: +in=STIM +out=RESULT [+stall=SEED] (random gaps on s_valid and m_ready).
// Macros: TOP (module name, default aes_modes); KEY_TABLE=<0|1> sets the RTL parameter (omit for
// netlists).
// Stimulus (text, one record per line; hex values are 128-bit words, byte 0 in the MSBs):
//   aes-modes-stim 1          header
//   K <32 hex> <32 hex>       new key group: the key and H = E_K(0^128); waits until every message
//                             so far has its last output word, drives `key` and `hkey` and resets
//                             the core (a conventional core then computes H from the new key)
//   M <mode>                  a message starts (mode 0 CMAC, 1 GCM encryption, 2 GCM decryption);
//                             the mode port holds it until the next M
//   W <type> <bytes> <last> <32 hex>   one input word (s_type, s_bytes, s_last, s_data; decimal)
// Result: first line "aes-modes-results 1"; per message "A <cycle of its first word's handshake>";
// per output word "O <m_type> <m_bytes> <m_last> <m_tag_ok> <32 hex> <cycle of the handshake>";
// then "END", or "TIMEOUT" when the core stops answering. Cycles count from the end of reset.
`timescale 1ns/1ps
`ifndef TOP
`define TOP aes_modes
`endif
module tb;
    localparam QMAX = 65536;
    reg clk = 1'b0, rst = 1'b1;
    reg [127:0] key = 128'd0, hkey = 128'd0;
    reg [1:0] mode = 2'd0;
    reg s_valid = 1'b0, m_ready = 1'b0, s_last = 1'b0;
    reg [127:0] s_data = 128'd0;
    reg [4:0] s_bytes = 5'd0;
    reg [1:0] s_type = 2'd0;
    wire s_ready, m_valid, m_last, m_tag_ok;
    wire [127:0] m_data;
    wire [4:0] m_bytes;
    wire [1:0] m_type;

    `TOP dut(.clk(clk), .rst(rst), .key(key), .hkey(hkey), .key_load(1'b0), .mode(mode), .s_valid(s_valid),
             .s_ready(s_ready), .s_data(s_data), .s_bytes(s_bytes), .s_type(s_type), .s_last(s_last),
             .m_valid(m_valid), .m_ready(m_ready), .m_data(m_data), .m_bytes(m_bytes),
             .m_type(m_type), .m_last(m_last), .m_tag_ok(m_tag_ok));
`ifdef KEY_TABLE
    defparam dut.KEY_TABLE = `KEY_TABLE;
`endif

    always #5 clk = ~clk;

    integer fin, fout, code, seed, stall, cycle, i, nq, accepted, msgs, done;
    integer f_type, f_bytes, f_last, f_mode;
    reg [8*8-1:0] tag;
    reg [127:0] value, value2;
    reg [127:0] q_data [0:QMAX-1];
    reg [1:0]   q_type [0:QMAX-1];
    reg [4:0]   q_bytes [0:QMAX-1];
    reg         q_last [0:QMAX-1];
    reg [1:0]   q_mode [0:QMAX-1];
    reg         q_first [0:QMAX-1];
    reg         next_first;

    always @(posedge clk) begin
        if (!rst && s_valid && s_ready) begin
            if (q_first[accepted]) $fdisplay(fout, "A %0d", cycle);
            accepted = accepted + 1;
        end
        if (!rst) cycle <= cycle + 1;
    end

    always @(posedge clk) begin
        if (!rst) begin
            if (m_valid && m_ready) begin
                $fdisplay(fout, "O %0d %0d %0d %0d %032h %0d", m_type, m_bytes, m_last, m_tag_ok, m_data, cycle);
                if (m_last) done = done + 1;
            end
            m_ready <= stall ? ($random(seed) & 1) : 1'b1;
        end
    end

    task run_group;
        integer timeout;
        begin
            done = 0;
            accepted = 0;
            timeout = 0;
            while ((done < msgs) && (timeout < 400 + 40 * nq)) begin
                @(negedge clk);
                if (accepted < nq && (!stall || ($random(seed) & 1))) begin
                    s_valid = 1'b1;
                    s_data = q_data[accepted];
                    s_type = q_type[accepted];
                    s_bytes = q_bytes[accepted];
                    s_last = q_last[accepted];
                    mode = q_mode[accepted];
                end else begin
                    s_valid = 1'b0;
                end
                timeout = timeout + 1;
            end
            s_valid = 1'b0;
            if (done < msgs) begin
                $fdisplay(fout, "TIMEOUT");
                $fclose(fout);
                $finish;
            end
        end
    endtask

    reg [1023:0] fname;
    initial begin
        cycle = 0;
        seed = 1;
        stall = 0;
        nq = 0;
        msgs = 0;
        accepted = 0;
        done = 0;
        f_mode = 0;
        next_first = 1'b0;
        if ($value$plusargs("stall=%d", seed)) stall = 1;
        if (!$value$plusargs("in=%s", fname)) begin $display("tb: +in=FILE missing"); $finish; end
        fin = $fopen(fname, "r");
        if (fin == 0) begin $display("tb: cannot open the stimulus file"); $finish; end
        if (!$value$plusargs("out=%s", fname)) begin $display("tb: +out=FILE missing"); $finish; end
        fout = $fopen(fname, "w");
        $fdisplay(fout, "aes-modes-results 1");
        code = $fscanf(fin, "%s %d\n", tag, i);
        while (!$feof(fin)) begin
            code = $fscanf(fin, "%s", tag);
            if (code == 1) begin
                if (tag == "K") begin
                    code = $fscanf(fin, " %h %h\n", value, value2);
                    if (nq > 0) run_group;
                    nq = 0;
                    msgs = 0;
                    @(negedge clk);
                    key = value;
                    hkey = value2;
                    rst = 1'b1;
                    repeat (3) @(negedge clk);
                    rst = 1'b0;
                    cycle = 0;
                end else if (tag == "M") begin
                    code = $fscanf(fin, " %d\n", f_mode);
                    msgs = msgs + 1;
                    next_first = 1'b1;
                end else if (tag == "W") begin
                    code = $fscanf(fin, " %d %d %d %h\n", f_type, f_bytes, f_last, value);
                    if (nq >= QMAX) begin $display("tb: more than %0d words in a key group", QMAX); $finish; end
                    q_data[nq] = value;
                    q_type[nq] = f_type;
                    q_bytes[nq] = f_bytes;
                    q_last[nq] = f_last;
                    q_mode[nq] = f_mode;
                    q_first[nq] = next_first;
                    next_first = 1'b0;
                    nq = nq + 1;
                end
            end
        end
        if (nq > 0) run_group;
        $fdisplay(fout, "END");
        $fclose(fout);
        $finish;
    end
endmodule
