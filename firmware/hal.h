/* hal.h - register access layer of the firmware (C99).
 *
 * Every memory-mapped register access of the AXI HWICAP driver and of the Zynq devcfg (PCAP/ICAP
 * switch) goes through a hal_bus: on the board the accessors are volatile 32-bit loads and stores
 * at base + offset (hal_mmio_bus); on the host and in QEMU they call the C model of the AXI HWICAP
 * and configuration memory (icap_model.h), so the same driver code runs against both.
 */
#ifndef SCG_HAL_H
#define SCG_HAL_H
#include <stdint.h>

typedef struct hal_bus {
    uint32_t (*rd)(void *ctx, uint32_t offset);            /* 32-bit read of register at offset */
    void (*wr)(void *ctx, uint32_t offset, uint32_t value); /* 32-bit write */
    void *ctx;                                              /* base address or model instance */
} hal_bus;

static inline uint32_t hal_rd(const hal_bus *b, uint32_t off) { return b->rd(b->ctx, off); }
static inline void hal_wr(const hal_bus *b, uint32_t off, uint32_t v) { b->wr(b->ctx, off, v); }
/* A bus of the given read and write functions on ctx (a base address or a model instance). */
static inline hal_bus hal_bus_of(uint32_t (*rd)(void *, uint32_t), void (*wr)(void *, uint32_t, uint32_t),
                                 void *ctx) {
    hal_bus b;
    b.rd = rd;
    b.wr = wr;
    b.ctx = ctx;
    return b;
}

/* Memory-mapped bus at a physical base address (board). */
hal_bus hal_mmio_bus(uintptr_t base);

/* Cycle counter: PMCCNTR on the Cortex-A9 (enabled by hal_cycles_init), 0 on the host. */
void hal_cycles_init(void);
uint32_t hal_cycles(void);

#endif
