; π16: π-Cipher v2 permutation on 16-bit words. Every 64-bit word holds four 16-bit lanes, so one
; run computes π of four independent states (state k in lane k); constants are replicated.
.lanes 16
.equ REP, 0x0001000100010001
.equ MR0, 1
.equ MR1, 4
.equ MR2, 9
.equ MR3, 11
.equ NR0, 2
.equ NR1, 5
.equ NR2, 7
.equ NR3, 13
; μ and ν constants
.coef 24, 0xF0E8 * REP
.coef 25, 0xE4E2 * REP
.coef 26, 0xE1D8 * REP
.coef 27, 0xD4D2 * REP
.coef 28, 0xD1CC * REP
.coef 29, 0xCAC9 * REP
.coef 30, 0xC6C5 * REP
.coef 31, 0xC3B8 * REP
; round 0: C1, C2
.coef 0, 0xB4B2 * REP
.coef 1, 0xB1AC * REP
.coef 2, 0xAAA9 * REP
.coef 3, 0xA6A5 * REP
.coef 4, 0xA39C * REP
.coef 5, 0x9A99 * REP
.coef 6, 0x9695 * REP
.coef 7, 0x938E * REP
; round 1
.coef 8, 0x8D8B * REP
.coef 9, 0x8778 * REP
.coef 10, 0x7472 * REP
.coef 11, 0x716C * REP
.coef 12, 0x6A69 * REP
.coef 13, 0x6665 * REP
.coef 14, 0x635C * REP
.coef 15, 0x5A59 * REP
; round 2
.coef 16, 0x5655 * REP
.coef 17, 0x534E * REP
.coef 18, 0x4D4B * REP
.coef 19, 0x473C * REP
.coef 20, 0x3A39 * REP
.coef 21, 0x3635 * REP
.coef 22, 0x332E * REP
.coef 23, 0x2D2B * REP
.include "pi_body.inc"
