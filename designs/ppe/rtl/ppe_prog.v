// PPE with the program as a parameter input (designs/ppe/README.md, "Program as parameter input").
//
// PROGRAM_RAM = 0 (the TLUT build): the instruction memory and the coefficient memory are the
// contents of two wide (* PARAM *) ports, read through multiplexers that the flow folds into TLUTs:
// a new program is a rekey. The coefficient memory is read-only here (a program's c[] write is
// dropped), so programs that write c[] (BMW-512's plan) need the RAM variant.
// PROGRAM_RAM = 1 (the conventional build): the same ports carry a narrow write port into
// distributed RAMs instead:
//   prog_image[0] write enable, prog_image[10:1] address, prog_image[74:11] instruction word;
//   coef_image[0] write enable, coef_image[6:1] address, coef_image[70:7] coefficient word (other bits unused).
module ppe_prog #(
    parameter IMEM_DEPTH = 256,         // a power of two, 2..1024
    parameter PROGRAM_RAM = 0
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,
    input  wire [9:0]  start_addr,
    output wire        busy,
    // word a at bits [64a+63:64a]
    (* PARAM *) input wire [IMEM_DEPTH*64-1:0] prog_image,
    (* PARAM *) input wire [64*64-1:0]         coef_image,
    input  wire [63:0] in_data,
    input  wire        in_valid,
    output wire        in_ready,
    output wire [63:0] out_data,
    output wire        out_valid,
    input  wire        out_ready
);
    localparam AW = (IMEM_DEPTH <= 2) ? 1 : $clog2(IMEM_DEPTH);

    wire [9:0]  pc_next;
    reg  [63:0] ir;
    wire [5:0]  cm_b_addr, cm_c_addr, cm_waddr;
    wire [63:0] cm_b_data, cm_c_data, cm_wdata;
    wire        cm_we;
    wire [AW-1:0] fetch = pc_next[AW-1:0];
    // word indices as {index, 6'd0}, not index*64: a $mul here would look like a multiplier with a
    // parameter operand to the flow's front end

    generate
        if (PROGRAM_RAM == 0) begin : rom
            always @(posedge clk) begin
                ir <= prog_image[{fetch, 6'd0} +: 64];
            end
            assign cm_b_data = coef_image[{cm_b_addr, 6'd0} +: 64];
            assign cm_c_data = coef_image[{cm_c_addr, 6'd0} +: 64];
        end else begin : ram
            (* ram_style = "distributed" *) reg [63:0] imem [0:IMEM_DEPTH-1];
            reg [63:0] cm [0:63];
            always @(posedge clk) begin
                if (prog_image[0])
                    imem[prog_image[AW:1]] <= prog_image[74:11];
            end
            always @(posedge clk) begin
                ir <= imem[fetch];
            end
            always @(posedge clk) begin
                if (coef_image[0])
                    cm[coef_image[6:1]] <= coef_image[70:7];
                else if (cm_we)
                    cm[cm_waddr] <= cm_wdata;
            end
            assign cm_b_data = cm[cm_b_addr];
            assign cm_c_data = cm[cm_c_addr];
        end
    endgenerate

    ppe_core #(.IMEM_DEPTH(IMEM_DEPTH)) core (
        .clk(clk), .rst(rst), .start(start), .start_addr(start_addr), .busy(busy),
        .pc_next(pc_next), .ir(ir),
        .cm_b_addr(cm_b_addr), .cm_b_data(cm_b_data), .cm_c_addr(cm_c_addr), .cm_c_data(cm_c_data),
        .cm_we(cm_we), .cm_waddr(cm_waddr), .cm_wdata(cm_wdata),
        .cm_busy(PROGRAM_RAM != 0 && coef_image[0]),
        .in_data(in_data), .in_valid(in_valid), .in_ready(in_ready),
        .out_data(out_data), .out_valid(out_valid), .out_ready(out_ready));
endmodule
