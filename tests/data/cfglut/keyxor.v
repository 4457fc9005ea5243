// m_data = (s_data ^ key) rotated left by 3, one byte per valid/ready item: every TLUT entry is a key bit
// or its complement (a PPC without AND nodes), so the chain words can be computed in the loader's logic.
// Test design of the CFGLUT5 realization (tests/test_cfglut_flow.py).
module keyxor (
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
    assign s_ready = !m_valid || m_ready;
    always @(posedge clk) begin
        if (rst) m_valid <= 1'b0;
        else if (s_valid && s_ready) begin
            m_valid <= 1'b1;
            m_data <= {x[4:0], x[7:5]};
        end else if (m_ready) m_valid <= 1'b0;
    end
endmodule
