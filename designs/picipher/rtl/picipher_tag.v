// Tag accumulator: T[j] += rate word j (mod 2^16), j = 0..7 (rate words W0..W3, W8..W11).
// T[j] is at t[16j+15:16j]. clr sets T = 0, ld sets T = init (the picipher_cis_mp variant).
module picipher_tag (
    input  wire         clk,
    input  wire         clr,
    input  wire         ld,
    input  wire [127:0] init,
    input  wire         add,
    input  wire [127:0] rate,     // {W8..W11, W0..W3} of the pi state
    output reg  [127:0] t
);
    integer j;
    always @(posedge clk) begin
        if (clr)
            t <= 128'd0;
        else if (ld)
            t <= init;
        else if (add)
            for (j = 0; j < 8; j = j + 1)
                t[16*j +: 16] <= t[16*j +: 16] + rate[16*j +: 16];
    end
endmodule
