/* console.c - number and text output of the console, shared by both applications (app.c for frames
 * builds, app_cfglut.c for cfglut5 builds) over the platform's con_putc; declared in app.h. */
#include "app.h"
#include "scg_util.h"

void con_puts(const char *s) { while (*s) con_putc(*s++); }
void con_dec(uint32_t v) {
    char b[11]; int i = 10; b[i] = 0;
    do { b[--i] = (char)('0' + v % 10u); v /= 10u; } while (v);
    con_puts(&b[i]);
}
void con_hex(uint32_t v, int digits) {
    static const char h[] = "0123456789abcdef";
    while (digits--) con_putc(h[(v >> (4 * digits)) & 15u]);
}
void con_int(int v) { if (v < 0) { con_putc('-'); con_dec((uint32_t)(-v)); } else con_dec((uint32_t)v); }
void con_hex64(uint64_t v) { con_hex((uint32_t)(v >> 32), 8); con_hex((uint32_t)v, 8); }
void con_key_error(int why, uint32_t pos, uint32_t bits) {
    if (why == SCG_HEX_NOT_HEX) { con_puts(" key_error=not_hex at="); con_dec(pos); }
    else if (why == SCG_HEX_DIGITS) {
        con_puts(" key_error=digits got="); con_dec(pos);
        con_puts(" expected="); con_dec((bits + 3u) / 4u);
    } else if (why) { con_puts(" key_error=too_large bits="); con_dec(bits); }
}
