; π32: π-Cipher v2 permutation on 32-bit words. Every 64-bit word holds two 32-bit lanes, so one
; run computes π of two independent states (state k in lane k); constants are replicated.
.lanes 32
.equ REP, 0x0000000100000001
.equ MR0, 5
.equ MR1, 11
.equ MR2, 17
.equ MR3, 23
.equ NR0, 3
.equ NR1, 10
.equ NR2, 19
.equ NR3, 29
; μ and ν constants
.coef 24, 0xF0E8E4E2 * REP
.coef 25, 0xE1D8D4D2 * REP
.coef 26, 0xD1CCCAC9 * REP
.coef 27, 0xC6C5C3B8 * REP
.coef 28, 0xB4B2B1AC * REP
.coef 29, 0xAAA9A6A5 * REP
.coef 30, 0xA39C9A99 * REP
.coef 31, 0x9695938E * REP
; round 0: C1, C2
.coef 0, 0x8D8B8778 * REP
.coef 1, 0x7472716C * REP
.coef 2, 0x6A696665 * REP
.coef 3, 0x635C5A59 * REP
.coef 4, 0x5655534E * REP
.coef 5, 0x4D4B473C * REP
.coef 6, 0x3A393635 * REP
.coef 7, 0x332E2D2B * REP
; round 1
.coef 8, 0x271E1D1B * REP
.coef 9, 0x170FF0E8 * REP
.coef 10, 0xE4E2E1D8 * REP
.coef 11, 0xD4D2D1CC * REP
.coef 12, 0xCAC9C6C5 * REP
.coef 13, 0xC3B8B4B2 * REP
.coef 14, 0xB1ACAAA9 * REP
.coef 15, 0xA6A5A39C * REP
; round 2
.coef 16, 0x9A999695 * REP
.coef 17, 0x938E8D8B * REP
.coef 18, 0x87787472 * REP
.coef 19, 0x716C6A69 * REP
.coef 20, 0x6665635C * REP
.coef 21, 0x5A595655 * REP
.coef 22, 0x534E4D4B * REP
.coef 23, 0x473C3A39 * REP
.include "pi_body.inc"
