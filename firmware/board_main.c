/* board_main.c - Zynq-7000 bare-metal demo: UART0 console (Cadence UART at 0xE0000000, as set up by
 * the FSBL), AXI HWICAP at HWICAP_BASE (-DHWICAP_BASE=... overrides; else SCG_GEN_HWICAP_BASE, which
 * `dcsflow codegen` takes from the board file of a `--backend vivado --board` build; else 0x40020000,
 * the PYNQ-Z1 block design's address), PCAP->ICAP switch through devcfg. Command "rekey <hex>" prints frames written,
 * ICAP words and cycles (app.c). */
#include <stdint.h>
#include "app.h"
#include "hwicap.h"
#include "scg_gen.h"

#if !defined(HWICAP_BASE) && defined(SCG_GEN_HWICAP_BASE)
#define HWICAP_BASE SCG_GEN_HWICAP_BASE
#endif
#ifndef HWICAP_BASE
#define HWICAP_BASE 0x40020000u
#endif
#define UART_BASE 0xE0000000u
#define UART_SR 0x2Cu
#define UART_FIFO 0x30u
#define UART_SR_TXFULL (1u << 4)
#define UART_SR_RXEMPTY (1u << 1)

static volatile uint32_t *uart(uint32_t off) { return (volatile uint32_t *)(uintptr_t)(UART_BASE + off); }

void con_putc(char c) {
    if (c == '\n') con_putc('\r');
    while (*uart(UART_SR) & UART_SR_TXFULL) {}
    *uart(UART_FIFO) = (uint32_t)(uint8_t)c;
}

static char getc_uart(void) {
    while (*uart(UART_SR) & UART_SR_RXEMPTY) {}
    return (char)*uart(UART_FIFO);
}

int main(void) {
    static char line[256];
    hal_bus bus = hal_mmio_bus(HWICAP_BASE), devcfg = hal_mmio_bus(ZYNQ_DEVCFG_BASE);
    hal_cycles_init();
    con_puts("dcsflow SCG firmware\n");
    app_init(bus, &devcfg);
    for (;;) {
        uint32_t n = 0;
        char c;
        con_puts("> ");
        while ((c = getc_uart()) != '\r' && c != '\n') {
            if (n + 1 < sizeof line) line[n++] = c;
            con_putc(c);
        }
        line[n] = 0;
        con_putc('\n');
        app_command(line);
        { uint32_t i; for (i = 0; i < sizeof line; i++) ((volatile char *)line)[i] = 0; } /* zeroize key text */
    }
}
