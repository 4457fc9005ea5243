// MPCU: message-processor control unit (the FSM). Sequences, per message:
//   [HAS_INIT] init: state <= Key||PMN||01||0, pi -> CIS, ctr <= ctr0 (W4..W7)
//   [HAS_INIT] empty-AD step: triplex on the padding block 01 00..00 with ctr0+1, then CIS <= pi(CIS ^ T)
//   message blocks j = 1..: triplex with ctr+j (state <= CIS ^ ctr, pi, rate XOR, pi, T += rate);
//   a final full block (W bytes = 2^(LENW-1)) is followed by the extra padding block (no output);
//   finish: wait until the output buffer is empty, pulse done.
// Without HAS_INIT, CIS / ctr / T come from the parameter input and the first two phases are skipped.
module picipher_mpcu #(
    parameter LENW     = 5,        // bits of a byte count 0..W (a block is W = 2^(LENW-1) bytes)
    parameter HAS_INIT = 1
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       s_valid,     // a message is waiting (starts the processor when idle)
    input  wire       in_full,     // input block buffer holds a block
    input  wire       in_last,     // ... and it is the message's final block
    input  wire [LENW-1:0] in_bytes,    // ... with this many bytes (0..W)
    input  wire       out_busy,    // output buffer still holds words to send
    input  wire       pi_busy,
    output reg        start,       // one cycle: a message starts (clear T, sample mode)
    output reg        pi_load,
    output reg        pi_start,
    output reg  [1:0] alu_op,
    output reg        blk_sel,     // ALU block = input buffer (1) or the empty padding block (0)
    output reg        in_consume,
    output reg        out_write,
    output reg        cis_we,
    output reg        ctr_ld0,     // ctr <= W4..W7 of the pi state (ctr0)
    output reg        ctr_inc,
    output reg        tag_add,
    output reg        finish       // one cycle: message done
);
    localparam S_IDLE = 3'd0, S_INIT = 3'd1, S_TXL = 3'd2, S_PI1 = 3'd3, S_PI2 = 3'd4,
               S_UPD  = 3'd5, S_PI3  = 3'd6, S_FIN = 3'd7;
    localparam K_AD = 2'd0, K_MSG = 2'd1, K_PAD = 2'd2;
    localparam OP_INIT = 2'd0, OP_CTR = 2'd1, OP_MSG = 2'd2, OP_UPD = 2'd3;
    localparam [LENW-1:0] BLOCK = {1'b1, {(LENW-1){1'b0}}};   // bytes of a block: W = 2^(LENW-1)

    reg [2:0] state;
    reg [1:0] kind;        // kind of the block in the current triplex call
    reg       blk_last;    // the message block being processed is the final one
    reg       blk_full;    // ... and is a full block (the padding block follows)

    always @* begin
        start = 1'b0; pi_load = 1'b0; pi_start = 1'b0; alu_op = OP_CTR; blk_sel = 1'b0;
        in_consume = 1'b0; out_write = 1'b0; cis_we = 1'b0; ctr_ld0 = 1'b0; ctr_inc = 1'b0;
        tag_add = 1'b0; finish = 1'b0;
        case (state)
            S_IDLE: if (s_valid) begin
                start = 1'b1;
                if (HAS_INIT) begin
                    alu_op = OP_INIT; pi_load = 1'b1; pi_start = 1'b1;
                end
            end
            S_INIT: if (!pi_busy) begin
                cis_we = 1'b1; ctr_ld0 = 1'b1;
            end
            S_TXL: if (kind != K_MSG || in_full) begin
                alu_op = OP_CTR; pi_load = 1'b1; pi_start = 1'b1; ctr_inc = 1'b1;
            end
            S_PI1: if (!pi_busy && !(kind == K_MSG && out_busy)) begin
                alu_op = OP_MSG; blk_sel = (kind == K_MSG); pi_load = 1'b1; pi_start = 1'b1;
                if (kind == K_MSG) begin
                    in_consume = 1'b1; out_write = 1'b1;
                end
            end
            S_PI2: if (!pi_busy) tag_add = 1'b1;
            S_UPD: begin
                alu_op = OP_UPD; pi_load = 1'b1; pi_start = 1'b1;
            end
            S_PI3: if (!pi_busy) cis_we = 1'b1;
            S_FIN: if (!out_busy) finish = 1'b1;
            default: ;
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            state <= S_IDLE; kind <= K_MSG; blk_last <= 1'b0; blk_full <= 1'b0;
        end else begin
            case (state)
                S_IDLE: if (s_valid) begin
                    kind  <= HAS_INIT ? K_AD : K_MSG;
                    state <= HAS_INIT ? S_INIT : S_TXL;
                end
                S_INIT: if (!pi_busy) state <= S_TXL;
                S_TXL:  if (kind != K_MSG || in_full) state <= S_PI1;
                S_PI1:  if (!pi_busy && !(kind == K_MSG && out_busy)) begin
                    if (kind == K_MSG) begin
                        blk_last <= in_last;
                        blk_full <= (in_bytes >= BLOCK);
                    end
                    state <= S_PI2;
                end
                S_PI2: if (!pi_busy) begin
                    case (kind)
                        K_AD:  state <= S_UPD;
                        K_PAD: state <= S_FIN;
                        default: begin
                            if (!blk_last) state <= S_TXL;
                            else if (blk_full) begin
                                kind <= K_PAD; state <= S_TXL;
                            end else state <= S_FIN;
                        end
                    endcase
                end
                S_UPD: state <= S_PI3;
                S_PI3: if (!pi_busy) begin
                    kind <= K_MSG; state <= S_TXL;
                end
                S_FIN: if (!out_busy) state <= S_IDLE;
                default: state <= S_IDLE;
            endcase
        end
    end
endmodule
