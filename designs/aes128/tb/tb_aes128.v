// Test bench of the AES-128 cores (aes128_pipe, aes128_iter, or a netlist of either).
//
// Plusargs: +in=STIM +out=RESULT [+stall=SEED] (random gaps on s_valid and m_ready).
// Macros: TOP (module name, default aes128_pipe); KEY_TABLE=<0|1> sets the RTL parameter of
// aes128_iter (omit for netlists and aes128_pipe).
// Stimulus (text, one record per line):
//   aes-stim 1                header
//   K <32 hex>                new key: waits until the core is empty, then sets the key input
//                             (the parameter changes only between blocks, as at a rekey)
//   P <32 hex>                a plaintext block
// Result: first line "aes-results 1"; one line per ciphertext "C <32 hex> <cycle of the output handshake>", per key group
// "L <cycles from the first input handshake to the last output handshake>", then "END", or
// "TIMEOUT" when the core stops answering.
`timescale 1ns/1ps
`ifndef TOP
`define TOP aes128_pipe
`endif
module tb;
    reg clk = 1'b0, rst = 1'b1;
    reg [127:0] key = 128'd0;
    reg s_valid = 1'b0, m_ready = 1'b0;
    reg [127:0] s_data = 128'd0;
    wire s_ready, m_valid;
    wire [127:0] m_data;

    `TOP dut(.clk(clk), .rst(rst), .key(key), .s_valid(s_valid), .s_ready(s_ready), .s_data(s_data),
             .m_valid(m_valid), .m_ready(m_ready), .m_data(m_data));
`ifdef KEY_TABLE
    defparam dut.KEY_TABLE = `KEY_TABLE;
`endif

    always #5 clk = ~clk;

    integer fin, fout, code, seed, stall, cycle, received, t_first, i;
    reg [8*8-1:0] tag;
    reg [127:0] value;
    reg [127:0] queue [0:1023];
    integer nq;

    integer accepted;
    always @(posedge clk) begin
        if (!rst && s_valid && s_ready) begin
            if (accepted == 0) t_first = cycle;
            accepted = accepted + 1;
        end
        cycle <= cycle + 1;
    end

    // output side: accept results, optionally with random gaps
    always @(posedge clk) begin
        if (!rst) begin
            if (m_valid && m_ready) begin
                $fdisplay(fout, "C %032h %0d", m_data, cycle);
                received = received + 1;
            end
            m_ready <= stall ? ($random(seed) & 1) : 1'b1;
        end
    end

    task run_group;
        integer timeout;
        begin
            received = 0;
            accepted = 0;
            timeout = 0;
            // 40 cycles per block, plus room for a CFGLUT5 build's loader to shift a key in
            // before the first block and between two groups (a few thousand cycles)
            while ((received < nq) && (timeout < 20000 + 40 * nq)) begin
                @(negedge clk);
                if (accepted < nq && (!stall || ($random(seed) & 1))) begin
                    s_valid = 1'b1;
                    s_data = queue[accepted];
                end else begin
                    s_valid = 1'b0;
                end
                timeout = timeout + 1;
            end
            s_valid = 1'b0;
            if (received < nq) begin
                $fdisplay(fout, "TIMEOUT");
                $fclose(fout);
                $finish;
            end
            $fdisplay(fout, "L %0d", cycle - 1 - t_first);
        end
    endtask

    reg [1023:0] fname;
    initial begin
        cycle = 0;
        seed = 1;
        stall = 0;
        nq = 0;
        accepted = 0;
        if ($value$plusargs("stall=%d", seed)) stall = 1;
        if (!$value$plusargs("in=%s", fname)) begin $display("tb: +in=FILE missing"); $finish; end
        fin = $fopen(fname, "r");
        if (!$value$plusargs("out=%s", fname)) begin $display("tb: +out=FILE missing"); $finish; end
        fout = $fopen(fname, "w");
        $fdisplay(fout, "aes-results 1");
        code = $fscanf(fin, "%s %d\n", tag, i);
        repeat (3) @(posedge clk);
        #1 rst = 1'b0;
        while (!$feof(fin)) begin
            code = $fscanf(fin, "%s %h\n", tag, value);
            if (code == 2) begin
                if (tag == "K") begin
                    if (nq > 0) run_group;
                    nq = 0;
                    @(negedge clk) key = value;
                end else begin
                    queue[nq] = value;
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
