// pi-Cipher v2 message processor without the initialization path (variant picipher_cis).
// W = word size 16, 32 or 64 (LENW derived from it, do not set). The parameter input carries what
// initialization + the empty-AD step compute from Key || PMN (golden model:
// designs.picipher.cipher(W).cis_parameters(key, pmn).as_int()), 24W+64 bits (448 for W = 16):
//   cis_param[16W-1:0]         CIS, word Wn at [Wn+W-1:Wn]
//   cis_param[16W+63:16W]      counter after the empty-AD step (ctr0 + 1)
//   cis_param[24W+63:16W+64]   tag accumulator T[j] at [16W+64+Wj+W-1 : 16W+64+Wj]
// Same message interface as picipher_mp (designs/picipher/README.md). The key size does not matter here.
module picipher_cis_mp #(
    parameter W    = 16,
    parameter LENW = W == 16 ? 5 : W == 32 ? 6 : 7
) (
    input  wire            clk,
    input  wire            rst,
    (* PARAM *)
    input  wire [24*W+63:0] cis_param,
    input  wire            mode,
    input  wire [15:0]     s_data,
    input  wire            s_valid,
    output wire            s_ready,
    input  wire            s_last,
    input  wire [LENW-1:0] s_bytes,
    output wire [15:0]     m_data,
    output wire            m_valid,
    input  wire            m_ready,
    output wire            m_last,
    output wire [LENW-1:0] m_bytes,
    output wire [8*W-1:0]  tag,
    input  wire [8*W-1:0]  tag_in,
    output wire            done,
    output wire            tag_ok
);
    picipher_core #(.W(W), .LENW(LENW), .HAS_INIT(0)) core (
        .clk(clk), .rst(rst), .init_state({16*W{1'b0}}), .cis_p(cis_param[16*W-1:0]),
        .ctr_p(cis_param[16*W+63:16*W]), .tag_p(cis_param[24*W+63:16*W+64]), .mode(mode),
        .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready),
        .s_last(s_last), .s_bytes(s_bytes), .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready),
        .m_last(m_last), .m_bytes(m_bytes), .tag(tag), .tag_in(tag_in), .done(done), .tag_ok(tag_ok));
endmodule
