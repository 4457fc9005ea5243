/* semihost.c - QEMU build: ARM semihosting console (SYS_WRITEC, SYS_GET_CMDLINE, SYS_EXIT). */
#include <stdint.h>
#include "app.h"

static int semi(int op, void *arg) {
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("svc 0x123456" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void con_putc(char c) { semi(0x03, &c); }

int semihost_cmdline(char *buf, uint32_t size) {
    uint32_t blk[2];
    blk[0] = (uint32_t)(uintptr_t)buf;
    blk[1] = size;
    if (semi(0x15, blk) != 0) return -1;
    return (int)blk[1];
}

void semihost_exit(int code) {
    uint32_t blk[2] = {0x20026u, (uint32_t)code}; /* ADP_Stopped_ApplicationExit */
    (void)blk;
    semi(0x18, (void *)(uintptr_t)0x20026u);
    for (;;) {}
}
