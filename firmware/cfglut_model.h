/* cfglut_model.h - C model of the CFGLUT5 loader's registers (host and QEMU builds), the same rules
 * as scg/cfglut_loader.py LoaderModel: START holds BUSY for `shift_polls` STATUS reads, then DONE; a
 * word write or START while BUSY, or a word outside the used window, sets ERROR. `shifted` holds the
 * words of the last completed load in word order (what reached the CFGLUT5 chains). */
#ifndef SCG_CFGLUT_MODEL_H
#define SCG_CFGLUT_MODEL_H
#include <stdint.h>
#include "hal.h"

#define CFGLUT_MODEL_MAX_WORDS 8192u

typedef struct cfglut_model {
    uint32_t chains, chain_luts, build_id, addr_width, s, g, sl;
    uint32_t mem[CFGLUT_MODEL_MAX_WORDS];      /* group g at g * 2**sl */
    uint32_t shifted[CFGLUT_MODEL_MAX_WORDS];
    uint32_t loads, shift_polls, left;
    int busy, done, error, irq_en;
    int fault_error, stuck;                    /* START sets ERROR | a START never ends */
} cfglut_model;

/* 0, or -1 when the loader's words do not fit the model. */
int cfglut_model_init(cfglut_model *m, uint32_t chains, uint32_t chain_luts, uint32_t build_id, uint32_t addr_width);
hal_bus cfglut_model_bus(cfglut_model *m);
#endif
