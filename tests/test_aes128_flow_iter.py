"""The whole flow on aes128_iter: build (TLUT + conventional with the on-the-fly key schedule), check on
all 284 CAVP KAT vectors, check --frames, rekey, codegen, firmware on the host and in QEMU."""

from __future__ import annotations

from _aes_flow import whole_flow


def test_aes128_iter_whole_flow(tmp_path, dcsflow):
    rep = whole_flow("aes128_iter", tmp_path, dcsflow)
    c, t = rep["conventional"], rep["tlut"]
    assert t["ffs"] <= c["ffs"] - 128               # the on-the-fly round-key register is gone
