// Test bench of the PPE (Icarus Verilog, -g2005). Driven by designs/ppe/sim.py.
// Loads a program through the instruction write port and the coefficient image through the
// coefficient write port, starts it, feeds the input stream, collects the output stream.
// Optionally streams a second program into the instruction memory WHILE the first one runs and
// starts it after the first halts (dual-ported instruction memory).
//
// Plusargs (files are $readmemh text, one 64-bit hex word per line):
//   +prog=F +nprog=N          first program (N words, written at address 0..N-1)
//   +coef=F                   64 coefficient words
//   +in=F +nin=N              input words (+nin=0: none)
//   +prog2=F +nprog2=N +addr2=A   optional second program, written at A.. during the first run
//   +starts=F +nstarts=N      optional: N runs back to back (no second program), run k starting at
//                             the address on line k of F (hex); state, lc and b carry over
//   +out=F                    result file (format: docs/formats.md, "ppe-results")
//   +max=N                    cycle limit per run (default 200000)
//   +seed=S                   nonzero: random in_valid / out_ready stalls
// Parameter IMEM_DEPTH (-P tb_ppe.IMEM_DEPTH=...).
`timescale 1ns/1ps
module tb_ppe;
    parameter IMEM_DEPTH = 512;
    reg clk = 1'b0;
    always #5 clk = ~clk;

    reg rst = 1'b1;
    reg start = 1'b0;
    reg [9:0] start_addr = 10'd0;
    wire busy;
    reg iw_en = 1'b0;
    reg [9:0] iw_addr = 10'd0;
    reg [63:0] iw_data = 64'd0;
    reg cw_en = 1'b0;
    reg [5:0] cw_addr = 6'd0;
    reg [63:0] cw_data = 64'd0;
    reg [63:0] in_data = 64'd0;
    reg in_valid = 1'b0;
    wire in_ready;
    wire [63:0] out_data;
    wire out_valid;
    reg out_ready = 1'b1;

    ppe #(.IMEM_DEPTH(IMEM_DEPTH)) dut (
        .clk(clk), .rst(rst), .start(start), .start_addr(start_addr), .busy(busy),
        .iw_en(iw_en), .iw_addr(iw_addr), .iw_data(iw_data),
        .cw_en(cw_en), .cw_addr(cw_addr), .cw_data(cw_data),
        .in_data(in_data), .in_valid(in_valid), .in_ready(in_ready),
        .out_data(out_data), .out_valid(out_valid), .out_ready(out_ready));

    reg [63:0] prog  [0:1023];
    reg [63:0] prog2 [0:1023];
    reg [63:0] coef  [0:63];
    reg [63:0] inw   [0:65535];
    reg [9:0]  starts [0:65535];
    reg [1023:0] fprog, fprog2, fcoef, fin, fout, fstarts;
    integer nprog, nprog2, addr2, nin, maxc, seed, have2, nstarts, nruns;
    integer fo, i, cyc, ip, run, halted, streamed;
    integer rnd;

    task tick; begin @(posedge clk); #1; end endtask

    initial begin
        if (!$value$plusargs("prog=%s", fprog)) begin $display("tb_ppe: +prog missing"); $finish; end
        if (!$value$plusargs("nprog=%d", nprog)) nprog = 0;
        if (!$value$plusargs("coef=%s", fcoef)) begin $display("tb_ppe: +coef missing"); $finish; end
        if (!$value$plusargs("nin=%d", nin)) nin = 0;
        if (!$value$plusargs("out=%s", fout)) begin $display("tb_ppe: +out missing"); $finish; end
        if (!$value$plusargs("max=%d", maxc)) maxc = 200000;
        if (!$value$plusargs("seed=%d", seed)) seed = 0;
        have2 = $value$plusargs("prog2=%s", fprog2);
        if (!$value$plusargs("nprog2=%d", nprog2)) nprog2 = 0;
        if (!$value$plusargs("addr2=%d", addr2)) addr2 = 0;
        if (!$value$plusargs("nstarts=%d", nstarts)) nstarts = 0;
        if (nstarts > 0) begin
            if (have2) begin $display("tb_ppe: +starts and +prog2 exclude each other"); $finish; end
            if (!$value$plusargs("starts=%s", fstarts)) begin $display("tb_ppe: +starts missing"); $finish; end
            $readmemh(fstarts, starts, 0, nstarts - 1);
        end
        nruns = have2 ? 2 : (nstarts > 0 ? nstarts : 1);
        for (i = 0; i < 1024; i = i + 1) begin prog[i] = 64'd0; prog2[i] = 64'd0; end
        if (nprog > 0) $readmemh(fprog, prog, 0, nprog - 1);
        if (have2 && nprog2 > 0) $readmemh(fprog2, prog2, 0, nprog2 - 1);
        $readmemh(fcoef, coef, 0, 63);
        if (nin > 0) begin
            if (!$value$plusargs("in=%s", fin)) begin $display("tb_ppe: +in missing"); $finish; end
            $readmemh(fin, inw, 0, nin - 1);
        end
        // the register file starts at zero, as in the ISS (the RTL itself does not clear it)
        for (i = 0; i < 64; i = i + 1) dut.core.rf[i] = 64'd0;
        fo = $fopen(fout, "w");
        $fdisplay(fo, "ppe-results 1");

        tick; tick; rst = 1'b0;
        // load: the whole instruction memory (zeros = no-ops after the program), then coefficients
        for (i = 0; i < IMEM_DEPTH; i = i + 1) begin
            iw_en = 1'b1; iw_addr = i; iw_data = prog[i]; tick;
        end
        iw_en = 1'b0;
        for (i = 0; i < 64; i = i + 1) begin
            cw_en = 1'b1; cw_addr = i; cw_data = coef[i]; tick;
        end
        cw_en = 1'b0;

        ip = 0;
        streamed = 0;
        for (run = 0; run < nruns; run = run + 1) begin
            start_addr = (nstarts > 0) ? starts[run] : (run == 0) ? 10'd0 : addr2;
            start = 1'b1; tick; start = 1'b0;
            cyc = 0; halted = 0;
            while (busy && cyc < maxc) begin
                // drive this cycle's handshakes
                if (seed != 0) begin
                    rnd = $random(seed);
                    in_valid = (ip < nin) && (rnd[1:0] != 2'b00);
                    out_ready = (rnd[3:2] != 2'b00);
                end else begin
                    in_valid = (ip < nin);
                    out_ready = 1'b1;
                end
                in_data = (ip < nin) ? inw[ip] : 64'd0;
                // stream the second program in during the first run, one word per cycle
                if (run == 0 && have2 && streamed < nprog2) begin
                    iw_en = 1'b1; iw_addr = addr2 + streamed; iw_data = prog2[streamed];
                    streamed = streamed + 1;
                end else
                    iw_en = 1'b0;
                @(posedge clk);
                if (in_valid && in_ready) ip = ip + 1;
                if (out_valid && out_ready) $fdisplay(fo, "out %016h", out_data);
                #1;
                cyc = cyc + 1;
            end
            iw_en = 1'b0;
            halted = !busy;
            // a word still in the output buffer (not yet taken) is part of this run's output;
            // after a halt one more clock empties the buffer (the PE is idle, nothing executes)
            if (out_valid) $fdisplay(fo, "out %016h", out_data);
            out_ready = 1'b1; in_valid = 1'b0;
            if (halted) tick;
            // the second program must be complete before it starts
            while (halted && run == 0 && have2 && streamed < nprog2) begin
                iw_en = 1'b1; iw_addr = addr2 + streamed; iw_data = prog2[streamed];
                streamed = streamed + 1; tick;
            end
            iw_en = 1'b0;
            $fdisplay(fo, "run %0d cycles %0d halted %0d inputs %0d", run, cyc, halted, ip);
            if (!halted) run = nruns;
        end
        for (i = 0; i < 64; i = i + 1) $fdisplay(fo, "r %0d %016h", i, dut.core.rf[i]);
        for (i = 0; i < 64; i = i + 1) $fdisplay(fo, "c %0d %016h", i, dut.cm[i]);
        $fdisplay(fo, "lc %0d b %0d", dut.core.lc, dut.core.base);
        $fdisplay(fo, "end");
        $fclose(fo);
        $finish;
    end
endmodule
