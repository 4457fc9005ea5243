/* app.c - demo application (see app.h). Output lines are key=value pairs for scripts:
 *   rekey rc=<n> frames=<n> runs=<n> icap_words=<n> reg_accesses=<n> eval_cycles=<n> cycles=<n> hash=<hex64>
 * and, built for the ICAP stream controller (SCG_ICAP_DMA) after a failed transfer, the port's error and the
 * frames it wrote before the previous frames were written back:
 *   ... hw_error=<n> frames_done=<n> last_far=<hex8> (ffffffff: none)
 * and, when the value is refused (rc=SCG_ERR_KEY), the reason and position, never the value (a key):
 *   ... key_error=not_hex at=<1-based character> | key_error=digits got=<n> expected=<n> | key_error=too_large bits=<n>
 * A build with a parameter transform (SCG_GEN_TRANSFORM) takes the user parameter vector
 * (SCG_GEN_USER_BITS) and runs the transform first; when it refuses the values (rc=SCG_ERR_TRANSFORM,
 * no frame written) the line ends with transform_failed=<hex: bit c = check c failed>.
 */
#include "scg_util.h"
#include "app.h"
#include "scg_runtime.h"
#ifdef SCG_MODEL
#include "icap_model.h"
#endif

static scg_port icap;
#ifdef SCG_ICAP_DMA
#ifdef SCG_MODEL
#include "icapdma_model.h"
#define DMA_PHYS 0x10000000u        /* the model's bus address of the buffer */
#else
#define DMA_PHYS ((uint32_t)(uintptr_t)dma_buf)   /* bare metal: no MMU, bus address = pointer */
#endif
static uint32_t dma_buf[SCG_DMA_WORDS] __attribute__((aligned(64)));
#endif
static scg S;
static int ready;
static int init_rc;
static unsigned flags;
static uint32_t blob_ram[SCG_GEN_BLOB_WORDS];


int app_init(hal_bus bus, const hal_bus *devcfg) {
    uint32_t i;
    for (i = 0; i < SCG_GEN_BLOB_WORDS; i++) blob_ram[i] = scg_blob[i];
    ready = 0;
#ifdef SCG_ICAP_DMA
    /* the controller's BUILD_ID is the design hash's first word (blob word 3) */
    init_rc = icapdma_init(&icap, bus, devcfg, SCG_GEN_IDCODE, blob_ram[3], SCG_REKEY_WORDS, dma_buf, DMA_PHYS,
                           SCG_DMA_WORDS, 100000u);
#else
    init_rc = hwicap_init(&icap, bus, devcfg, SCG_GEN_IDCODE, 1000u);
#endif
    if (!init_rc) init_rc = scg_open(&S, blob_ram, SCG_GEN_BLOB_WORDS, &icap);
    ready = init_rc == 0;
    con_puts("init rc="); con_int(init_rc); con_putc('\n');
    return init_rc;
}


#ifdef SCG_MODEL
static model_device mdev;
static cfg_model cfg;
static hwicap_model hwm;
#ifdef SCG_ICAP_DMA
static icapdma_model idm;
#endif
static uint32_t mem[MODEL_MAX_FRAMES * FRAME_WORDS];
static uint8_t written[MODEL_MAX_FRAMES];
static hal_bus mbus, mdevcfg;

int app_model_setup(void) {
    uint32_t f, k;
    if (model_device_load(&mdev, scg_devtab)) return -1;
    cfg_init(&cfg, &mdev, mem, written);
    hwm_init(&hwm, &cfg, 1024, 256);
    for (f = 0; f < SCG_GEN_FRAMES; f++) {
        int32_t idx = model_far_index(&mdev, scg_blob[18 + f]);
        for (k = 0; k < FRAME_WORDS; k++) mem[(uint32_t)idx * FRAME_WORDS + k] = scg_blob[18 + SCG_GEN_FRAMES + f * FRAME_WORDS + k];
    }
    mbus = hwm_bus(&hwm);
#ifdef SCG_ICAP_DMA
    idm_init(&idm, &cfg, dma_buf, DMA_PHYS, SCG_DMA_WORDS, scg_blob[3], SCG_REKEY_WORDS);
    mbus = idm_bus(&idm);
#endif
    mdevcfg = hwm_devcfg_bus(&hwm);
    return app_init(mbus, &mdevcfg);
}

