/* icapdma.h - driver of the ICAPE2 stream controller (flow/templates/icapdma/dcs_icap_dma.v) of a
 * `dcsflow build --backend vivado --transport icap-dma` build (C99).
 *
 * The controller reads a configuration packet stream (UG470) from memory through an AXI4 master (a
 * Zynq S_AXI_HP port) and feeds ICAPE2 one word per cycle; it never leaves the port inside a packet
 * (docs/formats.md "ICAP stream controller, version 1"; the same steps as scg/icapdma.py
 * IcapDmaSession). Registers (byte offsets): 0x00 CONTROL ([0] START [1] ABORT [2] CLEAR [3]
 * IRQ_ENABLE), 0x04 STATUS ([0] BUSY [1] DONE [2] ERROR [3] SYNCED [4] PORT_ABORTED [5] DESYNC_ADDED,
 * errors [8] PACKET [9] BUS [10] ABORT [11] START [12] SHORT), 0x08 ADDRESS, 0x0C LENGTH, 0x10
 * WORDS_SENT, 0x14 BUILD_ID, 0x18 REKEY_WORDS, 0x1C MAGIC, 0x20 INFO. Every register access goes
 * through a hal_bus (hal.h): MMIO on the board, the C model (icapdma_model.h) on the host and in QEMU.
 *
 * The rekey's words are the AXI HWICAP driver's sequence run by run (icapdma_put_run: sync, RCRC,
 * IDCODE, FAR, WCFG, FDRI with the frames and one pad frame, RCRC, parked FAR, DESYNC), all runs in
 * one transfer from the DMA buffer, which must be 64-byte aligned and hold the words rounded up to
 * whole 64-byte lines (the controller reads whole lines). The firmware's MMU and data cache are off
 * (startup.S), so the buffer is in DDR when START is written; a DSB orders the stores first.
 * Error codes are shared with scg/rekey.py (ERROR_CODES).
 */
#ifndef SCG_ICAPDMA_H
#define SCG_ICAPDMA_H
#include <stdint.h>
#include "hal.h"

#define ICAPDMA_CONTROL 0x00u
#define ICAPDMA_STATUS 0x04u
#define ICAPDMA_ADDRESS 0x08u
#define ICAPDMA_LENGTH 0x0Cu
#define ICAPDMA_WORDS_SENT 0x10u
#define ICAPDMA_BUILD_ID 0x14u
#define ICAPDMA_REKEY_WORDS 0x18u
#define ICAPDMA_MAGIC 0x1Cu
#define ICAPDMA_INFO 0x20u
#define ICAPDMA_START 1u
#define ICAPDMA_ABORT 2u
#define ICAPDMA_CLEAR 4u
#define ICAPDMA_IRQ_ENABLE 8u
#define ICAPDMA_BUSY 1u
#define ICAPDMA_DONE 2u
#define ICAPDMA_ERROR 4u
#define ICAPDMA_SYNCED 8u
#define ICAPDMA_PORT_ABORTED 16u
#define ICAPDMA_DESYNC_ADDED 32u
#define ICAPDMA_ERR_PACKET (1u << 8)
#define ICAPDMA_ERR_BUS (1u << 9)
#define ICAPDMA_ERR_ABORTED (1u << 10)
#define ICAPDMA_ERR_START (1u << 11)
#define ICAPDMA_ERR_SHORT (1u << 12)
#define ICAPDMA_ERR_BITS (0x1Fu << 8)
#define ICAPDMA_MAGIC_VALUE 0x49434441u
#define ICAPDMA_VERSION 1u
#define ICAPDMA_INFO_STREAM (1u << 8)
#define ICAPDMA_LINE_WORDS 16u
/* words of one run of `count` frames: 17 header words, the frames and a pad frame, 10 trailer words */
#define ICAPDMA_RUN_WORDS(count) (27u + 101u * ((count) + 1u))

#define ICAPDMA_OK 0
#define ICAPDMA_ERR_TIMEOUT (-1)  /* no DONE within `timeout` polls (ABORT written) */
#define ICAPDMA_ERR_CONFIG (-3)   /* the controller set an error bit: see words_sent and status */
#define ICAPDMA_ERR_ARG (-5)      /* a stream of another length than the build's, or one the buffer cannot hold */
#define ICAPDMA_ERR_DESIGN (-11)  /* no controller, or the controller of another build (MAGIC, INFO, BUILD_ID, REKEY_WORDS) */
#define ICAPDMA_ERR_WRITE (-14)   /* the controller is busy, or refused START: nothing sent */

typedef struct icapdma {
    hal_bus bus;
    uint32_t idcode;            /* the device's (written in every run's IDCODE packet) */
    uint32_t build_id, rekey_words;
    uint32_t *buf;              /* the DMA buffer: CPU pointer, bus address, capacity in words */
    uint32_t buf_phys, buf_words;
    uint32_t timeout;           /* STATUS polls per transfer */
    uint32_t icap_words_in, reg_accesses;  /* counters (driver side) */
    uint32_t words_sent, status;           /* WORDS_SENT and STATUS after the last transfer */
} icapdma;

/* Select the ICAP over the PCAP (devcfg may be NULL: not a Zynq) and check the controller: MAGIC,
 * INFO (version 1, memory input), BUILD_ID and REKEY_WORDS. No word is sent. ICAPDMA_OK or
 * ICAPDMA_ERR_DESIGN. */
int icapdma_init(icapdma *d, hal_bus bus, const hal_bus *devcfg, uint32_t idcode, uint32_t build_id,
                 uint32_t rekey_words, uint32_t *buf, uint32_t buf_phys, uint32_t buf_words, uint32_t timeout);
/* Write the words that write `count` consecutive frames from `far` (one run) at dst; returns their number
 * (ICAPDMA_RUN_WORDS(count)). */
uint32_t icapdma_put_run(uint32_t *dst, uint32_t idcode, uint32_t far, const uint32_t *frames, uint32_t count);
/* Stream the first `n` words of the buffer: refuse n other than rekey_words or more than the buffer
 * holds (whole lines), and a busy controller; CLEAR, ADDRESS, LENGTH, START, poll STATUS until DONE. */
int icapdma_send(icapdma *d, uint32_t n);
/* After a failure: ABORT (if still busy, the port is finished at a packet boundary) and CLEAR. */
int icapdma_recover(icapdma *d);
/* Frames of a run of `count` frames whose words start at stream word `start` that are in configuration
 * memory after `sent` stream words (a frame is written when the next one, or the pad frame, is complete). */
uint32_t icapdma_frames_done(uint32_t start, uint32_t count, uint32_t sent);
#endif
