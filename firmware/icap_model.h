/* icap_model.h - C model of the AXI HWICAP (PG134) and the 7-series configuration memory.
 *
 * Same semantics as the Python models scg/emulator.py (ConfigEmulator) and scg/hwicap.py (AxiHwicap);
 * their docstrings are the specification, and tests/test_scg_firmware.py replays identical register
 * traces through both and compares every read value, the frame memory and the counters.
 * Differences: the output (read-back) queue holds at most MODEL_OUT_WORDS data words and
 * MODEL_OUT_SEGS segments (more is dropped and counted in out_overflows; the Python queue is
 * unbounded); registers above 63 are kept in a table of MODEL_XREGS entries.
 *
 * Fault injection (the same hooks exist in the Python test models, tests/_scg_faults.py):
 *   fault_stall_words: when > 0 and at least that many words went to the ICAP, the core stalls:
 *       WFV reads 0 and CR Write is ignored, until CR Abort or SW reset (which disarm the fault).
 *   fault_abort_words: when > 0, the CR Write that carries the ICAP past that many words sends the
 *       words up to it, then the configuration logic aborts (loses sync), then the rest; one-shot.
 * The devcfg block (Zynq CTRL register, PCAP_PR bit 27) is modelled by devcfg_ctrl.
 */
#ifndef SCG_ICAP_MODEL_H
#define SCG_ICAP_MODEL_H
#include <stdint.h>
#include "hal.h"

#define FRAME_WORDS 101
#ifndef MODEL_MAX_FRAMES
#define MODEL_MAX_FRAMES 10008
#endif
#define MODEL_MAX_ROWS 32
#define MODEL_OUT_WORDS (1u << 16)
#define MODEL_OUT_SEGS 256
#define MODEL_XREGS 64

/* Device description: idcode, n_rows, then per row: (block<<16 | bottom<<8 | row), ncols, counts[ncols].
 * Written by scg.codegen (device table, FDRI order as scg.device.Device.rows). */
typedef struct model_device {
    uint32_t idcode;
    uint32_t n_rows;
    uint32_t row_key[MODEL_MAX_ROWS];   /* block<<16 | bottom<<8 | row */
    uint32_t row_ncols[MODEL_MAX_ROWS];
    const uint32_t *row_counts[MODEL_MAX_ROWS];
    uint32_t row_base[MODEL_MAX_ROWS];  /* frame index of the row's first frame */
    uint32_t n_frames;
} model_device;

int model_device_load(model_device *d, const uint32_t *table);
int32_t model_far_index(const model_device *d, uint32_t far);   /* -1: not a frame */
uint32_t model_far_of_index(const model_device *d, uint32_t idx);
int model_row_end(const model_device *d, uint32_t idx);

typedef struct { uint32_t kind, value, count, pos; } model_seg; /* kind 0: repeat value; 1: data ring */

typedef struct cfg_model {
    const model_device *dev;
    uint32_t *mem;          /* n_frames * 101 words */
    uint8_t *written;
    int synced, in_error, id_error, crc_error;
    uint32_t crc, far;
    int32_t fidx;
    uint32_t regs[64];
    uint32_t xreg_key[MODEL_XREGS], xreg_val[MODEL_XREGS], n_xregs;
    uint32_t remaining;
    int32_t reg, last_reg;  /* -1: none */
    uint32_t buf[FRAME_WORDS], buf_len;
    uint32_t held[FRAME_WORDS];
    int has_held;
    uint32_t skip;
    model_seg segs[MODEL_OUT_SEGS];
    uint32_t seg_head, seg_n;
    uint32_t ring[MODEL_OUT_WORDS];
    uint32_t ring_head, ring_len;
    uint32_t out_len;
    struct {
        uint32_t words, packets, frames_written, pad_frames, dropped_frames, readback_words,
            crc_checks, crc_errors, bad_headers, ignored_writes, out_overflows;
    } st;
} cfg_model;

void cfg_init(cfg_model *m, const model_device *dev, uint32_t *mem, uint8_t *written);
void cfg_reset(cfg_model *m);
void cfg_abort(cfg_model *m);
void cfg_write_words(cfg_model *m, const uint32_t *w, uint32_t n);
uint32_t cfg_read_words(cfg_model *m, uint32_t *out, uint32_t n);
uint32_t cfg_stat(const cfg_model *m);

#define HWICAP_WF_DEPTH_MAX 4096
#define HWICAP_RF_DEPTH_MAX 4096
typedef struct hwicap_model {
    cfg_model *emu;
    uint32_t wdepth, rdepth;
    uint32_t wfifo[HWICAP_WF_DEPTH_MAX], wlen;
    uint32_t rfifo[HWICAP_RF_DEPTH_MAX], rhead, rlen;
    uint32_t sz, gier, ipier, ipisr, pending;
    uint32_t devcfg_ctrl;
    uint32_t fault_stall_words, fault_abort_words;
    int stalled;
    struct {
        uint32_t reg_reads, reg_writes, reads_by_reg[10], writes_by_reg[10], icap_words_in,
            icap_words_out, wf_overflows, rf_underflows, bad_accesses;
    } st;
} hwicap_model;

void hwm_init(hwicap_model *h, cfg_model *emu, uint32_t wdepth, uint32_t rdepth);
void hwm_reset_counters(hwicap_model *h);
uint32_t hwm_read(hwicap_model *h, uint32_t off);
void hwm_write(hwicap_model *h, uint32_t off, uint32_t v);
int hwm_reg_slot(uint32_t off); /* index 0..9 in GIER, IPISR, IPIER, WF, RF, SZ, CR, SR, WFV, RFO; -1 */
hal_bus hwm_bus(hwicap_model *h);
hal_bus hwm_devcfg_bus(hwicap_model *h); /* devcfg CTRL at offset 0 */

uint32_t model_crc_update(uint32_t crc, uint32_t reg, uint32_t word);

#endif
