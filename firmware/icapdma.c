/* icapdma.c - driver of the ICAPE2 stream controller (see icapdma.h). */
#include "icapdma.h"
#include "ug470.h"

/* Zynq-7000 devcfg CTRL (UG585): bit 27 PCAP_PR selects the PCAP (1) or the ICAP (0) */
#define DEVCFG_CTRL 0x0u
#define DEVCFG_PCAP_PR (1u << 27)

static uint32_t rd(icapdma *d, uint32_t off) { d->reg_accesses++; return hal_rd(&d->bus, off); }
static void wr(icapdma *d, uint32_t off, uint32_t v) { d->reg_accesses++; hal_wr(&d->bus, off, v); }

int icapdma_init(icapdma *d, hal_bus bus, const hal_bus *devcfg, uint32_t idcode, uint32_t build_id,
                 uint32_t rekey_words, uint32_t *buf, uint32_t buf_phys, uint32_t buf_words, uint32_t timeout) {
    uint32_t info;
    d->bus = bus;
    d->idcode = idcode;
    d->build_id = build_id;
    d->rekey_words = rekey_words;
    d->buf = buf;
    d->buf_phys = buf_phys;
    d->buf_words = buf_words;
    d->timeout = timeout ? timeout : 1000000u;
    d->icap_words_in = d->reg_accesses = d->words_sent = d->status = 0;
    if (devcfg) {
        uint32_t c = hal_rd(devcfg, DEVCFG_CTRL);
        hal_wr(devcfg, DEVCFG_CTRL, c & ~DEVCFG_PCAP_PR);
    }
    if (rd(d, ICAPDMA_MAGIC) != ICAPDMA_MAGIC_VALUE) return ICAPDMA_ERR_DESIGN;
    info = rd(d, ICAPDMA_INFO);
    if ((info & 0xFFu) != ICAPDMA_VERSION || (info & ICAPDMA_INFO_STREAM)) return ICAPDMA_ERR_DESIGN;
    if (rd(d, ICAPDMA_BUILD_ID) != build_id) return ICAPDMA_ERR_DESIGN;
    if (rd(d, ICAPDMA_REKEY_WORDS) != rekey_words) return ICAPDMA_ERR_DESIGN;
    return ICAPDMA_OK;
}

uint32_t icapdma_put_run(uint32_t *dst, uint32_t idcode, uint32_t far, const uint32_t *frames, uint32_t count) {
    uint32_t k = 0, i, n = count * 101u;
    dst[k++] = UG470_DUMMY; dst[k++] = UG470_SYNC; dst[k++] = UG470_NOOP; dst[k++] = UG470_NOOP;
    dst[k++] = UG470_T1W(UG470_CMD, 1); dst[k++] = UG470_RCRC; dst[k++] = UG470_NOOP; dst[k++] = UG470_NOOP;
    dst[k++] = UG470_T1W(UG470_IDCODE, 1); dst[k++] = idcode;
    dst[k++] = UG470_T1W(UG470_FAR, 1); dst[k++] = far;
    dst[k++] = UG470_T1W(UG470_CMD, 1); dst[k++] = UG470_WCFG; dst[k++] = UG470_NOOP;
    dst[k++] = UG470_T1W(UG470_FDRI, 0); dst[k++] = UG470_T2W((count + 1u) * 101u);
    for (i = 0; i < n; i++) dst[k++] = frames[i];
    for (i = 0; i < 101u; i++) dst[k++] = 0;                      /* the pad frame */
    dst[k++] = UG470_T1W(UG470_CMD, 1); dst[k++] = UG470_RCRC; dst[k++] = UG470_NOOP; dst[k++] = UG470_NOOP;
    dst[k++] = UG470_T1W(UG470_FAR, 1); dst[k++] = UG470_PARK_FAR;
    dst[k++] = UG470_T1W(UG470_CMD, 1); dst[k++] = UG470_DESYNC; dst[k++] = UG470_NOOP; dst[k++] = UG470_NOOP;
    return k;
}

static void order_stores(void) {
#if defined(__arm__)
    __asm__ volatile("dsb" ::: "memory");   /* the buffer's stores complete before the START write */
#endif
}

int icapdma_send(icapdma *d, uint32_t n) {
    uint32_t lines = (n + ICAPDMA_LINE_WORDS - 1u) / ICAPDMA_LINE_WORDS, i, t, st = 0;
    d->words_sent = d->status = 0;
    if (n != d->rekey_words) return ICAPDMA_ERR_ARG;
    if (lines * ICAPDMA_LINE_WORDS > d->buf_words || (d->buf_phys & 63u)) return ICAPDMA_ERR_ARG;
    if (rd(d, ICAPDMA_STATUS) & ICAPDMA_BUSY) return ICAPDMA_ERR_WRITE;
    for (i = n; i < lines * ICAPDMA_LINE_WORDS; i++) d->buf[i] = 0;   /* the last line's tail is read too */
    order_stores();
    wr(d, ICAPDMA_CONTROL, ICAPDMA_CLEAR);
    wr(d, ICAPDMA_ADDRESS, d->buf_phys);
    wr(d, ICAPDMA_LENGTH, n);
    wr(d, ICAPDMA_CONTROL, ICAPDMA_START);
    for (t = 0; t < d->timeout; t++) {
        st = rd(d, ICAPDMA_STATUS);
        if ((st & ICAPDMA_ERR_START) || ((st & ICAPDMA_DONE) && !(st & ICAPDMA_BUSY))) break;
    }
    d->status = st;
    d->words_sent = rd(d, ICAPDMA_WORDS_SENT);
    d->icap_words_in += d->words_sent;
    if (t == d->timeout) return ICAPDMA_ERR_TIMEOUT;
    if (st & ICAPDMA_ERR_START) return ICAPDMA_ERR_WRITE;
    if (st & ICAPDMA_ERR_BITS) return ICAPDMA_ERR_CONFIG;
    return ICAPDMA_OK;
}

int icapdma_recover(icapdma *d) {
    uint32_t t;
    if (rd(d, ICAPDMA_STATUS) & ICAPDMA_BUSY) {
        wr(d, ICAPDMA_CONTROL, ICAPDMA_ABORT);
        for (t = 0; t < d->timeout; t++)
            if (!(rd(d, ICAPDMA_STATUS) & ICAPDMA_BUSY)) break;
        if (t == d->timeout) return ICAPDMA_ERR_TIMEOUT;
    }
    wr(d, ICAPDMA_CONTROL, ICAPDMA_CLEAR);
    return ICAPDMA_OK;
}

uint32_t icapdma_frames_done(uint32_t start, uint32_t count, uint32_t sent) {
    uint32_t data = start + 17u, k = 0;              /* the frames follow the 17 header words */
    while (k < count && sent >= data + (k + 2u) * 101u) k++;
    return k;
}
