// A keyed 8-bit substitution on a valid/ready stream, one byte per item: m_data = S(s_data ^ key)
// with S(x) = x * x mod 2^8 XOR (x rotated left by 3). Test design of the CFGLUT5 realization
// (tests/test_cfglut_flow.py, whose Python model is the golden one).
module keysbox (
    input  wire       clk,
    input  wire       rst,
    (* PARAM *) input wire [7:0] key,
    input  wire       s_valid,
    output wire       s_ready,
    input  wire [7:0] s_data,
    output reg        m_valid,
    input  wire       m_ready,
    output reg  [7:0] m_data
);
    wire [7:0] x = s_data ^ key;
    wire [15:0] sq = x * x;
    wire [7:0] y = sq[7:0] ^ {x[4:0], x[7:5]};
    assign s_ready = !m_valid || m_ready;
    always @(posedge clk) begin
        if (rst) m_valid <= 1'b0;
        else if (s_valid && s_ready) begin
            m_valid <= 1'b1;
            m_data <= y;
        end else if (m_ready) m_valid <= 1'b0;
    end
endmodule
