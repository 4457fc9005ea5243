/* hwicap.h - AXI HWICAP driver (Xilinx PG134) for 7-series / Zynq-7000 micro-reconfiguration.
 *
 * No vendor SDK. Register access through hal_bus (hal.h). Packet sequences follow UG470 and the
 * vendor driver (shared/xc7/FACTS.md "Frame read and write sequences"):
 *   read:  DUMMY, 000000BB, 11220044, DUMMY, SYNC, NOOP; CMD RCRC, 6 NOOP; CMD RCFG, NOOP; FAR;
 *          FDRO type-1 + type-2 (count+1)*101 words; 32 NOOP; read (dummy frame dropped); CMD DESYNC.
 *   write: DUMMY, SYNC, 2 NOOP; CMD RCRC, 2 NOOP; IDCODE; FAR; CMD WCFG, NOOP; FDRI type-1 +
 *          type-2 with the frames and one pad frame; [status check]; CMD RCRC, 2 NOOP; FAR parked
 *          (0x03BE0000); CMD DESYNC, 2 NOOP.
 * Every register poll is bounded by `timeout` polls; errors are the HWICAP_ERR_* codes below.
 */
#ifndef SCG_HWICAP_H
#define SCG_HWICAP_H
#include <stdint.h>
#include "hal.h"

#define HWICAP_OK 0
#define HWICAP_ERR_TIMEOUT (-1)  /* a FIFO or operation did not complete within `timeout` polls */
#define HWICAP_ERR_IDCODE (-2)   /* the device's IDCODE differs from the expected one */
#define HWICAP_ERR_CONFIG (-3)   /* configuration logic reported an error (CFGERR_N low) */
#define HWICAP_ERR_SYNC (-4)     /* synchronisation lost during a write (ICAP abort) */
#define HWICAP_ERR_ARG (-5)      /* bad argument (frame count 0, crosses a row, ...) */

/* register offsets (PG134) */
#define HWICAP_GIER 0x1Cu
#define HWICAP_IPISR 0x20u
#define HWICAP_IPIER 0x28u
#define HWICAP_WF 0x100u
#define HWICAP_RF 0x104u
#define HWICAP_SZ 0x108u
#define HWICAP_CR 0x10Cu
#define HWICAP_SR 0x110u
#define HWICAP_WFV 0x114u
#define HWICAP_RFO 0x118u
#define HWICAP_CR_WRITE 1u
#define HWICAP_CR_READ 2u
#define HWICAP_CR_FIFO_CLEAR 4u
#define HWICAP_CR_SW_RESET 8u
#define HWICAP_CR_ABORT 16u
#define HWICAP_SR_DONE 1u
#define HWICAP_SR_DALIGN (1u << 7)
#define HWICAP_SR_CFGERR_N (1u << 8)
/* Zynq-7000 devcfg: CTRL at 0xF8007000 offset 0, bit 27 PCAP_PR (1 = PCAP, 0 = ICAP) (UG585) */
#define ZYNQ_DEVCFG_BASE 0xF8007000u
#define ZYNQ_DEVCFG_CTRL 0x0u
#define ZYNQ_DEVCFG_PCAP_PR (1u << 27)
#define HWICAP_PARK_FAR 0x03BE0000u
#define HWICAP_FRAME_WORDS 101u

typedef struct hwicap {
    hal_bus bus;
    uint32_t idcode;    /* expected device IDCODE (bits [27:0] compared) */
    uint32_t timeout;   /* maximum polls per wait */
    uint32_t icap_words_in, icap_words_out, reg_accesses; /* counters (driver side) */
} hwicap;

/* Select the ICAP over the PCAP (devcfg may be NULL: not a Zynq), reset the core, read the
 * device's IDCODE through the ICAP and compare bits [27:0] with `idcode`. */
int hwicap_init(hwicap *h, hal_bus bus, const hal_bus *devcfg, uint32_t idcode, uint32_t timeout);
int hwicap_read_idcode(hwicap *h, uint32_t *idcode);
int hwicap_write_words(hwicap *h, const uint32_t *w, uint32_t n);
int hwicap_read_words(hwicap *h, uint32_t *w, uint32_t n);
/* Read `count` consecutive frames from `far` into out[count*101]. */
int hwicap_read_frames(hwicap *h, uint32_t far, uint32_t count, uint32_t *out);
/* Write `count` consecutive frames (one configuration row at most) from `far`. */
int hwicap_write_frames(hwicap *h, uint32_t far, const uint32_t *frames, uint32_t count);
/* Recovery after an error: CR Abort, SW reset, FIFO clear; then a DESYNC so the configuration
 * logic is in its idle state. */
int hwicap_recover(hwicap *h);

#endif
