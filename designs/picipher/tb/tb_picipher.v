// Test bench of picipher_mp (or picipher_cis_mp with -DCIS): runs many messages in one simulator run.
// Parameters W (word size 16/32/64), KEY_BITS, BUFFER_KEY as the design's.
// Plusargs: +in=STIMULUS +out=RESULTS [+stall=SEED] (random gaps on s_valid and m_ready)
//           [+scramble] (BUFFER_KEY=1: invert the parameter input after key_load, so only the buffer
//           holds the right Key||PMN).
// Stimulus (text, docs/formats.md "picipher-stim"): first line "picipher-stim 1 N" (version 1, N messages);
// per message a line
//   MODE NWORDS LASTBYTES PARAM_HEX TAGIN_HEX     (TAGIN: W bytes)
// followed by NWORDS lines of one 16-bit hex word each (byte 2k in the low byte).
// Results: first line "picipher-results 1", then per output word "W <hex> <m_last> <m_bytes>", per message "D <cycles> <tag> <tag_ok>",
// at the end "END"; "TIMEOUT <message>" if a message does not finish.
module tb;
    parameter W          = 16;
    parameter KEY_BITS   = 96;
    parameter BUFFER_KEY = 0;
    localparam LENW = W == 16 ? 5 : W == 32 ? 6 : 7;
    localparam TB = 8 * W;                  // tag bits
`ifdef CIS
    localparam PB = 24 * W + 64;
`else
    localparam PB = KEY_BITS + (W == 16 ? 32 : 128);
`endif
    localparam MAXW = 8192;
    localparam LIMIT = 200000;

    reg clk = 1'b0;
    always #5 clk = ~clk;

    reg          rst = 1'b1, key_load = 1'b0, mode = 1'b0;
    reg [PB-1:0] param = 0;
    reg [15:0]   s_data = 16'd0;
    reg          s_valid = 1'b0, s_last = 1'b0, m_ready = 1'b0;
    reg [LENW-1:0] s_bytes = 0;
    reg [TB-1:0] tag_in = 0;
    wire         s_ready, m_valid, m_last, done, tag_ok;
    wire [15:0]  m_data;
    wire [LENW-1:0] m_bytes;
    wire [TB-1:0] tag;

`ifdef CIS
    picipher_cis_mp #(.W(W)) dut (
        .clk(clk), .rst(rst), .cis_param(param), .mode(mode),
`else
    picipher_mp #(.W(W), .KEY_BITS(KEY_BITS), .BUFFER_KEY(BUFFER_KEY)) dut (
        .clk(clk), .rst(rst), .key_mn(param), .key_load(key_load), .mode(mode),
`endif
        .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready), .s_last(s_last), .s_bytes(s_bytes),
        .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready), .m_last(m_last), .m_bytes(m_bytes),
        .tag(tag), .tag_in(tag_in), .done(done), .tag_ok(tag_ok));

    reg [8*1024-1:0] fin, fout;
    reg [8*32-1:0]   magic;
    integer          version;
    integer fd, fo, rc, n, i, k, nwords, lastb, md, stall, seed, cyc, t0, ndone, fire, scramble;
    reg [PB-1:0]  pv;
    reg [TB-1:0]  tv;
    reg [15:0]    words [0:MAXW-1];

    initial cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

    initial ndone = 0;
    always @(posedge clk) begin
        if (m_valid && m_ready) $fdisplay(fo, "W %h %0d %0d", m_data, m_last, m_bytes);
        if (done) begin
            $fdisplay(fo, "D %0d %h %0d", cyc - t0, tag, tag_ok);
            ndone = ndone + 1;
        end
        if (!rst && cyc - t0 > LIMIT) begin
            $fdisplay(fo, "TIMEOUT %0d", i);
            $fclose(fo);
            $finish;
        end
    end

    always @(negedge clk) m_ready <= (stall == 0) ? 1'b1 : (($random(seed) & 3) != 0);

    initial begin
        t0 = 0;
        stall = 0;
        if (!$value$plusargs("in=%s", fin)) begin $display("missing +in="); $finish; end
        if (!$value$plusargs("out=%s", fout)) begin $display("missing +out="); $finish; end
        if ($value$plusargs("stall=%d", seed)) stall = 1;
        scramble = $test$plusargs("scramble");
        fd = $fopen(fin, "r");
        fo = $fopen(fout, "w");
        if (fd == 0 || fo == 0) begin $display("cannot open files"); $finish; end
        rc = $fscanf(fd, "%s %d %d\n", magic, version, n);
        $fdisplay(fo, "picipher-results 1");
        if (rc != 3 || magic != "picipher-stim" || version != 1) begin
            $fdisplay(fo, "BADSTIM -1"); $fclose(fo); $finish;
        end
        repeat (3) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        for (i = 0; i < n; i = i + 1) begin
            rc = $fscanf(fd, "%d %d %d %h %h\n", md, nwords, lastb, pv, tv);
            if (rc != 5 || nwords > MAXW) begin
                $fdisplay(fo, "BADSTIM %0d", i); $fclose(fo); $finish;
            end
            for (k = 0; k < nwords; k = k + 1) rc = $fscanf(fd, "%h\n", words[k]);
            @(negedge clk);
            param = pv; tag_in = tv; mode = md[0];
            if (BUFFER_KEY) begin
                key_load = 1'b1;
                @(negedge clk) key_load = 1'b0;
            end
            if (scramble) param = ~pv;
            t0 = cyc;
            k = 0;
            while (k < nwords) begin
                s_valid = (stall == 0) ? 1'b1 : (($random(seed) & 3) != 0);
                s_data  = words[k];
                s_last  = (k == nwords - 1);
                s_bytes = lastb;
                #1 fire = s_valid && s_ready;
                @(negedge clk);
                if (fire) k = k + 1;
            end
            s_valid = 1'b0; s_last = 1'b0;
            while (ndone <= i) @(negedge clk);
        end
        $fdisplay(fo, "END");
        $fclose(fo);
        $finish;
    end
endmodule
