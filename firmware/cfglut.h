/* cfglut.h - driver of the CFGLUT5 loader of a `dcsflow build --tlut cfglut5` build (C99).
 *
 * The loader (flow/templates/cfglut/dcs_cfglut_loader.v; docs/formats.md "CFGLUT5 chain words and
 * loader, version 1") is an AXI4-Lite slave of 2**ADDR_WIDTH bytes: registers 0x00 CONTROL ([0] START,
 * [1] IRQ_ENABLE, [2] CLEAR), 0x04 STATUS ([0] BUSY, [1] DONE, [2] ERROR, [3] SHIFTING), 0x08 INFO
 * ([15:0] CHAINS, [31:16] CHAIN_LUTS), 0x0C BUILD_ID, 0x10 WORDS, 0x14 STRIDE_LOG2, and the word window
 * at 2**(ADDR_WIDTH-1) + 4*(g*2**STRIDE_LOG2 + t) for chain word (g, t). Every register access goes
 * through a hal_bus (hal.h): MMIO on the board, the C model (cfglut_model.h) on the host and in QEMU.
 * Error codes are shared with scg/rekey.py (ERROR_CODES) and scg/cfglut_loader.py.
 */
#ifndef SCG_CFGLUT_H
#define SCG_CFGLUT_H
#include <stdint.h>
#include "hal.h"

#define CFGLUT_CONTROL 0x00u
#define CFGLUT_STATUS 0x04u
#define CFGLUT_INFO 0x08u
#define CFGLUT_BUILD_ID 0x0Cu
#define CFGLUT_WORDS 0x10u
#define CFGLUT_STRIDE_LOG2 0x14u
#define CFGLUT_START 1u
#define CFGLUT_IRQ_EN 2u
#define CFGLUT_CLEAR 4u
#define CFGLUT_BUSY 1u
#define CFGLUT_DONE 2u
#define CFGLUT_ERROR 4u

#define CFGLUT_ERR_TIMEOUT (-1)  /* no DONE within `timeout` STATUS polls */
#define CFGLUT_ERR_CONFIG (-3)   /* the loader set STATUS.ERROR */
#define CFGLUT_ERR_DESIGN (-11)  /* INFO/BUILD_ID/WORDS/STRIDE_LOG2 differ: a loader of another build */
#define CFGLUT_ERR_WRITE (-14)   /* the loader is busy: nothing written */

typedef struct cfglut_loader {
    hal_bus bus;
    uint32_t chains, chain_luts, build_id, words, stride_log2, addr_width;
    uint32_t timeout;          /* STATUS polls before CFGLUT_ERR_TIMEOUT */
    uint32_t reg_accesses, polls;
} cfglut_loader;

/* Set up the driver for the loader of a build (its figures from scg_gen.h); no register access. */
void cfglut_init(cfglut_loader *l, hal_bus bus, uint32_t chains, uint32_t chain_luts, uint32_t build_id,
                 uint32_t addr_width, uint32_t timeout);
/* Compare INFO, BUILD_ID, WORDS, STRIDE_LOG2 with the build's. 0 or CFGLUT_ERR_DESIGN. */
int cfglut_check(cfglut_loader *l);
/* Load l->words chain words `w` (word order): refuse BUSY, CLEAR (IRQ_ENABLE kept), write the word
 * window, check ERROR, START, poll STATUS until DONE. 0 or a CFGLUT_ERR_* code. */
int cfglut_load(cfglut_loader *l, const uint32_t *w);
#endif
