// PPE core: decode, register file, datapath, control (designs/ppe/README.md is the manual).
// Verilog-2005. One 64-bit VLIW word per cycle: a chained datapath slot
//   dest = SHIFT((A op1 B) op2 C, n)   on 4x16, 2x32 or 1x64 lanes
// and a control slot (jmp, djnz, setlc, setb, addb, halt). Register file 64 x 64 (3 read ports,
// 1 write port). The instruction and coefficient memories are outside (ppe.v: RAMs with host write
// ports; ppe_prog.v: contents as a parameter input): the core gives the next program counter and
// takes the word read at it one clock later (`ir`), and reads/writes the coefficient memory
// through two asynchronous read ports and one write port.
module ppe_core #(
    parameter IMEM_DEPTH = 512          // 1..1024 words
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,
    input  wire [9:0]  start_addr,
    output reg         busy,
    // instruction memory: ir = mem[pc_next] of the previous cycle (a synchronous read)
    output wire [9:0]  pc_next,
    input  wire [63:0] ir,
    // coefficient memory
    output wire [5:0]  cm_b_addr,
    input  wire [63:0] cm_b_data,
    output wire [5:0]  cm_c_addr,
    input  wire [63:0] cm_c_data,
    output wire        cm_we,
    output wire [5:0]  cm_waddr,
    output wire [63:0] cm_wdata,
    input  wire        cm_busy,         // the memory cannot take a write this cycle: stall
    // input stream
    input  wire [63:0] in_data,
    input  wire        in_valid,
    output wire        in_ready,
    // output stream (one-word buffer)
    output reg  [63:0] out_data,
    output reg         out_valid,
    input  wire        out_ready
);
    reg [9:0]  pc;

    // ---------------------------------------------------------------- decode
    wire [2:0] op1    = ir[2:0];
    wire [1:0] op2    = ir[4:3];
    wire [1:0] lanes  = ir[6:5];
    wire [1:0] sh     = ir[8:7];
    wire [5:0] n      = ir[14:9];
    wire       a_in   = ir[15];
    wire [5:0] ra     = ir[21:16];
    wire       b_c    = ir[22];
    wire       b_base = ir[23];
    wire [5:0] bi     = ir[29:24];
    wire       c_c    = ir[30];
    wire       c_base = ir[31];
    wire [5:0] ci     = ir[37:32];
    wire [1:0] dk     = ir[39:38];
    wire       d_base = ir[40];
    wire [5:0] di     = ir[46:41];
    wire [2:0] ctl    = ir[49:47];
    wire [9:0] imm    = ir[59:50];

    localparam DK_REG = 2'd1, DK_COEF = 2'd2, DK_OUT = 2'd3;
    localparam CTL_JMP = 3'd1, CTL_DJNZ = 3'd2, CTL_SETLC = 3'd3, CTL_SETB = 3'd4,
               CTL_ADDB = 3'd5, CTL_HALT = 3'd6;

    reg [9:0] lc;
    reg [5:0] base;

    // ---------------------------------------------------------------- stalls
    wire stall_out  = (dk == DK_OUT) && out_valid && !out_ready;
    wire stall_coef = (dk == DK_COEF) && cm_busy;
    wire stall_in   = a_in && !in_valid;
    wire exec       = busy && !stall_out && !stall_coef && !stall_in;
    assign in_ready = busy && a_in && !stall_out && !stall_coef;

    // ---------------------------------------------------------------- register file, coefficient operands
    reg [63:0] rf [0:63];
    wire [5:0] b_addr = bi + (b_base ? base : 6'd0);
    wire [5:0] c_addr = ci + (c_base ? base : 6'd0);
    wire [5:0] d_addr = di + (d_base ? base : 6'd0);
    wire [63:0] rf_a = rf[ra];
    wire [63:0] rf_b = rf[bi];
    wire [63:0] rf_c = rf[ci];
    assign cm_b_addr = b_addr;
    assign cm_c_addr = c_addr;
    wire [63:0] cm_b = cm_b_data;
    wire [63:0] cm_c = cm_c_data;
    wire [63:0] opa = a_in ? in_data : rf_a;
    wire [63:0] opb = b_c ? cm_b : rf_b;
    wire [63:0] opc = c_c ? cm_c : rf_c;

    // ---------------------------------------------------------------- datapath
    // lane-wise add/subtract: carries are cut at the lane boundaries (lanes 0: 16, 1: 32, else 64)
    function [63:0] addsub;
        input [63:0] x, y;
        input sub;
        input [1:0] lw;
        reg [63:0] yy;
        reg [16:0] s0, s1, s2, s3;
        reg c1, c2, c3;
        begin
            yy = sub ? ~y : y;
            s0 = {1'b0, x[15:0]}  + {1'b0, yy[15:0]}  + {16'd0, sub};
            c1 = (lw == 2'd0) ? sub : s0[16];
            s1 = {1'b0, x[31:16]} + {1'b0, yy[31:16]} + {16'd0, c1};
            c2 = (lw == 2'd0 || lw == 2'd1) ? sub : s1[16];
            s2 = {1'b0, x[47:32]} + {1'b0, yy[47:32]} + {16'd0, c2};
            c3 = (lw == 2'd0) ? sub : s2[16];
            s3 = {1'b0, x[63:48]} + {1'b0, yy[63:48]} + {16'd0, c3};
            addsub = {s3[15:0], s2[15:0], s1[15:0], s0[15:0]};
        end
    endfunction

    // lane-wise rotate left by r (r already reduced mod the lane width), six stages; only the
    // bits that wrap around a lane boundary depend on the lane width
    function [63:0] lrot;
        input [63:0] x;
        input [5:0] r;
        input [1:0] lw;
        reg [63:0] v, t;
        reg src;
        integer k, i, s;
        begin
            v = x;
            for (k = 0; k < 6; k = k + 1) begin
                s = 1 << k;
                for (i = 0; i < 64; i = i + 1) begin
                    if ((i % 64) >= s && (s >= 32 || (i % 32) >= s) && (s >= 16 || (i % 16) >= s))
                        src = v[i - s];
                    else if (s >= 32)
                        src = v[(i - s) & 63];
                    else if (s >= 16)
                        src = (lw == 2'd1) ? v[(i & 32) | ((i - s) & 31)] : v[(i - s) & 63];
                    else
                        src = (lw == 2'd0) ? v[(i & 48) | ((i - s) & 15)]
                            : (lw == 2'd1) ? v[(i & 32) | ((i - s) & 31)] : v[(i - s) & 63];
                    t[i] = r[k] ? src : v[i];
                end
                v = t;
            end
            lrot = v;
        end
    endfunction

    wire [5:0] wmask = (lanes == 2'd0) ? 6'd15 : (lanes == 2'd1) ? 6'd31 : 6'd63;
    wire [5:0] r_eff = ((sh == 2'd2) ? (6'd0 - n) : n) & wmask;    // shr = rotl by w-n, then mask

    // shift mask: bit j of a lane survives shl if j >= n, shr if j < w - n (shifted constants:
    // no comparators)
    wire [15:0] m16 = (sh == 2'd1) ? (16'hFFFF << n[3:0]) : (sh == 2'd2) ? (16'hFFFF >> n[3:0]) : 16'hFFFF;
    wire [31:0] m32 = (sh == 2'd1) ? (32'hFFFFFFFF << n[4:0]) : (sh == 2'd2) ? (32'hFFFFFFFF >> n[4:0])
                    : 32'hFFFFFFFF;
    wire [63:0] m64 = (sh == 2'd1) ? ({64{1'b1}} << n[5:0]) : (sh == 2'd2) ? ({64{1'b1}} >> n[5:0])
                    : {64{1'b1}};
    wire [63:0] smask = (lanes == 2'd0) ? {4{m16}} : (lanes == 2'd1) ? {2{m32}} : m64;

    // one adder per stage: op1 add/sub share it, op2 add/sub share the second
    wire [63:0] sum1 = addsub(opa, opb, op1 == 3'd1, lanes);
    reg  [63:0] t1;
    always @(*) begin
        case (op1)
            3'd2:    t1 = opa ^ opb;
            3'd3:    t1 = opa & opb;
            3'd4:    t1 = opa | opb;
            3'd5:    t1 = opa;
            3'd6:    t1 = opb;
            default: t1 = sum1;          // 0 add, 1 sub (7 reserved: add)
        endcase
    end
    wire [63:0] sum2 = addsub(t1, opc, op2 == 2'd2, lanes);
    wire [63:0] t2 = (op2 == 2'd0) ? t1 : (op2 == 2'd3) ? (t1 ^ opc) : sum2;
    wire [63:0] result = lrot(t2, r_eff, lanes) & smask;

    // ---------------------------------------------------------------- writes
    always @(posedge clk) begin
        if (exec && dk == DK_REG)
            rf[di] <= result;
    end
    assign cm_we    = exec && dk == DK_COEF;
    assign cm_waddr = d_addr;
    assign cm_wdata = result;

    always @(posedge clk) begin
        if (rst) begin
            out_valid <= 1'b0;
            out_data  <= 64'd0;
        end else if (exec && dk == DK_OUT) begin
            out_valid <= 1'b1;
            out_data  <= result;
        end else if (out_ready) begin
            out_valid <= 1'b0;
        end
    end

    // ---------------------------------------------------------------- control
    wire [9:0] lc_dec = lc - 10'd1;
    wire taken = (ctl == CTL_JMP) || (ctl == CTL_DJNZ && lc_dec != 10'd0);
    wire [9:0] pc_inc = (pc == IMEM_DEPTH - 1) ? 10'd0 : pc + 10'd1;
    assign pc_next = !busy ? (start ? start_addr : pc)
                   : !exec ? pc
                   : taken ? imm
                   : pc_inc;

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
            pc   <= 10'd0;
            lc   <= 10'd0;
            base <= 6'd0;
        end else begin
            pc <= pc_next;
            if (!busy) begin
                if (start)
                    busy <= 1'b1;
            end else if (exec) begin
                case (ctl)
                    CTL_DJNZ:  lc   <= lc_dec;
                    CTL_SETLC: lc   <= imm;
                    CTL_SETB:  base <= imm[5:0];
                    CTL_ADDB:  base <= base + imm[5:0];
                    CTL_HALT:  busy <= 1'b0;
                    default: ;
                endcase
            end
        end
    end
endmodule