static uint64_t model_hash(void) {   /* hash of the touched frames as they are in the model memory */
    uint64_t h = 0xCBF29CE484222325ull;
    uint32_t f, k, b;
    for (f = 0; f < SCG_GEN_FRAMES; f++) {
        uint32_t idx = (uint32_t)model_far_index(&mdev, scg_blob[18 + f]);
        for (k = 0; k < FRAME_WORDS; k++)
            for (b = 0; b < 4; b++) { h ^= (mem[idx * FRAME_WORDS + k] >> (8 * b)) & 0xFFu; h *= 0x100000001B3ull; }
    }
    return h;
}
#endif

static uint8_t param[(APP_VEC_BITS + 7u) / 8u + 8u];
static uint8_t bench_base[(APP_VEC_BITS + 7u) / 8u + 8u], bench_mask[(APP_VEC_BITS + 7u) / 8u + 8u];

int app_command(char *line) {
    char *p = line, *cmd = scg_word(&p);
    if (!*cmd) return 0;
    if (scg_streq(cmd, "rekey")) {
        scg_stats st;
        int rc, why;
        uint32_t pos = 0;
        uint32_t failed = 0;
        char *hex = scg_word(&p);
        why = scg_parse_hex_at(hex, param, APP_VEC_BITS, &pos);
        if (why) {
            rc = SCG_ERR_KEY;
            st.frames_written = st.runs = st.icap_words = st.reg_accesses = st.eval_cycles = st.total_cycles = 0;
        } else if (!ready) {
#ifdef SCG_ICAP_DMA
            rc = init_rc;
#else
            rc = init_rc == HWICAP_ERR_IDCODE ? SCG_ERR_DEVICE : init_rc;
#endif
            st.frames_written = st.runs = st.icap_words = st.reg_accesses = st.eval_cycles = st.total_cycles = 0;
        } else {
#ifdef SCG_GEN_TRANSFORM
            rc = scg_rekey_user(&S, param, SCG_GEN_USER_BITS, flags, &st, &failed);
#else
            rc = scg_rekey(&S, param, SCG_GEN_PARAM_BITS, flags, &st);
#endif
        }
        scg_zeroize(param, sizeof param);
        scg_zeroize(hex, (uint32_t)(p - hex));
        con_puts("rekey rc="); con_int(rc);
        con_puts(" frames="); con_dec(st.frames_written);
        con_puts(" runs="); con_dec(st.runs);
        con_puts(" icap_words="); con_dec(st.icap_words);
        con_puts(" reg_accesses="); con_dec(st.reg_accesses);
        con_puts(" eval_cycles="); con_dec(st.eval_cycles);
        con_puts(" cycles="); con_dec(st.total_cycles);
#ifdef SCG_MODEL
        con_puts(" hash="); con_hex64(model_hash());
#else
        con_puts(" hash="); con_hex64(scg_frames_hash(S.cur, SCG_GEN_FRAMES));
#endif
#ifdef SCG_ICAP_DMA
        if (st.hw_error) {
            con_puts(" hw_error="); con_int(st.hw_error);
            con_puts(" frames_done="); con_dec(st.frames_done);
            con_puts(" last_far="); con_hex(st.last_far, 8);
        }
#endif
        con_key_error(why, pos, APP_VEC_BITS);
        if (rc == SCG_ERR_TRANSFORM) { con_puts(" transform_failed="); con_hex(failed, 8); }
        con_putc('\n');
        return rc;
    }
    if (scg_streq(cmd, "verify")) {
        char *a = scg_word(&p);
        flags = scg_streq(a, "on") ? SCG_VERIFY : 0u;
        con_puts("verify "); con_puts(flags ? "on\n" : "off\n");
        return 0;
    }
    if (scg_streq(cmd, "bench")) {   /* evaluation only, n pseudo-random parameter vectors */
        /* "bench <n> [BASE MASK]": each vector is BASE | (pseudo-random & MASK) (hex, as rekey takes
         * them), e.g. random keys of fixed lengths; without them, all bits pseudo-random */
        uint32_t n = scg_num(scg_word(&p)), i, k, lo = 0xFFFFFFFFu, hi = 0, x = 0x12345678u, failed = 0;
        char *base = scg_word(&p), *mask = scg_word(&p);
        int given = *base != 0;
        if (given && (scg_parse_hex_at(base, bench_base, APP_VEC_BITS, &k) ||
                      scg_parse_hex_at(mask, bench_mask, APP_VEC_BITS, &k))) {
            con_puts("bench: BASE and MASK must be hex of the vector's width\n");
            return SCG_ERR_KEY;
        }
        for (i = 0; i < n; i++) {
            uint32_t c0, c;
            scg_pseudo_fill(param, (APP_VEC_BITS + 7u) / 8u, &x);
            if (given)
                for (k = 0; k < (APP_VEC_BITS + 7u) / 8u; k++)
                    param[k] = (uint8_t)(bench_base[k] | (param[k] & bench_mask[k]));
            c0 = hal_cycles();
#ifdef SCG_GEN_TRANSFORM
            failed |= scg_evaluate_user(&S, param);
#else
            scg_evaluate(&S, param);
#endif
            c = hal_cycles() - c0;
            if (c < lo) lo = c;
            if (c > hi) hi = c;
        }
        scg_zeroize(param, sizeof param);
        con_puts("bench n="); con_dec(n); con_puts(" eval_min="); con_dec(lo); con_puts(" eval_max="); con_dec(hi);
        if (failed) { con_puts(" transform_failed="); con_hex(failed, 8); }
        con_putc('\n');
        return 0;
    }
#ifdef SCG_MODEL
    if (scg_streq(cmd, "fault")) {
        char *k = scg_word(&p);
        if (scg_streq(k, "stall")) hwm.fault_stall_words = hwm.st.icap_words_in + scg_num(scg_word(&p));
        else if (scg_streq(k, "abort")) hwm.fault_abort_words = hwm.st.icap_words_in + scg_num(scg_word(&p));
        else if (scg_streq(k, "idcode")) { mdev.idcode ^= 0x00010000u; app_init(mbus, &mdevcfg); }
        else if (scg_streq(k, "blob")) blob_ram[18 + SCG_GEN_FRAMES] ^= 0x00000100u;
#ifdef SCG_ICAP_DMA
        else if (scg_streq(k, "dma-bus")) idm.fault_bus_word = (int32_t)scg_num(scg_word(&p));
        else if (scg_streq(k, "dma-abort")) idm.fault_abort_word = (int32_t)scg_num(scg_word(&p));
        else if (scg_streq(k, "dma-stuck")) idm.stuck = 1;
        else if (scg_streq(k, "dma-length")) icap.rekey_words++;     /* the driver's count, not the build's */
        else if (scg_streq(k, "dma-build")) { idm.build_id ^= 0x100u; app_init(mbus, &mdevcfg); }
#endif
        con_puts("fault "); con_puts(k); con_putc('\n');
        return 0;
    }
    if (scg_streq(cmd, "dump")) {
        uint32_t f, k;
        for (f = 0; f < SCG_GEN_FRAMES; f++) {
            uint32_t far = scg_blob[18 + f], idx = (uint32_t)model_far_index(&mdev, far);
            con_puts("frame "); con_hex(far, 8);
            for (k = 0; k < FRAME_WORDS; k++) { con_putc(' '); con_hex(mem[idx * FRAME_WORDS + k], 8); }
            con_putc('\n');
        }
        return 0;
    }
    if (scg_streq(cmd, "pcap")) {
        con_puts("devcfg_ctrl="); con_hex(hwm.devcfg_ctrl, 8); con_putc('\n');
        return 0;
    }
#endif
    con_puts("commands: rekey <hex> | verify on|off | bench <n> [BASE MASK]\n");
    return 0;
}
