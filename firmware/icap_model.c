/* icap_model.c - C model of the AXI HWICAP and configuration memory (see icap_model.h). */
#include "icap_model.h"
#include <string.h>

#define SYNC_WORD 0xAA995566u
#define R_CRC 0
#define R_FAR 1
#define R_FDRI 2
#define R_FDRO 3
#define R_CMD 4
#define R_CTL0 5
#define R_MASK 6
#define R_STAT 7
#define R_IDCODE 12
#define CMD_RCRC 7
#define CMD_DESYNC 13

/* ---- device table ------------------------------------------------------------------------- */
int model_device_load(model_device *d, const uint32_t *t) {
    uint32_t i, c, k = 2, base = 0;
    d->idcode = t[0];
    d->n_rows = t[1];
    if (d->n_rows > MODEL_MAX_ROWS) return -1;
    for (i = 0; i < d->n_rows; i++) {
        d->row_key[i] = t[k++];
        d->row_ncols[i] = t[k++];
        d->row_counts[i] = &t[k];
        d->row_base[i] = base;
        for (c = 0; c < d->row_ncols[i]; c++) base += t[k + c];
        k += d->row_ncols[i];
    }
    d->n_frames = base;
    return base <= MODEL_MAX_FRAMES ? 0 : -1;
}

int32_t model_far_index(const model_device *d, uint32_t far) {
    uint32_t key = (((far >> 23) & 7u) << 16) | (((far >> 22) & 1u) << 8) | ((far >> 17) & 0x1Fu);
    uint32_t col = (far >> 7) & 0x3FFu, minor = far & 0x7Fu, i, c, idx;
    if (far >> 26) return -1;
    for (i = 0; i < d->n_rows; i++) {
        if (d->row_key[i] != key) continue;
        if (col >= d->row_ncols[i] || minor >= d->row_counts[i][col]) return -1;
        idx = d->row_base[i];
        for (c = 0; c < col; c++) idx += d->row_counts[i][c];
        return (int32_t)(idx + minor);
    }
    return -1;
}

uint32_t model_far_of_index(const model_device *d, uint32_t idx) {
    uint32_t i, c;
    for (i = 0; i + 1 < d->n_rows && idx >= d->row_base[i + 1]; i++) {}
    idx -= d->row_base[i];
    for (c = 0; c < d->row_ncols[i] && idx >= d->row_counts[i][c]; c++) idx -= d->row_counts[i][c];
    return ((d->row_key[i] >> 16) << 23) | (((d->row_key[i] >> 8) & 1u) << 22) |
           ((d->row_key[i] & 0x1Fu) << 17) | (c << 7) | idx;
}

int model_row_end(const model_device *d, uint32_t idx) {
    uint32_t i;
    for (i = 0; i < d->n_rows; i++) {
        uint32_t end = (i + 1 < d->n_rows) ? d->row_base[i + 1] : d->n_frames;
        if (idx + 1 == end) return 1;
    }
    return 0;
}

/* ---- CRC: CRC-32C over 37 bits per register write (data then 5-bit address, LSB first) ------ */
uint32_t model_crc_update(uint32_t crc, uint32_t reg, uint32_t word) {
    uint64_t val = ((uint64_t)(reg & 0x1Fu) << 32) | word;
    int i;
    for (i = 0; i < 37; i++) {
        if ((val ^ crc) & 1u) crc = (crc >> 1) ^ 0x82F63B78u;
        else crc >>= 1;
        val >>= 1;
    }
    return crc;
}

/* ---- configuration logic ------------------------------------------------------------------ */
static void drop_pipeline(cfg_model *m) {
    m->has_held = 0;
    m->skip = 0;
    m->buf_len = 0;
}

static void desync(cfg_model *m) {
    m->synced = 0;
    m->in_error = 0;
    m->remaining = 0;
    m->reg = -1;
    m->last_reg = -1;
    drop_pipeline(m);
}

static void out_clear(cfg_model *m) {
    m->seg_head = m->seg_n = 0;
    m->ring_head = m->ring_len = 0;
    m->out_len = 0;
}

