// Test bench of ppe_prog (the program as a parameter input), Icarus -g2005. Driven by
// designs/ppe/sim.py (simulate(..., top="ppe_prog")). Same plusargs and result file as tb_ppe.v
// ("ppe-results 1"), one run, no second program.
// PROGRAM_RAM = 0: the program and coefficients are driven on the wide parameter ports before reset.
// PROGRAM_RAM = 1: they are written through the narrow port carried on the same ports.
// With -DNETLIST the DUT is a netlist (e.g. specialized): the final-state dump is left out.
`timescale 1ns/1ps
module tb_ppe_prog;
    parameter IMEM_DEPTH = 256;
    parameter PROGRAM_RAM = 0;
    reg clk = 1'b0;
    always #5 clk = ~clk;
    reg rst = 1'b1;
    reg start = 1'b0;
    wire busy;
    reg [IMEM_DEPTH*64-1:0] prog_image = 0;
    reg [64*64-1:0] coef_image = 0;
    reg [63:0] in_data = 64'd0;
    reg in_valid = 1'b0;
    wire in_ready;
    wire [63:0] out_data;
    wire out_valid;
    reg out_ready = 1'b1;

`ifdef NETLIST
    ppe_prog dut (
`else
    ppe_prog #(.IMEM_DEPTH(IMEM_DEPTH), .PROGRAM_RAM(PROGRAM_RAM)) dut (
`endif
        .clk(clk), .rst(rst), .start(start), .start_addr(10'd0), .busy(busy),
        .prog_image(prog_image), .coef_image(coef_image),
        .in_data(in_data), .in_valid(in_valid), .in_ready(in_ready),
        .out_data(out_data), .out_valid(out_valid), .out_ready(out_ready));

    reg [63:0] prog [0:1023];
    reg [63:0] coef [0:63];
    reg [63:0] inw  [0:65535];
    reg [1023:0] fprog, fcoef, fin, fout;
    integer nprog, nin, maxc, seed, fo, i, cyc, ip, halted, rnd;

    task tick; begin @(posedge clk); #1; end endtask

    initial begin
        if (!$value$plusargs("prog=%s", fprog)) begin $display("tb_ppe_prog: +prog missing"); $finish; end
        if (!$value$plusargs("nprog=%d", nprog)) nprog = 0;
        if (!$value$plusargs("coef=%s", fcoef)) begin $display("tb_ppe_prog: +coef missing"); $finish; end
        if (!$value$plusargs("nin=%d", nin)) nin = 0;
        if (!$value$plusargs("out=%s", fout)) begin $display("tb_ppe_prog: +out missing"); $finish; end
        if (!$value$plusargs("max=%d", maxc)) maxc = 200000;
        if (!$value$plusargs("seed=%d", seed)) seed = 0;
        for (i = 0; i < 1024; i = i + 1) prog[i] = 64'd0;
        if (nprog > 0) $readmemh(fprog, prog, 0, nprog - 1);
        $readmemh(fcoef, coef, 0, 63);
        if (nin > 0) begin
            if (!$value$plusargs("in=%s", fin)) begin $display("tb_ppe_prog: +in missing"); $finish; end
            $readmemh(fin, inw, 0, nin - 1);
        end
`ifndef NETLIST
        for (i = 0; i < 64; i = i + 1) dut.core.rf[i] = 64'd0;
`endif
        fo = $fopen(fout, "w");
        $fdisplay(fo, "ppe-results 1");
        if (PROGRAM_RAM == 0) begin
            for (i = 0; i < IMEM_DEPTH; i = i + 1) prog_image[64*i +: 64] = prog[i];
            for (i = 0; i < 64; i = i + 1) coef_image[64*i +: 64] = coef[i];
        end
        tick; tick; rst = 1'b0;
        if (PROGRAM_RAM != 0) begin
            for (i = 0; i < IMEM_DEPTH; i = i + 1) begin
                prog_image = 0; prog_image[0] = 1'b1; prog_image[10:1] = i; prog_image[74:11] = prog[i]; tick;
            end
            prog_image = 0;
            for (i = 0; i < 64; i = i + 1) begin
                coef_image = 0; coef_image[0] = 1'b1; coef_image[6:1] = i; coef_image[70:7] = coef[i]; tick;
            end
            coef_image = 0;
        end
        ip = 0;
        start = 1'b1; tick; start = 1'b0;
        cyc = 0;
        while (busy && cyc < maxc) begin
            if (seed != 0) begin
                rnd = $random(seed);
                in_valid = (ip < nin) && (rnd[1:0] != 2'b00);
                out_ready = (rnd[3:2] != 2'b00);
            end else begin
                in_valid = (ip < nin);
                out_ready = 1'b1;
            end
            in_data = (ip < nin) ? inw[ip] : 64'd0;
            @(posedge clk);
            if (in_valid && in_ready) ip = ip + 1;
            if (out_valid && out_ready) $fdisplay(fo, "out %016h", out_data);
            #1;
            cyc = cyc + 1;
        end
        halted = !busy;
        if (out_valid) $fdisplay(fo, "out %016h", out_data);
        $fdisplay(fo, "run 0 cycles %0d halted %0d inputs %0d", cyc, halted, ip);
`ifndef NETLIST
        for (i = 0; i < 64; i = i + 1) $fdisplay(fo, "r %0d %016h", i, dut.core.rf[i]);
        $fdisplay(fo, "lc %0d b %0d", dut.core.lc, dut.core.base);
`endif
        $fdisplay(fo, "end");
        $fclose(fo);
        $finish;
    end
endmodule
