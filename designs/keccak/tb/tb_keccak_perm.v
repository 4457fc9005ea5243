// Test bench of keccak_round / keccak_rc alone: applies rounds ir0 .. ir0+nr-1 to a state, one
// round per clock through a 1600-bit register (as keccak_core does).
//
// Plusargs: +in=STIM +out=RESULT.
// Stimulus: first line "keccak-perm 1", then one record per line "S <400 hex> <ir0> <nr>" (the
// state as int.from_bytes(S, "little"): byte i of the FIPS 202 byte string is bits [8i +: 8]).
// Result: first line "keccak-perm-results 1", one line "R <400 hex>" per record, then "END".
`timescale 1ns/1ps
module tb;
    reg clk = 1'b0;
    reg [1599:0] st;
    reg [4:0] ir;
    wire [63:0] rc;
    wire [1599:0] nxt;

    keccak_rc rcs(.ir(ir), .rc(rc));
    keccak_round dut(.s_in(st), .rc(rc), .s_out(nxt));

    always #5 clk = ~clk;

    integer fin, fout, code, ir0, nr, k;
    reg [8*16-1:0] tag;
    reg [1599:0] value;
    reg [1023:0] fname;
    initial begin
        if (!$value$plusargs("in=%s", fname)) begin $display("tb: +in=FILE missing"); $finish; end
        fin = $fopen(fname, "r");
        if (!$value$plusargs("out=%s", fname)) begin $display("tb: +out=FILE missing"); $finish; end
        fout = $fopen(fname, "w");
        $fdisplay(fout, "keccak-perm-results 1");
        code = $fscanf(fin, "%s %d\n", tag, k);
        while (!$feof(fin)) begin
            code = $fscanf(fin, "%s %h %d %d\n", tag, value, ir0, nr);
            if (code == 4 && tag == "S") begin
                @(negedge clk);
                st = value;
                ir = ir0;
                for (k = 0; k < nr; k = k + 1) begin
                    @(posedge clk) st <= nxt;
                    @(negedge clk) ir = ir + 1;
                end
                $fdisplay(fout, "R %0400h", st);
            end
        end
        $fdisplay(fout, "END");
        $fclose(fout);
        $finish;
    end
endmodule