void cfg_reset(cfg_model *m) {
    int32_t f;
    m->synced = m->in_error = m->id_error = m->crc_error = 0;
    m->crc = 0;
    m->far = 0;
    f = model_far_index(m->dev, 0);
    m->fidx = f;
    memset(m->regs, 0, sizeof m->regs);
    m->n_xregs = 0;
    m->remaining = 0;
    m->reg = m->last_reg = -1;
    drop_pipeline(m);
    out_clear(m);
    memset(&m->st, 0, sizeof m->st);
}

void cfg_init(cfg_model *m, const model_device *dev, uint32_t *mem, uint8_t *written) {
    m->dev = dev;
    m->mem = mem;
    m->written = written;
    cfg_reset(m);
}

void cfg_abort(cfg_model *m) {
    desync(m);
    out_clear(m);
}

uint32_t cfg_stat(const cfg_model *m) {
    return (m->crc_error ? 1u : 0u) | (1u << 4) | (1u << 14) | (m->id_error ? (1u << 15) : 0u);
}

static uint32_t reg_get(const cfg_model *m, uint32_t reg) {
    uint32_t i;
    if (reg < 64) return m->regs[reg];
    for (i = 0; i < m->n_xregs; i++)
        if (m->xreg_key[i] == reg) return m->xreg_val[i];
    return 0;
}

static void reg_set(cfg_model *m, uint32_t reg, uint32_t v) {
    uint32_t i;
    if (reg < 64) { m->regs[reg] = v; return; }
    for (i = 0; i < m->n_xregs; i++)
        if (m->xreg_key[i] == reg) { m->xreg_val[i] = v; return; }
    if (m->n_xregs < MODEL_XREGS) {
        m->xreg_key[m->n_xregs] = reg;
        m->xreg_val[m->n_xregs++] = v;
    }
}

static void advance(cfg_model *m) {
    uint32_t f = (uint32_t)m->fidx;
    if (f + 1 < m->dev->n_frames) {
        m->fidx = (int32_t)(f + 1);
        m->far = model_far_of_index(m->dev, f + 1);
    } else {
        m->fidx = -1;
    }
}

static void complete(cfg_model *m, const uint32_t *frame) {
    if (m->has_held) {
        if (m->fidx < 0) {
            m->st.dropped_frames++;
        } else {
            uint32_t f = (uint32_t)m->fidx;
            memcpy(&m->mem[f * FRAME_WORDS], m->held, sizeof m->held);
            m->written[f] = 1;
            m->st.frames_written++;
            if (model_row_end(m->dev, f)) m->skip = 2;
            advance(m);
        }
    }
    if (m->skip) {
        m->skip--;
        m->has_held = 0;
        m->st.pad_frames++;
    } else {
        memcpy(m->held, frame, sizeof m->held);
        m->has_held = 1;
    }
}

static void fdri_word(cfg_model *m, uint32_t w) {
    m->crc = model_crc_update(m->crc, R_FDRI, w);
    m->buf[m->buf_len++] = w;
    if (m->buf_len == FRAME_WORDS) {
        uint32_t tmp[FRAME_WORDS];
        memcpy(tmp, m->buf, sizeof tmp);
        m->buf_len = 0;
        complete(m, tmp);
    }
}

static void write_reg(cfg_model *m, uint32_t reg, uint32_t w) {
    if (m->in_error && !(reg == R_CMD && w == CMD_DESYNC)) {
        m->st.ignored_writes++;
        return;
    }
    if (reg == R_CRC) {
        m->st.crc_checks++;
        if (w != m->crc) {
            m->crc_error = 1;
            m->st.crc_errors++;
        }
        m->crc = 0;
        return;
    }
    m->crc = model_crc_update(m->crc, reg, w);
    if (reg == R_CMD) {
        drop_pipeline(m);
        reg_set(m, reg, w);
        if (w == CMD_RCRC) m->crc = 0;
        else if (w == CMD_DESYNC) desync(m);
        return;
    }
    if (reg == R_FAR) {
        drop_pipeline(m);
        m->far = w;
        m->fidx = model_far_index(m->dev, w);
    } else if (reg == R_CTL0) {
        uint32_t mask = reg_get(m, R_MASK);
        w = (reg_get(m, R_CTL0) & ~mask) | (w & mask);
    } else if (reg == R_IDCODE) {
        if ((w ^ m->dev->idcode) & 0x0FFFFFFFu) {
            m->id_error = 1;
            m->in_error = 1;
        }
    }
    reg_set(m, reg, w);
}

