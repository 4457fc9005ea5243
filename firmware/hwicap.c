/* hwicap.c - AXI HWICAP driver (see hwicap.h). */
#include "hwicap.h"
#include "ug470.h"

#define DUMMY UG470_DUMMY
#define SYNC UG470_SYNC
#define NOOP UG470_NOOP
#define T1W UG470_T1W
#define T1R UG470_T1R
#define T2W UG470_T2W
#define T2R UG470_T2R
#define R_FAR UG470_FAR
#define R_FDRI UG470_FDRI
#define R_FDRO UG470_FDRO
#define R_CMD UG470_CMD
#define R_IDCODE UG470_IDCODE
#define CMD_WCFG UG470_WCFG
#define CMD_RCFG UG470_RCFG
#define CMD_RCRC UG470_RCRC
#define CMD_DESYNC UG470_DESYNC

static uint32_t rd(hwicap *h, uint32_t off) { h->reg_accesses++; return hal_rd(&h->bus, off); }
static void wr(hwicap *h, uint32_t off, uint32_t v) { h->reg_accesses++; hal_wr(&h->bus, off, v); }

int hwicap_write_words(hwicap *h, const uint32_t *w, uint32_t n) {
    uint32_t i = 0;
    while (i < n) {
        uint32_t vac = 0, t, k, j;
        for (t = 0; t < h->timeout; t++) {
            vac = rd(h, HWICAP_WFV);
            if (vac) break;
        }
        if (!vac) return HWICAP_ERR_TIMEOUT;
        k = n - i < vac ? n - i : vac;
        for (j = 0; j < k; j++) wr(h, HWICAP_WF, w[i + j]);
        i += k;
        wr(h, HWICAP_CR, HWICAP_CR_WRITE);
        for (t = 0; t < h->timeout; t++)
            if (!(rd(h, HWICAP_CR) & HWICAP_CR_WRITE)) break;
        if (t == h->timeout) return HWICAP_ERR_TIMEOUT;
        h->icap_words_in += k;
    }
    return HWICAP_OK;
}

int hwicap_read_words(hwicap *h, uint32_t *w, uint32_t n) {
    uint32_t got = 0, idle = 0;
    wr(h, HWICAP_SZ, n);
    wr(h, HWICAP_CR, HWICAP_CR_READ);
    while (got < n) {
        uint32_t occ = rd(h, HWICAP_RFO), j;
        if (!occ) {
            if (++idle >= h->timeout) return HWICAP_ERR_TIMEOUT;
            continue;
        }
        idle = 0;
        if (occ > n - got) occ = n - got;
        for (j = 0; j < occ; j++) w[got++] = rd(h, HWICAP_RF);
    }
    h->icap_words_out += n;
    return HWICAP_OK;
}

static int desync(hwicap *h) {
    static const uint32_t s[] = {T1W(R_CMD, 1), CMD_DESYNC, NOOP, NOOP};
    return hwicap_write_words(h, s, 4);
}

int hwicap_recover(hwicap *h) {
    wr(h, HWICAP_CR, HWICAP_CR_ABORT);
    wr(h, HWICAP_CR, HWICAP_CR_SW_RESET);
    wr(h, HWICAP_CR, HWICAP_CR_FIFO_CLEAR);
    return desync(h);
}

int hwicap_read_idcode(hwicap *h, uint32_t *idcode) {
    static const uint32_t s[] = {DUMMY, SYNC, NOOP, NOOP, T1R(R_IDCODE, 1), NOOP, NOOP};
    int r = hwicap_write_words(h, s, 7);
    if (r) return r;
    r = hwicap_read_words(h, idcode, 1);
    if (r) return r;
    return desync(h);
}

