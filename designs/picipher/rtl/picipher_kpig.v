// KPIG: key / public-message-number initialization generator.
// Builds the 16W-bit state before the initialization pi: Key || PMN || 0x01 || zeros
// (2W bytes; byte i is bits [8i+7:8i], so state word Wn = bytes nW/8.. little-endian at [Wn+W-1:Wn]).
// key_mn is Key || PMN written as a hex string: byte 0 of the key is key_mn[KM-1 -: 8].
// PMN_BITS: 32 for pi16, 128 for pi32/pi64.
// BUFFER_KEY = 0: key_mn (a parameter input) flows straight into the init logic, no register.
// BUFFER_KEY = 1: seed-style register buffer, loaded from key_mn while key_load is high.
module picipher_kpig #(
    parameter W          = 16,
    parameter KEY_BITS   = 96,
    parameter PMN_BITS   = 32,
    parameter BUFFER_KEY = 0
) (
    /* verilator lint_off UNUSEDSIGNAL */   // used only when BUFFER_KEY = 1
    input  wire                         clk,
    input  wire                         key_load,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [KEY_BITS+PMN_BITS-1:0] key_mn,
    output wire [16*W-1:0]              init_state
);
    localparam KM = KEY_BITS + PMN_BITS; // bits of Key || PMN
    localparam NB = KM / 8;              // bytes of Key || PMN

    wire [KM-1:0] km;
    generate
        if (BUFFER_KEY != 0) begin : g_buf
            reg [KM-1:0] key_buf;
            always @(posedge clk)
                if (key_load) key_buf <= key_mn;
            assign km = key_buf;
        end else begin : g_nobuf
            assign km = key_mn;
        end
    endgenerate

    genvar i;
    generate
        for (i = 0; i < 2 * W; i = i + 1) begin : g_byte
            if (i < NB) begin : g_km
                assign init_state[8*i+7:8*i] = km[KM-1-8*i -: 8];
            end else if (i == NB) begin : g_one
                assign init_state[8*i+7:8*i] = 8'h01;
            end else begin : g_zero
                assign init_state[8*i+7:8*i] = 8'h00;
            end
        end
    endgenerate
endmodule
