"""The Keccak core design (``keccak``, after the GMU multi-purpose Keccak core): SHA3-256, SHAKE128
and KMAC128 on one Keccak-f[1600] datapath (``rtl/``), KMAC128's key and customization string as
parameter inputs; its :class:`~dcsflow.flow.design.Design` description is
``dcsflow.designs.keccak.design.KECCAK``.

Golden model: :mod:`dcsflow.designs.keccak.model` (also Lake Keyak v1, not in the RTL yet); known
answers: :mod:`dcsflow.designs.keccak.hashvec` (NIST CAVP SHA3/SHAKE files, KMAC128 from
pycryptodome) and :mod:`dcsflow.designs.keccak.vectors` (Lake Keyak v1 records).
"""
