/* hal.c - memory-mapped register bus and cycle counter (see hal.h). */
#include "hal.h"

static uint32_t mmio_rd(void *ctx, uint32_t off) {
    return *(volatile uint32_t *)((uintptr_t)ctx + off);
}
static void mmio_wr(void *ctx, uint32_t off, uint32_t v) {
    *(volatile uint32_t *)((uintptr_t)ctx + off) = v;
}

hal_bus hal_mmio_bus(uintptr_t base) { return hal_bus_of(mmio_rd, mmio_wr, (void *)base); }

#if defined(__arm__)
void hal_cycles_init(void) {
    uint32_t v;
    /* PMCR: E (enable) | C (reset cycle counter); PMCNTENSET bit 31: cycle counter (ARM ARM v7 C12) */
    __asm__ volatile("mrc p15, 0, %0, c9, c12, 0" : "=r"(v));
    v |= 1u | 4u;
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 0" ::"r"(v));
    v = 0x80000000u;
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 1" ::"r"(v));
}
uint32_t hal_cycles(void) {
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c9, c13, 0" : "=r"(v));
    return v;
}
#else
void hal_cycles_init(void) {}
uint32_t hal_cycles(void) { return 0; }
#endif
