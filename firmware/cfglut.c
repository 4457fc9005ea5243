/* cfglut.c - driver of the CFGLUT5 loader (see cfglut.h). */
#include "cfglut.h"

static uint32_t rd(cfglut_loader *l, uint32_t off) { l->reg_accesses++; return hal_rd(&l->bus, off); }
static void wr(cfglut_loader *l, uint32_t off, uint32_t v) { l->reg_accesses++; hal_wr(&l->bus, off, v); }

void cfglut_init(cfglut_loader *l, hal_bus bus, uint32_t chains, uint32_t chain_luts, uint32_t build_id,
                 uint32_t addr_width, uint32_t timeout) {
    uint32_t s = 32u * chain_luts, sl = 0;
    while ((1u << sl) < s) sl++;
    l->bus = bus;
    l->chains = chains;
    l->chain_luts = chain_luts;
    l->build_id = build_id;
    l->words = (chains + 31u) / 32u * s;
    l->stride_log2 = sl;
    l->addr_width = addr_width;
    l->timeout = timeout;
    l->reg_accesses = l->polls = 0;
}

int cfglut_check(cfglut_loader *l) {
    if (rd(l, CFGLUT_INFO) != (l->chain_luts << 16 | l->chains)) return CFGLUT_ERR_DESIGN;
    if (rd(l, CFGLUT_BUILD_ID) != l->build_id) return CFGLUT_ERR_DESIGN;
    if (rd(l, CFGLUT_WORDS) != l->words) return CFGLUT_ERR_DESIGN;
    if (rd(l, CFGLUT_STRIDE_LOG2) != l->stride_log2) return CFGLUT_ERR_DESIGN;
    return 0;
}

int cfglut_load(cfglut_loader *l, const uint32_t *w) {
    uint32_t s = 32u * l->chain_luts, window = 1u << (l->addr_width - 1u), irq, i, g = 0, t = 0, st;
    l->polls = 0;
    if (rd(l, CFGLUT_STATUS) & CFGLUT_BUSY) return CFGLUT_ERR_WRITE;
    irq = rd(l, CFGLUT_CONTROL) & CFGLUT_IRQ_EN;
    wr(l, CFGLUT_CONTROL, CFGLUT_CLEAR | irq);
    for (i = 0; i < l->words; i++) {
        wr(l, window + 4u * ((g << l->stride_log2) + t), w[i]);
        if (++t == s) { t = 0; g++; }
    }
    if (rd(l, CFGLUT_STATUS) & CFGLUT_ERROR) return CFGLUT_ERR_CONFIG;
    wr(l, CFGLUT_CONTROL, CFGLUT_START | irq);
    while (l->polls < l->timeout) {
        l->polls++;
        st = rd(l, CFGLUT_STATUS);
        if (st & CFGLUT_ERROR) return CFGLUT_ERR_CONFIG;
        if ((st & CFGLUT_DONE) && !(st & CFGLUT_BUSY)) return 0;
    }
    return CFGLUT_ERR_TIMEOUT;
}
