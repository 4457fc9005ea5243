"""The ARX programmable processing element (PPE): ISA, assembler, instruction-set simulator, RTL and programs."""
