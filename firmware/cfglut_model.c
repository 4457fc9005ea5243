/* cfglut_model.c - C model of the CFGLUT5 loader's registers (see cfglut_model.h). */
#include "cfglut_model.h"
#include "cfglut.h"

int cfglut_model_init(cfglut_model *m, uint32_t chains, uint32_t chain_luts, uint32_t build_id, uint32_t addr_width) {
    uint32_t i;
    m->chains = chains;
    m->chain_luts = chain_luts;
    m->build_id = build_id;
    m->addr_width = addr_width;
    m->s = 32u * chain_luts;
    m->g = (chains + 31u) / 32u;
    for (m->sl = 0; (1u << m->sl) < m->s; m->sl++) {}
    if ((m->g << m->sl) > CFGLUT_MODEL_MAX_WORDS) return -1;
    for (i = 0; i < CFGLUT_MODEL_MAX_WORDS; i++) m->mem[i] = m->shifted[i] = 0;
    m->loads = m->left = 0;
    m->shift_polls = 3;
    m->busy = m->done = m->error = m->irq_en = m->fault_error = m->stuck = 0;
    return 0;
}

static uint32_t model_rd(void *ctx, uint32_t off) {
    cfglut_model *m = (cfglut_model *)ctx;
    uint32_t i;
    if (off >= (1u << (m->addr_width - 1u))) return 0;
    switch (off) {
    case CFGLUT_CONTROL: return m->irq_en ? CFGLUT_IRQ_EN : 0u;
    case CFGLUT_STATUS:
        if (m->busy && !m->stuck && --m->left == 0) {
            m->busy = 0;
            m->done = 1;
            m->loads++;
            for (i = 0; i < m->g * m->s; i++) m->shifted[i] = m->mem[((i / m->s) << m->sl) + i % m->s];
        }
        return (m->busy ? 9u : 0u) | (m->done ? CFGLUT_DONE : 0u) | (m->error ? CFGLUT_ERROR : 0u);
    case CFGLUT_INFO: return m->chain_luts << 16 | m->chains;
    case CFGLUT_BUILD_ID: return m->build_id;
    case CFGLUT_WORDS: return m->g * m->s;
    case CFGLUT_STRIDE_LOG2: return m->sl;
    default: return 0;
    }
}

static void model_wr(void *ctx, uint32_t off, uint32_t v) {
    cfglut_model *m = (cfglut_model *)ctx;
    if (off >= (1u << (m->addr_width - 1u))) {
        uint32_t idx = (off - (1u << (m->addr_width - 1u))) >> 2, g = idx >> m->sl, t = idx & ((1u << m->sl) - 1u);
        if (m->busy || g >= m->g || t >= m->s) m->error = 1;
        else m->mem[idx] = v;
        return;
    }
    if (off != CFGLUT_CONTROL) return;
    m->irq_en = (v & CFGLUT_IRQ_EN) != 0;
    if (v & CFGLUT_CLEAR) m->done = m->error = 0;
    if (v & CFGLUT_START) {
        if (m->busy || m->fault_error) m->error = 1;
        else { m->busy = 1; m->done = 0; m->left = m->shift_polls; }
    }
}

hal_bus cfglut_model_bus(cfglut_model *m) { return hal_bus_of(model_rd, model_wr, m); }
