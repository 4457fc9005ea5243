/* app.h - demo application: console commands of the SCG firmware (shared by board, QEMU, host). */
#ifndef SCG_APP_H
#define SCG_APP_H
#include <stdint.h>
#include "hal.h"
#include "scg_gen.h"

/* Bits of the value "rekey <hex>" takes: the user parameters of a build with a parameter transform
 * (the firmware runs it first), else the PPC's parameter vector. */
#ifdef SCG_GEN_TRANSFORM
#define APP_VEC_BITS SCG_GEN_USER_BITS
#else
#define APP_VEC_BITS SCG_GEN_PARAM_BITS
#endif
/* The longest command line a console reads: "bench <n> BASE MASK" with both values in hex, margin. */
#define APP_LINE_MAX (2u * ((APP_VEC_BITS + 3u) / 4u) + 64u)

void con_putc(char c);            /* provided by the platform (UART, semihosting, stdio) */
void con_puts(const char *s);
void con_dec(uint32_t v);
void con_hex(uint32_t v, int digits);
void con_int(int v);               /* signed decimal */
void con_hex64(uint64_t v);        /* 16 hex digits */
/* " key_error=..." of a refused parameter: why and pos as scg_parse_hex_at gave them, bits the
 * parameter's width (nothing when why is 0) */
void con_key_error(int why, uint32_t pos, uint32_t bits);

/* Set up: HWICAP on `bus` (devcfg may be NULL), open the generated SCG. Prints "init rc=..". */
int app_init(hal_bus bus, const hal_bus *devcfg);
/* One command line: "rekey <hex>" (the user parameters of a build with a parameter transform),
 * "verify on|off", "hash", "bench <n> [BASE MASK]", "help" (+ model commands
 * "fault stall <n>|abort <n>|idcode|blob", "dump" when built with SCG_MODEL). */
int app_command(char *line);

#ifdef SCG_MODEL
int app_model_setup(void);        /* model instance with the template loaded; then app_init */
#endif
#endif
