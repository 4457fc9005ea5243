/* startup.S - bare-metal start-up for the Zynq-7000 Cortex-A9 (CPU0): vector table, SVC-mode stack,
 * .bss cleared, VFP left off (soft-float build), then main(). Other exceptions hang. */
    .syntax unified
    .arm
    .section .vectors, "ax"
    .global _start
_start:
    b   reset
    b   hang        /* undefined */
    b   hang        /* SVC */
    b   hang        /* prefetch abort */
    b   hang        /* data abort */
    b   hang
    b   hang        /* IRQ */
    b   hang        /* FIQ */

    .text
reset:
    mrc p15, 0, r0, c0, c0, 5   /* MPIDR: only CPU0 runs */
    ands r0, r0, #3
    bne hang
    ldr r0, =_vectors_base
    mcr p15, 0, r0, c12, c0, 0  /* VBAR */
    cpsid if
    ldr sp, =__stack_top
    ldr r0, =__bss_start
    ldr r1, =__bss_end
    mov r2, #0
1:  cmp r0, r1
    strlo r2, [r0], #4
    blo 1b
    bl  main
hang:
    wfi
    b   hang
