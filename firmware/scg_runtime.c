/* scg_runtime.c - SCG runtime (see scg_runtime.h). */
#include "scg_runtime.h"

#define FW 101u



int scg_check_blob(const uint32_t *b, uint32_t words) {
    uint32_t need;
    if (words < 19 || b[0] != 0x42474353u || b[1] != 1u) return SCG_ERR_BLOB;
    need = 18u + b[13] + b[13] * FW + b[15] + 2u * b[14] + b[11] + 1u;
    if (need != words) return SCG_ERR_BLOB;
    if (scg_crc32_words(b, words - 1) != b[words - 1]) return SCG_ERR_BLOB;
    if (b[11] != SCG_GEN_INPUTS || b[12] != SCG_GEN_OUTPUTS || b[13] != SCG_GEN_FRAMES ||
        b[14] != SCG_GEN_ENTRIES || b[15] != SCG_GEN_RUNS || b[16] != SCG_GEN_PARAM_BITS)
        return SCG_ERR_DESIGN;
    return SCG_OK;
}

int scg_open(scg *s, const uint32_t *blob, uint32_t words, scg_port *icap) {
    int r = scg_check_blob(blob, words);
    uint32_t i;
    if (r) return r;
    if ((blob[2] ^ icap->idcode) & 0x0FFFFFFFu) return SCG_ERR_DEVICE;
    s->blob = blob;
    s->icap = icap;
    s->fars = blob + 18;
    s->tpl = s->fars + SCG_GEN_FRAMES;
    s->run_len = s->tpl + SCG_GEN_FRAMES * FW;
    s->epos = s->run_len + SCG_GEN_RUNS;
    s->eout = s->epos + SCG_GEN_ENTRIES;
    s->ibit = s->eout + SCG_GEN_ENTRIES;
    for (i = 0; i < SCG_GEN_FRAMES * FW; i++) s->cur[i] = s->next[i] = s->tpl[i];
    return SCG_OK;
}

static void zero_words(uint32_t *p, uint32_t n) {
    volatile uint32_t *q = p;
    while (n--) *q++ = 0;
}

static uint32_t x_in[SCG_GEN_INPUTS + 1u];
static uint32_t y_out[SCG_GEN_YWORDS + 1u];  /* the PPC outputs the patch reads */

/* Constant time: the generated PPC evaluation and frame patch are straight-line code (no branch or
 * address depends on parameter values). Every input word is 0 or 0xFFFFFFFF (the same parameter set
 * in all 32 lanes), as scg_gen_patch requires. s->next holds the template outside the entry bits and
 * ECC bits (scg_open), so only those are rewritten. */
void scg_evaluate(scg *s, const uint8_t *param) {
    uint32_t i;
    for (i = 0; i < SCG_GEN_INPUTS; i++) {
        uint32_t p = s->ibit[i];
        x_in[i] = 0u - (uint32_t)((param[p >> 3] >> (p & 7u)) & 1u);
    }
    scg_ppc_eval(x_in, y_out);
    scg_gen_patch(y_out, s->next);
    zero_words(x_in, SCG_GEN_INPUTS + 1u);
    zero_words(y_out, SCG_GEN_YWORDS + 1u);
}

#ifdef SCG_ICAP_DMA
/* Every run's words into the DMA buffer (icapdma_put_run), one transfer. On a failure, the frames the
 * controller wrote (WORDS_SENT: a frame is written once the next one is complete) go to *done and *last. */
static int write_stream(scg *s, const uint32_t *frames, uint32_t *done, uint32_t *last) {
    uint32_t r, f = 0, n = 0, start, k;
    int rc;
    for (r = 0; r < SCG_GEN_RUNS; r++) {
        n += icapdma_put_run(&s->icap->buf[n], s->icap->idcode, s->fars[f], &frames[f * FW], s->run_len[r]);
        f += s->run_len[r];
    }
    rc = icapdma_send(s->icap, n);
    if (rc && done) {
        *done = 0;
        *last = 0xFFFFFFFFu;
        for (r = 0, f = 0, start = 0; r < SCG_GEN_RUNS; start += ICAPDMA_RUN_WORDS(s->run_len[r]), f += s->run_len[r], r++) {
            k = icapdma_frames_done(start, s->run_len[r], s->icap->words_sent);
            if (k) { *done += k; *last = s->fars[f + k - 1u]; }
        }
    }
    return rc;
}

static int write_all(scg *s, const uint32_t *frames) { return write_stream(s, frames, 0, 0); }

static int check_all(scg *s, const uint32_t *frames) {
    (void)s; (void)frames;
    return SCG_ERR_ARG;          /* the stream controller is write only */
}
#define port_recover icapdma_recover
#else
static int write_all(scg *s, const uint32_t *frames) {
    uint32_t r, f = 0;
    int rc;
    for (r = 0; r < SCG_GEN_RUNS; r++) {
        rc = hwicap_write_frames(s->icap, s->fars[f], &frames[f * FW], s->run_len[r]);
        if (rc) return rc;
        f += s->run_len[r];
    }
    return 0;
}

static uint32_t rb[SCG_GEN_FRAMES * 101u];

