/* scg_util.c - hex parsing of parameter values and zeroization, shared by both SCG runtimes
 * (scg_runtime.c for frames builds, app_cfglut.c for cfglut5 builds) and the console's command-line words;
 * declared in scg_util.h. */
#include "scg_util.h"

int scg_parse_hex(const char *hex, uint8_t *out, uint32_t bits);

void scg_zeroize(void *p, uint32_t n) {
    volatile uint8_t *q = (volatile uint8_t *)p;
    while (n--) *q++ = 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int scg_parse_hex_at(const char *hex, uint8_t *out, uint32_t bits, uint32_t *pos) {
    uint32_t n = 0, i, digits = (bits + 3u) / 4u, skip = 0;
    *pos = 0;
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) { hex += 2; skip = 2; }
    for (n = 0; hex[n]; n++)                         /* the first character that is not a hex digit */
        if (hexval(hex[n]) < 0) { *pos = skip + n + 1u; return SCG_HEX_NOT_HEX; }
    if (n != digits) { *pos = n; return SCG_HEX_DIGITS; }
    for (i = 0; i < (bits + 7u) / 8u; i++) out[i] = 0;
    for (i = 0; i < n; i++) {
        uint32_t v = (uint32_t)hexval(hex[n - 1 - i]);
        if (4u * i + 4u > bits && (v >> (bits - 4u * i))) {
            scg_zeroize(out, (bits + 7u) / 8u);      /* no part of a refused value stays behind */
            return SCG_HEX_TOO_LARGE;
        }
        out[i / 2] |= (uint8_t)(v << (4u * (i & 1u)));
    }
    return 0;
}

int scg_parse_hex(const char *hex, uint8_t *out, uint32_t bits) {
    uint32_t pos;
    return scg_parse_hex_at(hex, out, bits, &pos) ? -1 : 0;
}

int scg_streq(const char *a, const char *b) {
    while (*a && *a == *b) { a++; b++; }
    return *a == *b;
}

char *scg_word(char **p) {
    char *s = *p, *w;
    while (*s == ' ' || *s == '\t') s++;
    w = s;
    while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') s++;
    if (*s) *s++ = 0;
    *p = s;
    return w;
}

uint32_t scg_num(const char *s) {
    uint32_t v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10u + (uint32_t)(*s++ - '0');
    return v;
}

uint32_t scg_crc32_words(const uint32_t *w, uint32_t n) {
    uint32_t crc = 0xFFFFFFFFu, i, b, k;
    for (i = 0; i < n; i++)
        for (b = 0; b < 4; b++) {
            crc ^= (w[i] >> (8 * b)) & 0xFFu;
            for (k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    return ~crc;
}

void scg_pseudo_fill(uint8_t *p, uint32_t n, uint32_t *state) {
    uint32_t x = *state, k;
    for (k = 0; k < n; k++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; p[k] = (uint8_t)x; }
    *state = x;
}
