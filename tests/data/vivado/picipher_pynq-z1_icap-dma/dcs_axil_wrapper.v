// dcsflow: AXI4-Lite register wrapper of a pi16-Cipher message processor (picipher_mp) for the PYNQ-Z1
// block design (flow/boards/pynq-z1_bd.tcl). Key-independent ports only: the parameter input
// (key_mn) is tied to 0 -- the key lives in the TLUTs and is written through the AXI HWICAP.
// Registers (32-bit, byte offsets):
//   0x00 STATUS (R)   [0] SWORD free (the last word written was taken) [1] m_valid [2] m_last [3] done (sticky, cleared by a CTRL write)
//                     [4] tag_ok [12:8] m_bytes
//   0x04 CTRL   (W)   [0] mode (0 encrypt, 1 decrypt) [1] rst (core held in reset while 1)
//   0x08 SWORD  (W)   [15:0] s_data [20:16] s_bytes [24] s_last: offered (s_valid) until the core
//                     accepts it; write only while STATUS[0] = 1
//   0x0C MWORD  (R)   [15:0] m_data; reading it accepts the word (m_ready for one cycle)
//   0x10..0x1C TAG    (R)   tag[127:96], tag[95:64], tag[63:32], tag[31:0]
//   0x20..0x2C TAG_IN (W)   expected tag for decryption, same order
module dcs_axil_wrapper (
  input  wire        s_axi_aclk,
  input  wire        s_axi_aresetn,
  input  wire [5:0]  s_axi_awaddr,
  input  wire        s_axi_awvalid,
  output reg         s_axi_awready,
  input  wire [31:0] s_axi_wdata,
  input  wire [3:0]  s_axi_wstrb,
  input  wire        s_axi_wvalid,
  output reg         s_axi_wready,
  output wire [1:0]  s_axi_bresp,
  output reg         s_axi_bvalid,
  input  wire        s_axi_bready,
  input  wire [5:0]  s_axi_araddr,
  input  wire        s_axi_arvalid,
  output reg         s_axi_arready,
  output reg  [31:0] s_axi_rdata,
  output wire [1:0]  s_axi_rresp,
  output reg         s_axi_rvalid,
  input  wire        s_axi_rready
);
  assign s_axi_bresp = 2'b00;
  assign s_axi_rresp = 2'b00;

  reg         mode = 1'b0, core_rst = 1'b1, done_q = 1'b0;
  reg  [15:0] s_data = 16'd0;
  reg  [4:0]  s_bytes = 5'd0;
  reg         s_last = 1'b0, s_valid = 1'b0, m_ready = 1'b0;
  reg  [127:0] tag_in = 128'd0;
  wire        s_ready, m_valid, m_last, done, tag_ok;
  wire [15:0] m_data;
  wire [4:0]  m_bytes;
  wire [127:0] tag;

  picipher_mp core (
    .clk(s_axi_aclk), .rst(core_rst | ~s_axi_aresetn), .key_mn({128{1'b0}}), .key_load(1'b0), .mode(mode),
    .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready), .s_last(s_last), .s_bytes(s_bytes),
    .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready), .m_last(m_last), .m_bytes(m_bytes),
    .tag(tag), .tag_in(tag_in), .done(done), .tag_ok(tag_ok));

  // write channel: address and data accepted together, one response
  always @(posedge s_axi_aclk) begin
    if (s_valid && s_ready) s_valid <= 1'b0;
    if (done) done_q <= 1'b1;
    if (!s_axi_aresetn) begin
      s_axi_awready <= 1'b0; s_axi_wready <= 1'b0; s_axi_bvalid <= 1'b0;
      s_valid <= 1'b0; core_rst <= 1'b1; done_q <= 1'b0;
    end else begin
      s_axi_awready <= 1'b0; s_axi_wready <= 1'b0;
      if (s_axi_bvalid && s_axi_bready) s_axi_bvalid <= 1'b0;
      if (s_axi_awvalid && s_axi_wvalid && !s_axi_awready && !s_axi_bvalid) begin
        s_axi_awready <= 1'b1; s_axi_wready <= 1'b1; s_axi_bvalid <= 1'b1;
        case (s_axi_awaddr[5:2])
          4'h1: begin mode <= s_axi_wdata[0]; core_rst <= s_axi_wdata[1]; done_q <= 1'b0; end
          4'h2: begin s_data <= s_axi_wdata[15:0]; s_bytes <= s_axi_wdata[20:16]; s_last <= s_axi_wdata[24];
                      s_valid <= 1'b1; end
          4'h8: tag_in[127:96] <= s_axi_wdata;
          4'h9: tag_in[95:64]  <= s_axi_wdata;
          4'hA: tag_in[63:32]  <= s_axi_wdata;
          4'hB: tag_in[31:0]   <= s_axi_wdata;
          default: ;
        endcase
      end
    end
  end

  // read channel
  always @(posedge s_axi_aclk) begin
    m_ready <= 1'b0;
    if (!s_axi_aresetn) begin
      s_axi_arready <= 1'b0; s_axi_rvalid <= 1'b0; s_axi_rdata <= 32'd0;
    end else begin
      s_axi_arready <= 1'b0;
      if (s_axi_rvalid && s_axi_rready) s_axi_rvalid <= 1'b0;
      if (s_axi_arvalid && !s_axi_arready && !s_axi_rvalid) begin
        s_axi_arready <= 1'b1; s_axi_rvalid <= 1'b1;
        case (s_axi_araddr[5:2])
          4'h0: s_axi_rdata <= {19'd0, m_bytes, 3'd0, tag_ok, done_q, m_last, m_valid, ~s_valid};
          4'h3: begin s_axi_rdata <= {16'd0, m_data}; m_ready <= m_valid; end
          4'h4: s_axi_rdata <= tag[127:96];
          4'h5: s_axi_rdata <= tag[95:64];
          4'h6: s_axi_rdata <= tag[63:32];
          4'h7: s_axi_rdata <= tag[31:0];
          default: s_axi_rdata <= 32'd0;
        endcase
      end
    end
  end
endmodule