static int check_all(scg *s, const uint32_t *frames) {
    uint32_t r, f = 0, i;
    int rc;
    for (r = 0; r < SCG_GEN_RUNS; r++) {
        rc = hwicap_read_frames(s->icap, s->fars[f], s->run_len[r], rb);
        if (rc) return rc;
        for (i = 0; i < s->run_len[r] * FW; i++)
            if (rb[i] != frames[f * FW + i]) return 1; /* mismatch */
        f += s->run_len[r];
    }
    return 0;
}
#define port_recover hwicap_recover
#endif

int scg_rekey(scg *s, const uint8_t *param, uint32_t param_bits, unsigned flags, scg_stats *st) {
    uint32_t c0, c1, w0 = s->icap->icap_words_in, w1, a0 = s->icap->reg_accesses, i;
    int rc, code;
    st->frames_written = st->runs = st->icap_words = st->reg_accesses = 0;
    st->eval_cycles = st->total_cycles = 0;
    st->hw_error = 0;
    st->frames_done = 0;
    st->last_far = 0xFFFFFFFFu;
    if (param_bits != SCG_GEN_PARAM_BITS) return SCG_ERR_KEY;
#ifdef SCG_ICAP_DMA
    if (flags & SCG_VERIFY) return SCG_ERR_ARG;
#endif
    rc = scg_check_blob(s->blob, SCG_GEN_BLOB_WORDS);
    if (rc) return rc;
    c0 = hal_cycles();
    scg_evaluate(s, param);
    c1 = hal_cycles();
    st->eval_cycles = c1 - c0;
#ifdef SCG_ICAP_DMA
    rc = write_stream(s, s->next, &st->frames_done, &st->last_far);
#else
    rc = write_all(s, s->next);
#endif
    w1 = s->icap->icap_words_in;        /* the rekey's ICAP words: frames, pad frames, packets */
    code = SCG_ERR_WRITE;
    if (!rc && (flags & SCG_VERIFY)) {
        rc = check_all(s, s->next);
        if (rc > 0) code = SCG_ERR_VERIFY;
    }
    if (rc) {
        int sent = 1;
#ifdef SCG_ICAP_DMA
        sent = rc != ICAPDMA_ERR_ARG && rc != ICAPDMA_ERR_WRITE;   /* refused before the first word: nothing to restore */
#endif
        st->hw_error = rc < 0 ? rc : 0;
        if (sent && (port_recover(s->icap) || write_all(s, s->cur) || ((flags & SCG_VERIFY) && check_all(s, s->cur))))
            code = SCG_ERR_ROLLBACK;
    } else {
        code = SCG_OK;
        for (i = 0; i < SCG_GEN_FRAMES * FW; i++) s->cur[i] = s->next[i];
        st->frames_written = SCG_GEN_FRAMES;
        st->runs = SCG_GEN_RUNS;
    }
    st->icap_words = w1 - w0;           /* read-back requests not counted (the host's rekey: same) */
    st->reg_accesses = s->icap->reg_accesses - a0;
    st->total_cycles = hal_cycles() - c0;
    return code;
}

#ifdef SCG_GEN_TRANSFORM
/* the transform's parameter vector (bytes, in words so that zero_words wipes it: no function the
 * benchmarks' instruction count shares with its caller) */
static uint32_t tf_param_w[((SCG_GEN_PARAM_BITS + 7u) / 8u + 8u + 3u) / 4u];
#define tf_param ((uint8_t *)tf_param_w)

int scg_rekey_user(scg *s, const uint8_t *user, uint32_t user_bits, unsigned flags, scg_stats *st,
                   uint32_t *failed) {
    uint32_t c0, c1;
    int rc;
    st->frames_written = st->runs = st->icap_words = st->reg_accesses = 0;
    st->eval_cycles = st->total_cycles = 0;
    st->hw_error = 0;
    *failed = 0;
    if (user_bits != SCG_GEN_USER_BITS) return SCG_ERR_KEY;
    c0 = hal_cycles();
    *failed = scg_transform(user, tf_param);
    c1 = hal_cycles();
    if (*failed) return SCG_ERR_TRANSFORM;          /* frames untouched; scg_transform zeroed tf_param */
    rc = scg_rekey(s, tf_param, SCG_GEN_PARAM_BITS, flags, st);
    zero_words(tf_param_w, sizeof tf_param_w / 4u);
    st->eval_cycles += c1 - c0;
    st->total_cycles += c1 - c0;
    return rc;
}

uint32_t scg_evaluate_user(scg *s, const uint8_t *user) {
    uint32_t failed = scg_transform(user, tf_param);
    scg_evaluate(s, tf_param);
    zero_words(tf_param_w, sizeof tf_param_w / 4u);
    return failed;
}
#endif

uint64_t scg_frames_hash(const uint32_t *frames, uint32_t n_frames) {
    uint64_t h = 0xCBF29CE484222325ull;
    uint32_t i, k;
    for (i = 0; i < n_frames * FW; i++)
        for (k = 0; k < 4; k++) {
            h ^= (frames[i] >> (8 * k)) & 0xFFu;
            h *= 0x100000001B3ull;
        }
    return h;
}
