// Test bench of gf128_mul: single products and GHASH chains (SP 800-38D §6.4: Y_i = (Y_{i-1} ^ X_i)·H)
// through the one combinational multiplier.
//
// Plusargs: +in=STIM +out=RESULT. Macro MUL: the module under test (gf128_mul, the default, or
// gf128_mulh; both have ports x, y, z).
// Stimulus: first line "gf128-mul 1", then lines of three fields "<tag> <hex> <hex>" (hex values as
// big-endian integers of the 16-byte blocks, see rtl/gf128_mul.v):
//   "M <x> <y>"  one product; result line "R <x·y>"
//   "G <h> <n>"  a GHASH over the next n lines "B <block> 0" (n in hex); result line "R <Y_n>"
// Result: first line "gf128-mul-results 1", one "R <32 hex>" per M or G record, then "END".
`timescale 1ns/1ps
module tb;
    reg  [127:0] a, b;
    wire [127:0] p;

`ifndef MUL
`define MUL gf128_mul
`endif
    `MUL dut(.x(a), .y(b), .z(p));

    integer fin, fout, code, k, n;
    reg [8*16-1:0] tag;
    reg [127:0] v1, v2, h, acc;
    reg [1023:0] fname;
    initial begin
        if (!$value$plusargs("in=%s", fname)) begin $display("tb: +in=FILE missing"); $finish; end
        fin = $fopen(fname, "r");
        if (fin == 0) begin $display("tb: cannot open the stimulus file"); $finish; end
        if (!$value$plusargs("out=%s", fname)) begin $display("tb: +out=FILE missing"); $finish; end
        fout = $fopen(fname, "w");
        $fdisplay(fout, "gf128-mul-results 1");
        code = $fscanf(fin, "%s %d\n", tag, k);
        while (!$feof(fin)) begin
            code = $fscanf(fin, "%s %h %h\n", tag, v1, v2);
            if (code == 3 && tag == "M") begin
                a = v1; b = v2;
                #1 $fdisplay(fout, "R %032h", p);
            end else if (code == 3 && tag == "G") begin
                h = v1; n = v2; acc = 128'd0;
                for (k = 0; k < n; k = k + 1) begin
                    code = $fscanf(fin, "%s %h %h\n", tag, v1, v2);
                    if (code != 3 || tag != "B") begin
                        $fdisplay(fout, "BAD"); $fclose(fout); $finish;
                    end
                    a = acc ^ v1; b = h;
                    #1 acc = p;
                end
                $fdisplay(fout, "R %032h", acc);
            end else if (code > 0) begin
                $fdisplay(fout, "BAD"); $fclose(fout); $finish;
            end
        end
        $fdisplay(fout, "END");
        $fclose(fout);
        $finish;
    end
endmodule
