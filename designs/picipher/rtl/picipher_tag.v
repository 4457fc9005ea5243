// Tag accumulator: T[j] += rate word j (mod 2^W), j = 0..7 (rate words W0..W3, W8..W11), W = word size.
// T[j] is at t[Wj+W-1:Wj]. clr sets T = 0, ld sets T = init (the picipher_cis_mp variant).
module picipher_tag #(
    parameter W = 16
) (
    input  wire           clk,
    input  wire           clr,
    input  wire           ld,
    input  wire [8*W-1:0] init,
    input  wire           add,
    input  wire [8*W-1:0] rate,     // {W8..W11, W0..W3} of the pi state
    output reg  [8*W-1:0] t
);
    integer j;
    always @(posedge clk) begin
        if (clr)
            t <= {8*W{1'b0}};
        else if (ld)
            t <= init;
        else if (add)
            for (j = 0; j < 8; j = j + 1)
                t[W*j +: W] <= t[W*j +: W] + rate[W*j +: W];
    end
endmodule
