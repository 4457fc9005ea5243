/* app_cfglut.c - the demo application (app.h) of a `--tlut cfglut5` build: the SCG computes the
 * CFGLUT5 chain words on the board and loads them through the fabric loader (cfglut.h); built in
 * place of app.c, hwicap.c and scg_runtime.c when scg_gen.h defines SCG_GEN_CFGLUT (Makefile).
 * Output lines are key=value pairs for scripts:
 *   rekey rc=<n> words=<n> reg_accesses=<n> polls=<n> eval_cycles=<n> cycles=<n> hash=<hex64>
 * hash = FNV-1a 64 of the chain words (the words the model shifted, in the host and QEMU builds), as
 * `dcsflow rekey --json --frames-hash` prints words_hash. A refused value: key_error=... as app.c.
 * The word computation (scg_cfglut_evaluate) is straight-line or table code without a branch or an
 * address that depends on the parameter value; parameter, inputs, outputs and words are zeroized.
 * A build with a parameter transform (SCG_GEN_TRANSFORM) takes the user parameter vector and runs
 * the generated transform first (as app.c): rc=SCG_ERR_TRANSFORM and transform_failed=<hex> when it
 * refuses the values, nothing loaded; eval_cycles includes it. */
#include "scg_util.h"
#include "app.h"
#include "cfglut.h"
#include "scg_gen.h"
#include "scg_runtime_cfglut.h"
#ifdef SCG_MODEL
#include "cfglut_model.h"
#endif

#define CFG_MAGIC 0x43474353u
#define HDR 18u

static cfglut_loader ld;
static int init_rc;
static uint32_t blob_ram[SCG_GEN_BLOB_WORDS];
static uint32_t x_in[SCG_GEN_INPUTS + 1u];
static uint32_t y_out[SCG_GEN_YWORDS + 1u];
static uint32_t words[SCG_GEN_CFG_WORDS];
#ifdef SCG_GEN_TRANSFORM
static uint32_t tf_param_w[((SCG_GEN_PARAM_BITS + 7u) / 8u + 8u + 3u) / 4u];   /* its parameter vector */
#endif
static uint8_t param[(APP_VEC_BITS + 7u) / 8u + 8u];



int scg_cfglut_check_blob(const uint32_t *b, uint32_t n) {
    if (n < HDR + 1u || b[0] != CFG_MAGIC || b[1] != 1u || n != HDR + b[11] + 1u) return SCG_ERR_BLOB;
    if (scg_crc32_words(b, n - 1u) != b[n - 1u]) return SCG_ERR_BLOB;
    if (b[2] != SCG_GEN_CFG_BUILD_ID || b[11] != SCG_GEN_INPUTS || b[12] != SCG_GEN_PARAM_BITS ||
        b[13] != SCG_GEN_CFG_CHAINS || b[14] != SCG_GEN_CFG_CHAIN_LUTS || b[15] != SCG_GEN_CFG_WORDS ||
        b[16] != SCG_GEN_CFG_STRIDE_LOG2 || b[17] != SCG_GEN_CFG_ADDR_WIDTH)
        return SCG_ERR_DESIGN;
    return SCG_OK;
}

static void zero_words(uint32_t *p, uint32_t n) { volatile uint32_t *q = p; while (n--) *q++ = 0; }

void scg_cfglut_evaluate(const uint32_t *blob, const uint8_t *prm, uint32_t *w) {
    const uint32_t *ibit = blob + HDR;
    uint32_t i;
    for (i = 0; i < SCG_GEN_INPUTS; i++) {
        uint32_t p = ibit[i];
        x_in[i] = 0u - (uint32_t)((prm[p >> 3] >> (p & 7u)) & 1u);
    }
    scg_ppc_eval(x_in, y_out);
    scg_gen_words(y_out, w);
    zero_words(x_in, SCG_GEN_INPUTS + 1u);
    zero_words(y_out, SCG_GEN_YWORDS + 1u);
}

uint64_t scg_words_hash(const uint32_t *w, uint32_t n) {
    uint64_t h = 0xCBF29CE484222325ull;
    uint32_t i, k;
    for (i = 0; i < n; i++)
        for (k = 0; k < 4; k++) { h ^= (w[i] >> (8 * k)) & 0xFFu; h *= 0x100000001B3ull; }
    return h;
}

int app_init(hal_bus bus, const hal_bus *devcfg) {
    uint32_t i;
    (void)devcfg;
    for (i = 0; i < SCG_GEN_BLOB_WORDS; i++) blob_ram[i] = scg_blob[i];
    cfglut_init(&ld, bus, SCG_GEN_CFG_CHAINS, SCG_GEN_CFG_CHAIN_LUTS, SCG_GEN_CFG_BUILD_ID, SCG_GEN_CFG_ADDR_WIDTH,
                100000u);
    init_rc = scg_cfglut_check_blob(blob_ram, SCG_GEN_BLOB_WORDS);
    con_puts("init rc="); con_int(init_rc); con_putc('\n');
    return init_rc;
}


#ifdef SCG_MODEL
static cfglut_model model;

int app_model_setup(void) {
    if (cfglut_model_init(&model, SCG_GEN_CFG_CHAINS, SCG_GEN_CFG_CHAIN_LUTS, SCG_GEN_CFG_BUILD_ID,
                          SCG_GEN_CFG_ADDR_WIDTH)) return -1;
    return app_init(cfglut_model_bus(&model), 0);
}
#endif

