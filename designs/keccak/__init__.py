"""Models and vectors of the upcoming Keccak design (the GMU multi-purpose Keccak core: SHA3-256,
SHAKE128, KMAC128, Lake Keyak). Not yet a registered design: RTL of the permutation and the hash
modes (``rtl/``, driven by :mod:`dcsflow.designs.keccak.sim`), no ``Design`` entry point.

Golden model: :mod:`dcsflow.designs.keccak.model`; Lake Keyak v1 known-answer records:
:mod:`dcsflow.designs.keccak.vectors` (``vectors/LakeKeyak.txt``).
"""
