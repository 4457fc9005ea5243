"""AES-128 modes on the iterative AES-128 core (``aes128_iter``): AES-128-CMAC (NIST SP 800-38B) and
AES-128-GCM (NIST SP 800-38D, 96-bit IV, 128-bit tag), the key as the parameter input.

Work in progress: the golden model (:mod:`dcsflow.designs.aes_modes.model`), the NIST CAVP
known-answer readers (:mod:`dcsflow.designs.aes_modes.vectors`), the errors
(:mod:`dcsflow.designs.aes_modes.errors`), and of the RTL the GF(2^128) multiplier
``rtl/gf128_mul.v`` with its Icarus driver (:mod:`dcsflow.designs.aes_modes.sim`). The design is not registered as a
``dcsflow.designs`` entry point yet.
"""
