"""The whole flow on aes128_pipe: build (TLUT + conventional), check on all 284 CAVP KAT vectors,
check --frames, rekey, codegen, firmware on the host and in QEMU."""

from __future__ import annotations

from _aes_flow import whole_flow


def test_aes128_pipe_whole_flow(tmp_path, dcsflow):
    rep = whole_flow("aes128_pipe", tmp_path, dcsflow)
    c, t = rep["conventional"], rep["tlut"]
    # key buffer + 9 stages of round-key registers + the key-step S-box registers Yosys made: folded
    assert rep["parameter_registers_folded"] >= 10 * 128
    assert t["ffs"] <= c["ffs"] - 10 * 128 and t["depth"] <= c["depth"]
