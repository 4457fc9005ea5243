// PPE: ARX programmable processing element with its memories (designs/ppe/README.md).
// Instruction memory IMEM_DEPTH x 64 (a block RAM) with a host write port usable while a program
// runs; coefficient memory 64 x 64 (distributed RAM, two read ports, one write port shared by the
// host and the program: the host wins, the program's write stalls).
module ppe #(
    parameter IMEM_DEPTH = 512          // 1..1024 words
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,
    input  wire [9:0]  start_addr,
    output wire        busy,
    // host: instruction write port
    input  wire        iw_en,
    input  wire [9:0]  iw_addr,
    input  wire [63:0] iw_data,
    // host: coefficient write port
    input  wire        cw_en,
    input  wire [5:0]  cw_addr,
    input  wire [63:0] cw_data,
    // input stream
    input  wire [63:0] in_data,
    input  wire        in_valid,
    output wire        in_ready,
    // output stream (one-word buffer)
    output wire [63:0] out_data,
    output wire        out_valid,
    input  wire        out_ready
);
    reg [63:0] imem [0:IMEM_DEPTH-1];
    reg [63:0] ir;
    wire [9:0] pc_next;
    always @(posedge clk) begin
        if (iw_en && iw_addr < IMEM_DEPTH)
            imem[iw_addr] <= iw_data;
    end
    always @(posedge clk) begin
        ir <= imem[pc_next];
    end

    reg [63:0] cm [0:63];
    wire [5:0] cm_b_addr, cm_c_addr, cm_waddr;
    wire [63:0] cm_wdata;
    wire cm_we;
    always @(posedge clk) begin
        if (cw_en)
            cm[cw_addr] <= cw_data;
        else if (cm_we)
            cm[cm_waddr] <= cm_wdata;
    end

    ppe_core #(.IMEM_DEPTH(IMEM_DEPTH)) core (
        .clk(clk), .rst(rst), .start(start), .start_addr(start_addr), .busy(busy),
        .pc_next(pc_next), .ir(ir),
        .cm_b_addr(cm_b_addr), .cm_b_data(cm[cm_b_addr]), .cm_c_addr(cm_c_addr), .cm_c_data(cm[cm_c_addr]),
        .cm_we(cm_we), .cm_waddr(cm_waddr), .cm_wdata(cm_wdata), .cm_busy(cw_en),
        .in_data(in_data), .in_valid(in_valid), .in_ready(in_ready),
        .out_data(out_data), .out_valid(out_valid), .out_ready(out_ready));
endmodule
