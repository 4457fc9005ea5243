"""The DES-style benchmark circuit (``tmap.generators.triple_des``): its tables and its sequential
behaviour against pycryptodome (a second implementation), and its mapping from a parameter list written
for another TLUT tool (key parity bits named, absent from the AIG)."""

from __future__ import annotations

import json
import random

from Crypto.Cipher import DES, DES3

from dcsflow.tmap import _des
from dcsflow.aig import write_aiger
from dcsflow.tmap.generators import triple_des


def test_des_tables_against_pycryptodome():
    rng = random.Random(7)
    for _ in range(40):
        key, block = rng.randbytes(8), rng.randbytes(8)
        ref = DES.new(key, DES.MODE_ECB)
        assert _des.encrypt_block(key, block) == ref.encrypt(block)
        assert _des.encrypt_block(key, block, decrypt=True) == ref.decrypt(block)


def _bit(bs: bytes, i: int) -> int:
    """Bit i of a 64-bit block, FIPS 46-3 numbering from 0 (0 = MSB)."""
    return int.from_bytes(bs, "big") >> (63 - i) & 1


def test_triple_des_circuit_encrypts_like_pycryptodome():
    g, params = triple_des()
    assert len(params) == 168 and all(n in g.latch_names for n in params)
    assert "key1_in[7]" not in g.input_names and "key3_in[62]" in g.input_names
    rng = random.Random(3)
    W = 6  # bit-parallel patterns
    keys = [[rng.randbytes(8) for _ in range(3)] for _ in range(W)]
    blocks = [[rng.randbytes(8) for _ in range(3)] for _ in range(W)]
    ones = (1 << W) - 1
    latch = [0] * g.num_latches

    def step(values):
        out = g.simulate([values.get(n, 0) for n in g.input_names], width=W, latch_values=latch,
                         with_latches=True)
        latch[:] = out[g.num_outputs:]
        return out[:g.num_outputs]

    kin = {f"key{u + 1}_in[{i}]": sum(_bit(keys[w][u], i) << w for w in range(W))
           for u in range(3) for i in range(64) if i % 8 != 7}
    step({**kin, "key_load": ones})
    for b in range(3):  # three starts, 16 rounds each: block 0 passes the three DES units
        step({"start": ones, **{f"din[{i}]": sum(_bit(blocks[w][b], i) << w for w in range(W))
                                for i in range(64)}})
        for _ in range(16):
            out = step({})
    out = step({})
    for w in range(W):
        got = sum((out[i] >> w & 1) << (63 - i) for i in range(64)).to_bytes(8, "big")
        assert got == DES3.new(b"".join(keys[w]), DES3.MODE_ECB).encrypt(blocks[w][0])


def test_map_des_with_other_tools_parameter_list(tmp_path, dcsflow):
    g, params = triple_des()
    f = tmp_path / "tdes.aig"
    write_aiger(g, f)
    names = [f"key{u}_in[{i}]" for u in (1, 2, 3) for i in range(64)]
    p = tmp_path / "tdes.params"
    p.write_text("\n".join(names) + "\n")
    r = dcsflow("map", f, "--params", p, "--param-latches", "--no-baseline", "--json")
    assert r.returncode == 0, r.stderr
    warn = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warn) == 1 and warn[0].startswith(
        "warning: 24 of 192 parameter names are not inputs of the AIG and were skipped: key1_in[7], key1_in[15],")
    assert warn[0].endswith("(+18 more)")
    d = json.loads(r.stdout.strip().splitlines()[-1])
    parity = [n for n in names if int(n.split("[")[1][:-1]) % 8 == 7]
    assert d["params_missing"] == parity and len(d["params_used"]) == 168
    assert d["verified"] is True
    # the key registers became parameters: every subkey multiplexer is folded into TLUTs
    assert d["tluts"] >= 3 * 48 and d["depth"] <= 5 and d["luts"] < 1197
