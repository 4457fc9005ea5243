// pi16-Cipher v2 message processor without the initialization path (variant picipher_cis).
// The parameter input carries what initialization + the empty-AD step compute from Key || PMN
// (golden model: designs.picipher.cis_parameters(key, pmn).as_int()):
//   cis_param[255:0]   CIS, word Wn at [16n+15:16n]
//   cis_param[319:256] counter after the empty-AD step (ctr0 + 1)
//   cis_param[447:320] tag accumulator T[j] at [320+16j+15 : 320+16j]
// Same message interface as picipher_mp (designs/picipher/README.md). The key size does not matter here.
module picipher_cis_mp (
    input  wire         clk,
    input  wire         rst,
    (* PARAM *)
    input  wire [447:0] cis_param,
    input  wire         mode,
    input  wire [15:0]  s_data,
    input  wire         s_valid,
    output wire         s_ready,
    input  wire         s_last,
    input  wire [4:0]   s_bytes,
    output wire [15:0]  m_data,
    output wire         m_valid,
    input  wire         m_ready,
    output wire         m_last,
    output wire [4:0]   m_bytes,
    output wire [127:0] tag,
    input  wire [127:0] tag_in,
    output wire         done,
    output wire         tag_ok
);
    picipher_core #(.HAS_INIT(0)) core (
        .clk(clk), .rst(rst), .init_state(256'd0), .cis_p(cis_param[255:0]), .ctr_p(cis_param[319:256]),
        .tag_p(cis_param[447:320]), .mode(mode), .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready),
        .s_last(s_last), .s_bytes(s_bytes), .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready),
        .m_last(m_last), .m_bytes(m_bytes), .tag(tag), .tag_in(tag_in), .done(done), .tag_ok(tag_ok));
endmodule