/* the chain words of the vector `prm` (the user parameters of a build with a parameter transform,
 * *failed = its failed checks) */
static void evaluate(const uint8_t *prm, uint32_t *failed) {
#ifdef SCG_GEN_TRANSFORM
    *failed = scg_transform(prm, (uint8_t *)tf_param_w);
    scg_cfglut_evaluate(blob_ram, (uint8_t *)tf_param_w, words);
    zero_words(tf_param_w, sizeof tf_param_w / 4u);
#else
    *failed = 0;
    scg_cfglut_evaluate(blob_ram, prm, words);
#endif
}

static int rekey(const uint8_t *prm, uint32_t *eval_cycles, uint64_t *hash, uint32_t *failed) {
    uint32_t c0;
    int rc = scg_cfglut_check_blob(blob_ram, SCG_GEN_BLOB_WORDS);
    if (rc) return rc;
    c0 = hal_cycles();
    evaluate(prm, failed);
    *eval_cycles = hal_cycles() - c0;
    if (*failed) {                                  /* refused by the transform: nothing loaded */
        zero_words(words, SCG_GEN_CFG_WORDS);
        return SCG_ERR_TRANSFORM;
    }
#ifdef SCG_MODEL
    (void)hash;
#else
    *hash = scg_words_hash(words, SCG_GEN_CFG_WORDS);
#endif
    rc = cfglut_check(&ld);
    if (!rc) rc = cfglut_load(&ld, words);
    zero_words(words, SCG_GEN_CFG_WORDS);
    return rc;
}

int app_command(char *line) {
    char *p = line, *cmd = scg_word(&p);
    if (!*cmd) return 0;
    if (scg_streq(cmd, "rekey")) {
        int rc, why;
        uint32_t pos = 0, c0 = hal_cycles(), ev = 0, a0 = ld.reg_accesses, failed = 0;
        uint64_t hash = 0;
        char *hex = scg_word(&p);
        ld.polls = 0;
        why = scg_parse_hex_at(hex, param, APP_VEC_BITS, &pos);
        if (why) rc = SCG_ERR_KEY;
        else if (init_rc) rc = init_rc;
        else rc = rekey(param, &ev, &hash, &failed);
        scg_zeroize(param, sizeof param);
        scg_zeroize(hex, (uint32_t)(p - hex));
#ifdef SCG_MODEL
        hash = scg_words_hash(model.shifted, SCG_GEN_CFG_WORDS);
#endif
        con_puts("rekey rc="); con_int(rc);
        con_puts(" words="); con_dec(rc ? 0u : SCG_GEN_CFG_WORDS);
        con_puts(" reg_accesses="); con_dec(ld.reg_accesses - a0);
        con_puts(" polls="); con_dec(ld.polls);
        con_puts(" eval_cycles="); con_dec(ev);
        con_puts(" cycles="); con_dec(hal_cycles() - c0);
        con_puts(" hash="); con_hex64(hash);
        con_key_error(why, pos, APP_VEC_BITS);
        if (rc == SCG_ERR_TRANSFORM) { con_puts(" transform_failed="); con_hex(failed, 8); }
        con_putc('\n');
        return rc;
    }
    if (scg_streq(cmd, "bench")) {   /* word computation only, n pseudo-random parameter vectors */
        uint32_t n = scg_num(scg_word(&p)), i, lo = 0xFFFFFFFFu, hi = 0, x = 0x12345678u, failed;
        for (i = 0; i < n; i++) {
            uint32_t c0, c;
            scg_pseudo_fill(param, (APP_VEC_BITS + 7u) / 8u, &x);
            c0 = hal_cycles();
            evaluate(param, &failed);
            c = hal_cycles() - c0;
            if (c < lo) lo = c;
            if (c > hi) hi = c;
        }
        scg_zeroize(param, sizeof param);
        zero_words(words, SCG_GEN_CFG_WORDS);
        con_puts("bench n="); con_dec(n); con_puts(" eval_min="); con_dec(lo); con_puts(" eval_max="); con_dec(hi);
        con_putc('\n');
        return 0;
    }
#ifdef SCG_MODEL
    if (scg_streq(cmd, "dump")) {    /* the words of the last load, as the model shifted them (model only) */
        uint32_t i;
        con_puts("words "); con_dec(model.loads); con_putc('\n');
        for (i = 0; i < SCG_GEN_CFG_WORDS; i++) { con_puts("word "); con_hex(model.shifted[i], 8); con_putc('\n'); }
        return 0;
    }
    if (scg_streq(cmd, "fault")) {
        char *k = scg_word(&p);
        if (scg_streq(k, "id")) model.build_id ^= 0x100u;
        else if (scg_streq(k, "busy")) { model.busy = 1; model.stuck = 1; }
        else if (scg_streq(k, "error")) model.fault_error = 1;
        else if (scg_streq(k, "stall")) model.stuck = 1;
        else if (scg_streq(k, "blob")) blob_ram[HDR] ^= 1u;
        else if (scg_streq(k, "clear")) { model.stuck = model.fault_error = model.busy = 0; }
        con_puts("fault "); con_puts(k); con_putc('\n');
        return 0;
    }
#endif
    con_puts("commands: rekey <hex> | bench <n>\n");
    return 0;
}
