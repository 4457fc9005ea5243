/* icapdma_model.h - C model of the ICAPE2 stream controller's registers (host and QEMU builds of a
 * --transport icap-dma build), over the configuration-memory model (icap_model.h cfg_model).
 *
 * The same semantics as the Python model scg/icapdma.py IcapDmaModel (whose docstring and
 * docs/formats.md "ICAP stream controller, version 1" are the specification): a START runs the whole
 * transfer at once, reading words from a memory window (`mem`, `mem_words` words at bus address
 * `mem_phys`; other addresses are bus errors); it follows the packets (sync, write headers, CMD DESYNC),
 * does not send a header whose packet goes past LENGTH (ERR_PACKET), stops at a packet boundary after
 * ABORT (ERR_ABORT), and after a bus error inside a packet signals the ICAP abort (cfg_abort) and sends
 * sync and DESYNC (PORT_ABORTED); a stream that ends synchronised gets DESYNC (DESYNC_ADDED). BUSY then
 * stays set for `busy_polls` STATUS reads.
 *
 * Fault hooks (tests): fault_bus_word (>= 0: that word of the next transfer answers with a bus error),
 * fault_abort_word (>= 0: ABORT arrives in the next transfer once that many words were sent),
 * stuck (BUSY never falls), build_id (change it to be another build's controller).
 */
#ifndef SCG_ICAPDMA_MODEL_H
#define SCG_ICAPDMA_MODEL_H
#include <stdint.h>
#include "hal.h"
#include "icap_model.h"

typedef struct icapdma_model {
    cfg_model *emu;
    const uint32_t *mem;
    uint32_t mem_phys, mem_words;
    uint32_t build_id, rekey_words, busy_polls;
    uint32_t irq_en, status, address, length, words_sent, left, starts, port_words;
    int synced, have_last, last_cmd, cur_cmd;  /* the packet tracker */
    uint32_t remaining;
    int32_t fault_bus_word, fault_abort_word;
    int stuck;
} icapdma_model;

void idm_init(icapdma_model *m, cfg_model *emu, const uint32_t *mem, uint32_t mem_phys, uint32_t mem_words,
              uint32_t build_id, uint32_t rekey_words);
uint32_t idm_read(icapdma_model *m, uint32_t off);
void idm_write(icapdma_model *m, uint32_t off, uint32_t v);
hal_bus idm_bus(icapdma_model *m);
#endif
