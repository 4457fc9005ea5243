/* board_main.c - Zynq-7000 bare-metal demo: UART0 console (Cadence UART at 0xE0000000, as set up by
 * the FSBL), AXI HWICAP at HWICAP_BASE (-DHWICAP_BASE=... overrides; else SCG_GEN_HWICAP_BASE, which
 * `dcsflow codegen` takes from the board file of a `--backend vivado --board` build; else 0x40020000,
 * the PYNQ-Z1 block design's address), PCAP->ICAP switch through devcfg. Command "rekey <hex>" prints frames written,
 * ICAP words and cycles (app.c). */
#include <stdint.h>
#include "app.h"
#include "scg_gen.h"
#ifdef SCG_GEN_CFGLUT
/* a cfglut5 build: the CFGLUT5 loader's AXI4-Lite base (-DCFGLUT_BASE=...; default the first PL GP0 slot) */
#ifndef CFGLUT_BASE
#define CFGLUT_BASE 0x43C00000u
#endif
#else
#include "hwicap.h"
#endif

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

/* Whether the characters typed so far (line[0..n-1]) are "rekey" and a blank: what follows is the
 * key, echoed as '*' (a terminal log or a bystander sees its length, not its digits). */
static int key_follows(const char *line, uint32_t n) {
    static const char cmd[] = "rekey";
    uint32_t i = 0, j;
    while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
    for (j = 0; cmd[j]; j++, i++)
        if (i >= n || line[i] != cmd[j]) return 0;
    return i < n && (line[i] == ' ' || line[i] == '\t');
}

int main(void) {
    /* room for "rekey", a blank, "0x" and every hex digit of the value, or a bench line (app.h) */
    static char line[APP_LINE_MAX];
#ifdef SCG_GEN_CFGLUT
    hal_bus bus = hal_mmio_bus(CFGLUT_BASE);
    hal_cycles_init();
    con_puts("dcsflow SCG firmware (CFGLUT5 loader)\n");
    app_init(bus, 0);
#else
    hal_bus bus = hal_mmio_bus(HWICAP_BASE), devcfg = hal_mmio_bus(ZYNQ_DEVCFG_BASE);
    hal_cycles_init();
    con_puts("dcsflow SCG firmware\n");
    app_init(bus, &devcfg);
#endif
    for (;;) {
        uint32_t n = 0, lost = 0;
        char c;
        con_puts("> ");
        while ((c = getc_uart()) != '\r' && c != '\n') {
            int secret = key_follows(line, n);
            if (n + 1 < sizeof line) line[n++] = c;
            else lost = 1;
            con_putc(secret && c != ' ' && c != '\t' ? '*' : c);
        }
        line[n] = 0;
        con_putc('\n');
        if (lost) {                                   /* a cut line would be a different key: refused */
            con_puts("error: line longer than "); con_dec((uint32_t)sizeof line - 1u); con_puts(" characters\n");
        } else {
            app_command(line);
        }
        { uint32_t i; for (i = 0; i < sizeof line; i++) ((volatile char *)line)[i] = 0; } /* zeroize key text */
    }
}