static void queue_rep(cfg_model *m, uint32_t value, uint32_t count) {
    model_seg *s;
    if (!count) return;
    if (m->seg_n == MODEL_OUT_SEGS) { m->st.out_overflows++; return; }
    s = &m->segs[(m->seg_head + m->seg_n++) % MODEL_OUT_SEGS];
    s->kind = 0; s->value = value; s->count = count; s->pos = 0;
    m->out_len += count;
}

static void queue_data(cfg_model *m, const uint32_t *w, uint32_t count) {
    model_seg *s;
    uint32_t i;
    if (!count) return;
    if (m->seg_n == MODEL_OUT_SEGS || m->ring_len + count > MODEL_OUT_WORDS) {
        m->st.out_overflows++;
        return;
    }
    s = &m->segs[(m->seg_head + m->seg_n++) % MODEL_OUT_SEGS];
    s->kind = 1; s->count = count; s->pos = (m->ring_head + m->ring_len) % MODEL_OUT_WORDS; s->value = 0;
    for (i = 0; i < count; i++) m->ring[(s->pos + i) % MODEL_OUT_WORDS] = w[i];
    m->ring_len += count;
    m->out_len += count;
}

static void do_read(cfg_model *m, uint32_t reg, uint32_t cnt) {
    uint32_t v;
    if (reg == R_FDRO) {
        uint32_t dummy = cnt < FRAME_WORDS ? cnt : FRAME_WORDS;
        m->st.readback_words += cnt;
        queue_rep(m, 0, dummy);
        cnt -= dummy;
        while (cnt > 0 && m->fidx >= 0) {
            uint32_t k = cnt < FRAME_WORDS ? cnt : FRAME_WORDS;
            queue_data(m, &m->mem[(uint32_t)m->fidx * FRAME_WORDS], k);
            advance(m);
            cnt -= k;
        }
        queue_rep(m, 0, cnt);
        return;
    }
    if (reg == R_STAT) v = cfg_stat(m);
    else if (reg == R_IDCODE) v = m->dev->idcode;
    else if (reg == R_FAR) v = m->far;
    else if (reg == R_CRC) v = m->crc;
    else v = reg_get(m, reg);
    queue_rep(m, v, cnt);
}

void cfg_write_words(cfg_model *m, const uint32_t *words, uint32_t n) {
    uint32_t i = 0;
    m->st.words += n;
    while (i < n) {
        uint32_t w, typ, op, reg, cnt;
        if (m->remaining) {
            if (m->reg == R_FDRI) {
                uint32_t k = m->remaining < n - i ? m->remaining : n - i, j;
                if (!m->in_error) {
                    for (j = 0; j < k; j++) fdri_word(m, words[i + j]);
                } else {
                    m->st.ignored_writes += k;
                }
                i += k;
                m->remaining -= k;
            } else {
                m->remaining--;
                w = words[i++];
                write_reg(m, (uint32_t)m->reg, w);
            }
            continue;
        }
        w = words[i++];
        if (!m->synced) {
            if (w == SYNC_WORD) m->synced = 1;
            continue;
        }
        typ = w >> 29;
        if (typ == 1) {
            op = (w >> 27) & 3u;
            reg = (w >> 13) & 0x3FFFu;
            cnt = w & 0x7FFu;
            m->last_reg = (int32_t)reg;
        } else if (typ == 2 && m->last_reg >= 0) {
            op = (w >> 27) & 3u;
            reg = (uint32_t)m->last_reg;
            cnt = w & 0x7FFFFFFu;
        } else {
            m->st.bad_headers++;
            continue;
        }
        if (op == 2) {
            m->st.packets++;
            m->reg = (int32_t)reg;
            m->remaining = cnt;
        } else if (op == 1) {
            m->st.packets++;
            if (cnt) do_read(m, reg, cnt);
        }
    }
}

