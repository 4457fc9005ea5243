// Test bench of keysbox (or the module `TOP with its ports): sends the bytes of +in= (one hex byte per line, first line the count) as
// items and writes every output byte to +out= (one hex byte per line); m_ready stalls at random.
module tb;
    reg clk = 1'b0;
    always #5 clk = ~clk;
    reg rst = 1'b1, s_valid = 1'b0, m_ready = 1'b0;
    reg [7:0] s_data = 8'd0;
    wire s_ready, m_valid;
    wire [7:0] m_data;
`ifndef TOP
`define TOP keysbox
`endif
    `TOP dut (.clk(clk), .rst(rst), .key(8'd0), .s_valid(s_valid), .s_ready(s_ready), .s_data(s_data),
                 .m_valid(m_valid), .m_ready(m_ready), .m_data(m_data));
    reg [8*256-1:0] fin, fout;
    integer fd, fo, rc, n, i, got, seed, cyc;
    reg [7:0] b;
    initial cyc = 0;
    always @(posedge clk) begin
        cyc <= cyc + 1;
        if (m_valid && m_ready) begin $fdisplay(fo, "%h", m_data); got = got + 1; end
        if (cyc > 200000) begin $fdisplay(fo, "TIMEOUT"); $fclose(fo); $finish; end
    end
    always @(negedge clk) m_ready <= ($random(seed) & 3) != 0;
    initial begin
        got = 0; seed = 7;
        if (!$value$plusargs("in=%s", fin) || !$value$plusargs("out=%s", fout)) begin $display("args"); $finish; end
        fd = $fopen(fin, "r"); fo = $fopen(fout, "w");
        rc = $fscanf(fd, "%d\n", n);
        repeat (3) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        for (i = 0; i < n; i = i + 1) begin
            rc = $fscanf(fd, "%h\n", b);
            s_valid = 1'b1; s_data = b;
            #1 while (!s_ready) begin @(negedge clk); #1; end
            @(negedge clk);
            s_valid = 1'b0;
        end
        while (got < n) @(negedge clk);
        $fclose(fo);
        $finish;
    end
endmodule
