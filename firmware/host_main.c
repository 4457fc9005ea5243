/* host_main.c - host build (make host-test): the firmware against the C model (of the AXI HWICAP and
 * configuration memory; of the CFGLUT5 loader for a cfglut5 build, whose "dump" prints the words).
 *   scg_host cmd [cmd ...]      run app commands (each argument one line, e.g. "rekey 1a2b")
 *   scg_host --replay FILE      replay a register trace through the C model (cross-check with
 *                               scg/hwicap.py): records of 3 little-endian u32 (op, a, b):
 *                               op 0 write(a, b) | 1 read(a) -> print | 2 emulator words a..(b words follow)
 *                               | 3 emulator read a words -> print | 4 re-init FIFO depths a, b
 *                               then prints the counters and every written or nonzero frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "scg_gen.h"

void con_putc(char c) { putchar(c); }

#ifdef SCG_GEN_CFGLUT            /* a cfglut5 build: no configuration memory, no replay */
static int replay(const char *path) { (void)path; fputs("--replay: a cfglut5 build has no HWICAP\n", stderr); return 2; }
#else
#include "icap_model.h"

static model_device dev;
static cfg_model cfg;
static hwicap_model hw;
static uint32_t mem[MODEL_MAX_FRAMES * FRAME_WORDS];
static uint8_t wr[MODEL_MAX_FRAMES];

static int replay(const char *path) {
    FILE *f = fopen(path, "rb");
    uint32_t r[3], i, k;
    if (!f) { perror(path); return 2; }
    if (model_device_load(&dev, scg_devtab)) return 2;
    cfg_init(&cfg, &dev, mem, wr);
    hwm_init(&hw, &cfg, 1024, 256);
    while (fread(r, 4, 3, f) == 3) {
        if (r[0] == 0) hwm_write(&hw, r[1], r[2]);
        else if (r[0] == 1) printf("%08x\n", hwm_read(&hw, r[1]));
        else if (r[0] == 2) {
            uint32_t *w = malloc(4u * (r[1] + 1u));
            if (fread(w, 4, r[1], f) != r[1]) { free(w); break; }
            cfg_write_words(&cfg, w, r[1]);
            free(w);
        } else if (r[0] == 3) {
            uint32_t *w = malloc(4u * (r[1] + 1u)), n = cfg_read_words(&cfg, w, r[1]);
            for (i = 0; i < n; i++) printf("%08x\n", w[i]);
            free(w);
        } else if (r[0] == 4) hwm_init(&hw, &cfg, r[1], r[2]);
    }
    fclose(f);
    printf("emu words=%u packets=%u frames_written=%u pad_frames=%u dropped_frames=%u readback_words=%u "
           "crc_checks=%u crc_errors=%u bad_headers=%u ignored_writes=%u synced=%d id_error=%d crc_error=%d far=%08x\n",
           cfg.st.words, cfg.st.packets, cfg.st.frames_written, cfg.st.pad_frames, cfg.st.dropped_frames,
           cfg.st.readback_words, cfg.st.crc_checks, cfg.st.crc_errors, cfg.st.bad_headers, cfg.st.ignored_writes,
           cfg.synced, cfg.id_error, cfg.crc_error, cfg.far);
    printf("hw reg_reads=%u reg_writes=%u icap_words_in=%u icap_words_out=%u wf_overflows=%u rf_underflows=%u\n",
           hw.st.reg_reads, hw.st.reg_writes, hw.st.icap_words_in, hw.st.icap_words_out, hw.st.wf_overflows,
           hw.st.rf_underflows);
    for (i = 0; i < dev.n_frames; i++) {
        int nz = wr[i];
        for (k = 0; k < FRAME_WORDS && !nz; k++) nz = mem[i * FRAME_WORDS + k] != 0;
        if (!nz) continue;
        printf("frame %08x %d", model_far_of_index(&dev, i), wr[i]);
        for (k = 0; k < FRAME_WORDS; k++) printf(" %08x", mem[i * FRAME_WORDS + k]);
        printf("\n");
    }
    return 0;
}
#endif

int main(int argc, char **argv) {
    int i, rc = 0;
    static char line[APP_LINE_MAX > 512u ? APP_LINE_MAX : 512u];
    if (argc == 3 && !strcmp(argv[1], "--replay")) return replay(argv[2]);
    if (app_model_setup() && argc < 2) return 1;
    for (i = 1; i < argc; i++) {
        strncpy(line, argv[i], sizeof line - 1);
        line[sizeof line - 1] = 0;
        rc = app_command(line);
    }
    (void)rc;
    return 0;
}