uint32_t cfg_read_words(cfg_model *m, uint32_t *out, uint32_t n) {
    uint32_t got = 0;
    while (n > 0 && m->seg_n) {
        model_seg *s = &m->segs[m->seg_head];
        uint32_t take = s->count < n ? s->count : n, j;
        for (j = 0; j < take; j++) {
            if (s->kind == 0) {
                out[got + j] = s->value;
            } else {
                out[got + j] = m->ring[m->ring_head];
                m->ring_head = (m->ring_head + 1) % MODEL_OUT_WORDS;
                m->ring_len--;
            }
        }
        s->count -= take;
        if (!s->count) {
            m->seg_head = (m->seg_head + 1) % MODEL_OUT_SEGS;
            m->seg_n--;
        }
        got += take;
        n -= take;
        m->out_len -= take;
    }
    return got;
}

/* ---- AXI HWICAP register model --------------------------------------------------------------- */
#define GIER 0x1C
#define IPISR 0x20
#define IPIER 0x28
#define WF 0x100
#define RF 0x104
#define SZ 0x108
#define CR 0x10C
#define SR 0x110
#define WFV 0x114
#define RFO 0x118

int hwm_reg_slot(uint32_t off) {
    static const uint32_t offs[10] = {GIER, IPISR, IPIER, WF, RF, SZ, CR, SR, WFV, RFO};
    int i;
    for (i = 0; i < 10; i++)
        if (offs[i] == off) return i;
    return -1;
}

static void update_irq(hwicap_model *h) {
    uint32_t s = 0;
    if (h->wlen >= h->wdepth / 2) s |= 1u;
    if (h->rlen >= h->rdepth / 2) s |= 2u;
    if (!h->wlen) s |= 4u;
    if (h->rlen >= h->rdepth) s |= 8u;
    h->ipisr |= s;
}

static void reset_regs(hwicap_model *h) {
    h->wlen = 0;
    h->rhead = h->rlen = 0;
    h->sz = h->gier = h->ipier = h->ipisr = 0;
    h->pending = 0;
    update_irq(h);
}

void hwm_reset_counters(hwicap_model *h) { memset(&h->st, 0, sizeof h->st); }

void hwm_init(hwicap_model *h, cfg_model *emu, uint32_t wdepth, uint32_t rdepth) {
    h->emu = emu;
    h->wdepth = wdepth > HWICAP_WF_DEPTH_MAX ? HWICAP_WF_DEPTH_MAX : (wdepth ? wdepth : 1);
    h->rdepth = rdepth > HWICAP_RF_DEPTH_MAX ? HWICAP_RF_DEPTH_MAX : (rdepth ? rdepth : 1);
    h->devcfg_ctrl = 0x0C006000u | (1u << 27); /* reset value with PCAP_PR set: PCAP selected */
    h->fault_stall_words = h->fault_abort_words = 0;
    h->stalled = 0;
    hwm_reset_counters(h);
    reset_regs(h);
}

static void fill(hwicap_model *h) {
    if (h->pending) {
        uint32_t k = h->pending, room = h->rdepth - h->rlen, i, tmp[64];
        if (room < k) k = room;
        if (h->emu->out_len < k) k = h->emu->out_len;
        h->pending -= k;
        h->st.icap_words_out += k;
        while (k) {
            uint32_t c = k < 64 ? k : 64;
            cfg_read_words(h->emu, tmp, c);
            for (i = 0; i < c; i++) h->rfifo[(h->rhead + h->rlen++) % h->rdepth] = tmp[i];
            k -= c;
        }
    }
}

static void check_stall(hwicap_model *h) {
    if (h->fault_stall_words && h->st.icap_words_in >= h->fault_stall_words) h->stalled = 1;
}

