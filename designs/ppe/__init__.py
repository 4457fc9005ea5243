"""The ARX programmable processing element (PPE): ISA, assembler, instruction-set simulator, RTL,
programs, and the BMW-512 golden model."""
