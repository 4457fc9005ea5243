/* icapdma_model.c - C model of the ICAPE2 stream controller (see icapdma_model.h). */
#include "icapdma_model.h"
#include "icapdma.h"
#include "ug470.h"

static const uint32_t finish[7] = {UG470_DUMMY, UG470_SYNC, UG470_NOOP, UG470_T1W(UG470_CMD, 1), UG470_DESYNC,
                                   UG470_NOOP, UG470_NOOP};
#define DESYNC_FROM 3u

void idm_init(icapdma_model *m, cfg_model *emu, const uint32_t *mem, uint32_t mem_phys, uint32_t mem_words,
              uint32_t build_id, uint32_t rekey_words) {
    m->emu = emu;
    m->mem = mem;
    m->mem_phys = mem_phys;
    m->mem_words = mem_words;
    m->build_id = build_id;
    m->rekey_words = rekey_words;
    m->busy_polls = 2;
    m->irq_en = m->status = m->address = m->length = m->words_sent = m->left = m->starts = m->port_words = 0;
    m->synced = m->have_last = m->last_cmd = m->cur_cmd = 0;
    m->remaining = 0;
    m->fault_bus_word = m->fault_abort_word = -1;
    m->stuck = 0;
}

/* payload words the header w opens if it were sent now (0 for anything else) */
static uint32_t payload(const icapdma_model *m, uint32_t w) {
    if (!m->synced || m->remaining || ((w >> 27) & 3u) != 2u) return 0;
    if ((w >> 29) == 1u) return w & 0x7FFu;
    if ((w >> 29) == 2u && m->have_last) return w & 0x7FFFFFFu;
    return 0;
}

static void send(icapdma_model *m, uint32_t w, int counted) {
    cfg_write_words(m->emu, &w, 1);
    m->port_words++;
    if (counted) m->words_sent++;
    if (m->remaining) {
        m->remaining--;
        if (m->cur_cmd && w == UG470_DESYNC) m->synced = m->have_last = 0, m->remaining = 0;
    } else if (!m->synced) {
        m->synced = w == UG470_SYNC;
    } else if ((w >> 29) == 1u) {
        m->have_last = 1;
        m->last_cmd = ((w >> 13) & 0x3FFFu) == UG470_CMD;
        if (((w >> 27) & 3u) == 2u) m->cur_cmd = m->last_cmd, m->remaining = w & 0x7FFu;
    } else if ((w >> 29) == 2u && m->have_last && ((w >> 27) & 3u) == 2u) {
        m->cur_cmd = m->last_cmd;
        m->remaining = w & 0x7FFFFFFu;
    }
}

static int word_at(const icapdma_model *m, uint32_t i, uint32_t *w) {
    uint32_t a = m->address + 4u * i, k;
    if ((int32_t)i == m->fault_bus_word || a < m->mem_phys) return 0;
    k = (a - m->mem_phys) / 4u;
    if (k >= m->mem_words) return 0;
    *w = m->mem[k];
    return 1;
}

static uint32_t run(icapdma_model *m) {
    uint32_t err = 0, i, w = 0, k;
    for (i = 0; i < m->length; i++) {
        int boundary = !m->synced || !m->remaining;
        if (m->fault_abort_word >= 0 && i >= (uint32_t)m->fault_abort_word && boundary) { err |= ICAPDMA_ERR_ABORTED; break; }
        if (!word_at(m, i, &w)) { err |= ICAPDMA_ERR_BUS; break; }
        if (payload(m, w) > m->length - i - 1u) { err |= ICAPDMA_ERR_PACKET; break; }
        send(m, w, 1);
    }
    if (m->synced && m->remaining) {          /* a cut packet: ICAP abort, then sync and DESYNC */
        cfg_abort(m->emu);
        m->synced = 0;
        m->remaining = 0;
        m->status |= ICAPDMA_PORT_ABORTED;
        for (k = 0; k < 7u; k++) send(m, finish[k], 0);
    } else if (m->synced) {
        m->status |= ICAPDMA_DESYNC_ADDED;
        for (k = DESYNC_FROM; k < 7u; k++) send(m, finish[k], 0);
    }
    return err;
}

static void start(icapdma_model *m) {
    if ((m->status & ICAPDMA_BUSY) || !m->length || (m->address & 63u) ||
        (m->rekey_words && m->length != m->rekey_words)) {
        m->status |= ICAPDMA_ERR_START;
        return;
    }
    m->starts++;
    m->status = ICAPDMA_BUSY;
    m->words_sent = 0;
    m->left = m->busy_polls;
    m->status |= run(m);
    m->fault_bus_word = m->fault_abort_word = -1;
}

uint32_t idm_read(icapdma_model *m, uint32_t off) {
    uint32_t s;
    switch (off) {
    case ICAPDMA_CONTROL: return m->irq_en ? ICAPDMA_IRQ_ENABLE : 0u;
    case ICAPDMA_STATUS:
        if ((m->status & ICAPDMA_BUSY) && !m->stuck && --m->left == 0)
            m->status = (m->status & ~ICAPDMA_BUSY) | ICAPDMA_DONE;
        s = m->status | (m->synced ? ICAPDMA_SYNCED : 0u);
        return s | ((s & ICAPDMA_ERR_BITS) ? ICAPDMA_ERROR : 0u);
    case ICAPDMA_WORDS_SENT: return m->words_sent;
    case ICAPDMA_BUILD_ID: return m->build_id;
    case ICAPDMA_REKEY_WORDS: return m->rekey_words;
    case ICAPDMA_MAGIC: return ICAPDMA_MAGIC_VALUE;
    case ICAPDMA_INFO: return ICAPDMA_VERSION;
    default: return 0;
    }
}

void idm_write(icapdma_model *m, uint32_t off, uint32_t v) {
    int busy = (m->status & ICAPDMA_BUSY) != 0;
    if (off == ICAPDMA_ADDRESS && !busy) m->address = v;
    else if (off == ICAPDMA_LENGTH && !busy) m->length = v & 0xFFFFFFu;
    else if (off == ICAPDMA_CONTROL) {
        m->irq_en = (v & ICAPDMA_IRQ_ENABLE) != 0;
        if (v & ICAPDMA_CLEAR) m->status &= ~(ICAPDMA_DONE | ICAPDMA_PORT_ABORTED | ICAPDMA_DESYNC_ADDED | ICAPDMA_ERR_BITS);
        if (v & ICAPDMA_START) start(m);
    }
}

static uint32_t bus_rd(void *ctx, uint32_t off) { return idm_read((icapdma_model *)ctx, off); }
static void bus_wr(void *ctx, uint32_t off, uint32_t v) { idm_write((icapdma_model *)ctx, off, v); }

hal_bus idm_bus(icapdma_model *m) { return hal_bus_of(bus_rd, bus_wr, m); }