static void control(hwicap_model *h, uint32_t v) {
    if (v & 8u) {
        reset_regs(h);
        h->stalled = 0;
        h->fault_stall_words = 0;
    }
    if (v & 16u) {
        h->wlen = 0;
        h->rhead = h->rlen = 0;
        h->pending = 0;
        cfg_abort(h->emu);
        h->stalled = 0;
        h->fault_stall_words = 0;
    }
    if (v & 4u) {
        h->wlen = 0;
        h->rhead = h->rlen = 0;
    }
    check_stall(h);
    if ((v & 1u) && h->wlen && !h->stalled) {
        uint32_t n = h->wlen, a = h->fault_abort_words, before = h->st.icap_words_in;
        h->wlen = 0;
        h->st.icap_words_in += n;
        if (a && before < a && before + n >= a) {
            uint32_t first = a - before;
            cfg_write_words(h->emu, h->wfifo, first);
            cfg_abort(h->emu);
            cfg_write_words(h->emu, h->wfifo + first, n - first);
            h->fault_abort_words = 0;
        } else {
            cfg_write_words(h->emu, h->wfifo, n);
        }
    }
    if (v & 2u) {
        h->pending = h->sz;
        fill(h);
    }
}

void hwm_write(hwicap_model *h, uint32_t off, uint32_t v) {
    int s = hwm_reg_slot(off);
    if (s < 0) { h->st.bad_accesses++; return; }
    h->st.reg_writes++;
    h->st.writes_by_reg[s]++;
    if (off == WF) {
        if (h->wlen < h->wdepth) h->wfifo[h->wlen++] = v;
        else h->st.wf_overflows++;
    } else if (off == CR) {
        control(h, v);
    } else if (off == SZ) {
        h->sz = v;
    } else if (off == GIER) {
        h->gier = v & 0x80000000u;
    } else if (off == IPIER) {
        h->ipier = v & 0xFu;
    } else if (off == IPISR) {
        h->ipisr ^= v & 0xFu;
        return;
    }
    update_irq(h);
}

uint32_t hwm_read(hwicap_model *h, uint32_t off) {
    int s = hwm_reg_slot(off);
    uint32_t v;
    if (s < 0) { h->st.bad_accesses++; return 0; }
    h->st.reg_reads++;
    h->st.reads_by_reg[s]++;
    switch (off) {
    case RF:
        if (h->rlen) {
            v = h->rfifo[h->rhead];
            h->rhead = (h->rhead + 1) % h->rdepth;
            h->rlen--;
        } else {
            h->st.rf_underflows++;
            v = 0;
        }
        fill(h);
        update_irq(h);
        return v;
    case WFV:
        check_stall(h);
        return h->stalled ? 0 : h->wdepth - h->wlen;
    case RFO:
        fill(h);
        return h->rlen;
    case SR:
        fill(h);
        v = (1u << 2) | (1u << 5);
        v |= h->pending ? (1u << 6) : 1u;
        if (h->emu->synced) v |= 1u << 7;
        if (!(h->emu->in_error || h->emu->crc_error)) v |= 1u << 8;
        return v;
    case CR:
        fill(h);
        check_stall(h);
        return (h->pending ? 2u : 0u) | ((h->stalled && h->wlen) ? 1u : 0u);
    case SZ: return h->sz;
    case GIER: return h->gier;
    case IPIER: return h->ipier;
    case IPISR: return h->ipisr;
    default: return 0;
    }
}

static uint32_t bus_rd(void *c, uint32_t off) { return hwm_read((hwicap_model *)c, off); }
static void bus_wr(void *c, uint32_t off, uint32_t v) { hwm_write((hwicap_model *)c, off, v); }
static uint32_t dc_rd(void *c, uint32_t off) { return off == 0 ? ((hwicap_model *)c)->devcfg_ctrl : 0; }
static void dc_wr(void *c, uint32_t off, uint32_t v) { if (off == 0) ((hwicap_model *)c)->devcfg_ctrl = v; }

hal_bus hwm_bus(hwicap_model *h) { return hal_bus_of(bus_rd, bus_wr, h); }

hal_bus hwm_devcfg_bus(hwicap_model *h) { return hal_bus_of(dc_rd, dc_wr, h); }
