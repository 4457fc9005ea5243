/* scg_util.h - helpers shared by both SCG runtimes and applications (scg_runtime.c / app.c for
 * frames builds, app_cfglut.c for cfglut5 builds): hex parsing of parameter values, zeroization, and
 * the command-line words of the console. Implemented in scg_util.c. */
#ifndef SCG_UTIL_H
#define SCG_UTIL_H
#include <stdint.h>

/* scg_parse_hex_at: parse `hex` (optional "0x", exactly (bits+3)/4 digits) into `out` (little-endian
 * bytes); returns 0 or SCG_HEX_NOT_HEX (*pos = index of the first character that is not a hex digit,
 * counted in `hex` as given, "0x" included), SCG_HEX_DIGITS (*pos = number of digits given; `bits`
 * needs (bits+3)/4), SCG_HEX_TOO_LARGE (the leading digit exceeds `bits`). A refused value leaves
 * `out` zero or untouched. For messages that name the reason and the position, never the value (it
 * is a key). */
#define SCG_HEX_NOT_HEX (-1)
#define SCG_HEX_DIGITS (-2)
#define SCG_HEX_TOO_LARGE (-3)
int scg_parse_hex_at(const char *hex, uint8_t *out, uint32_t bits, uint32_t *pos);
void scg_zeroize(void *p, uint32_t n);
/* scg_pseudo_fill: n bytes of xorshift32 (Marsaglia 2003, shifts 13/17/5) from *state, which it
 * advances: the benchmarks' pseudo-random parameter values, not for keys */
void scg_pseudo_fill(uint8_t *p, uint32_t n, uint32_t *state);

/* Console command lines: scg_streq (1 when equal), scg_word (the next blank-separated word of *p,
 * NUL-terminated in place; *p moves past it), scg_num (decimal digits at the start of s). */
int scg_streq(const char *a, const char *b);
char *scg_word(char **p);
uint32_t scg_num(const char *s);

/* CRC-32 (zlib's, reflected 0xEDB88320) over the little-endian bytes of n words: the blobs' checksum. */
uint32_t scg_crc32_words(const uint32_t *w, uint32_t n);
#endif