int hwicap_init(hwicap *h, hal_bus bus, const hal_bus *devcfg, uint32_t idcode, uint32_t timeout) {
    uint32_t id = 0;
    int r;
    h->bus = bus;
    h->idcode = idcode;
    h->timeout = timeout ? timeout : 1000000u;
    h->icap_words_in = h->icap_words_out = h->reg_accesses = 0;
    if (devcfg) {
        uint32_t c = hal_rd(devcfg, ZYNQ_DEVCFG_CTRL);
        hal_wr(devcfg, ZYNQ_DEVCFG_CTRL, c & ~ZYNQ_DEVCFG_PCAP_PR);
    }
    wr(h, HWICAP_CR, HWICAP_CR_SW_RESET);
    wr(h, HWICAP_CR, HWICAP_CR_FIFO_CLEAR);
    r = hwicap_read_idcode(h, &id);
    if (r) return r;
    if ((id ^ idcode) & 0x0FFFFFFFu) return HWICAP_ERR_IDCODE;
    return HWICAP_OK;
}

int hwicap_read_frames(hwicap *h, uint32_t far, uint32_t count, uint32_t *out) {
    uint32_t s[64], k = 0, n = (count + 1) * HWICAP_FRAME_WORDS, i;
    uint32_t dummy[HWICAP_FRAME_WORDS];
    int r;
    if (!count) return HWICAP_ERR_ARG;
    s[k++] = DUMMY; s[k++] = 0x000000BBu; s[k++] = 0x11220044u; s[k++] = DUMMY; s[k++] = SYNC; s[k++] = NOOP;
    s[k++] = T1W(R_CMD, 1); s[k++] = CMD_RCRC;
    for (i = 0; i < 6; i++) s[k++] = NOOP;
    s[k++] = T1W(R_CMD, 1); s[k++] = CMD_RCFG; s[k++] = NOOP;
    s[k++] = T1W(R_FAR, 1); s[k++] = far;
    s[k++] = T1R(R_FDRO, 0); s[k++] = T2R(n);
    r = hwicap_write_words(h, s, k);
    for (i = 0; i < 32; i++) s[i] = NOOP;
    if (!r) r = hwicap_write_words(h, s, 32);
    if (!r) r = hwicap_read_words(h, dummy, HWICAP_FRAME_WORDS);
    if (!r) r = hwicap_read_words(h, out, count * HWICAP_FRAME_WORDS);
    if (!r) r = desync(h);
    return r;
}

int hwicap_write_frames(hwicap *h, uint32_t far, const uint32_t *frames, uint32_t count) {
    uint32_t s[24], k = 0, pad[HWICAP_FRAME_WORDS], i, sr;
    int r;
    if (!count) return HWICAP_ERR_ARG;
    for (i = 0; i < HWICAP_FRAME_WORDS; i++) pad[i] = 0;
    s[k++] = DUMMY; s[k++] = SYNC; s[k++] = NOOP; s[k++] = NOOP;
    s[k++] = T1W(R_CMD, 1); s[k++] = CMD_RCRC; s[k++] = NOOP; s[k++] = NOOP;
    s[k++] = T1W(R_IDCODE, 1); s[k++] = h->idcode;
    s[k++] = T1W(R_FAR, 1); s[k++] = far;
    s[k++] = T1W(R_CMD, 1); s[k++] = CMD_WCFG; s[k++] = NOOP;
    s[k++] = T1W(R_FDRI, 0); s[k++] = T2W((count + 1) * HWICAP_FRAME_WORDS);
    r = hwicap_write_words(h, s, k);
    if (!r) r = hwicap_write_words(h, frames, count * HWICAP_FRAME_WORDS);
    if (!r) r = hwicap_write_words(h, pad, HWICAP_FRAME_WORDS);
    if (r) return r;
    sr = rd(h, HWICAP_SR);
    if (!(sr & HWICAP_SR_CFGERR_N)) return HWICAP_ERR_CONFIG;
    if (!(sr & HWICAP_SR_DALIGN)) return HWICAP_ERR_SYNC;
    k = 0;
    s[k++] = T1W(R_CMD, 1); s[k++] = CMD_RCRC; s[k++] = NOOP; s[k++] = NOOP;
    s[k++] = T1W(R_FAR, 1); s[k++] = HWICAP_PARK_FAR;
    s[k++] = T1W(R_CMD, 1); s[k++] = CMD_DESYNC; s[k++] = NOOP; s[k++] = NOOP;
    return hwicap_write_words(h, s, k);
}
