/* qemu_main.c - QEMU build (make qemu-test): firmware + C model on the emulated Cortex-A9.
 * Commands come from the semihosting command line, separated by ';' (e.g. "x;rekey 1a2b;verify on"),
 * output goes to the semihosting console. */
#include <stdint.h>
#include "app.h"

int semihost_cmdline(char *buf, uint32_t size);
void semihost_exit(int code);

static char cmdline[4096];

int main(void) {
    char *p, *start;
    int n;
    hal_cycles_init();
    app_model_setup();
    n = semihost_cmdline(cmdline, sizeof cmdline);
    if (n > 0) {
        /* skip the program name */
        p = cmdline;
        while (*p && *p != ' ') p++;
        start = p;
        for (;;) {
            if (*p == ';' || *p == 0) {
                char c = *p;
                *p = 0;
                app_command(start);
                if (!c) break;
                start = p + 1;
            }
            p++;
        }
    }
    con_puts("done\n");
    semihost_exit(0);
    return 0;
}
