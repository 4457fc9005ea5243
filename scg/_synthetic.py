"""A small synthetic build folder following the build-folder contract (tests, firmware demo).

``make_build(dir)`` writes ``ppc.aig`` (a PPC over a ``key_bits``-bit parameter ``key`` (default 16)), ``ppc.json``,
``tlut/framemap.json`` + ``tlut/template.frm`` and ``build.json`` (with every file's SHA-256, so that
:func:`dcsflow.scg.buildfolder.load_build` accepts it; no template netlist) with TLUTs on real xc7z020 LUT
sites (several frame columns, both site kinds, two clock-region rows), so that the touched frames
form several runs. The template holds random non-TLUT bits (kept by every rekey) and the TLUT bits
for an all-zero key, with a consistent frame ECC. With ``affine=True`` (default) it adds
:data:`AFFINE_SITES` TLUTs whose entries are PPC outputs computing ``B[i ^ s(f)] ^ n(f)`` from a
frontier of PPC nodes (:class:`dcsflow.affine.AffineTlut`), with their records in ``ppc.json`` key ``affine``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from dcsflow.aig import Aig, write_aiger
from dcsflow.fileio import write_text_atomic

from .bitstream import FrameMemory
from .buildfolder import BUILD_FORMAT, BUILD_VERSION, FRAMEMAP_FORMAT, PPC_FORMAT, PPC_VERSION, sha256_file
from .device import DEFAULT_PART, ECC_MASK, ECC_WORD, get_device

#: (site, bel) of the synthetic TLUTs.
SITES = [("SLICE_X56Y34", "A6LUT"), ("SLICE_X56Y34", "C6LUT"), ("SLICE_X57Y34", "B6LUT"),
         ("SLICE_X57Y80", "D6LUT"), ("SLICE_X100Y120", "A6LUT"), ("SLICE_X3Y10", "B6LUT")]


#: (site, bel, k, frontier size) of the synthetic affine TLUTs; B6LUT of SLICE_X56Y34 shares its
#: frame word with the generic A6LUT there, SLICE_X57Y34 is a site X1 (SLICEL). A frontier size of
#: None reuses the first TLUT's frontier, columns and complement with another base table (one SCG
#: group of 3 rows, two of them in the same frames). The last one is cheaper entry by entry (2
#: entries), so the SCG patches it generically (scg.affine.generic_cost).
AFFINE_SITES = [("SLICE_X56Y34", "B6LUT", 6, 3), ("SLICE_X57Y80", "A6LUT", 5, 2),
                ("SLICE_X100Y120", "C6LUT", 4, 2), ("SLICE_X57Y34", "D6LUT", 6, 1),
                ("SLICE_X56Y34", "D6LUT", 6, None), ("SLICE_X57Y80", "C6LUT", 6, None),
                ("SLICE_X3Y10", "D6LUT", 1, 1)]


def add_affine(a: Aig, rnd: random.Random, k: int, nf: int, like: dict | None = None) -> tuple[list[int], dict]:
    """Add a random affine TLUT (k inputs, nf frontier bits) to the PPC ``a``: returns the PPC
    output of each of its 2^k entries and its ``ppc.json`` affine record (:class:`dcsflow.affine.AffineTlut` JSON form).
    ``like``: an earlier record whose frontier, columns and complement to reuse (``nf`` ignored)."""
    pool = [2 * (1 + i) for i in range(a.num_inputs)] + [2 * (a.first_and + i) for i in range(len(a.ands))]
    if like is None:
        fr = [p ^ rnd.randrange(2) for p in rnd.sample(pool, nf)]
        cols = [rnd.randrange(1 << k) for _ in range(nf)]
        neg = rnd.randrange(1 << nf)
    else:
        frontier, cols, neg = like["frontier"], like["cols"], like["neg"]
        fr = [a.outputs[j] for j in frontier]
        nf = len(fr)
    base = rnd.randrange(1, (1 << (1 << k)) - 1)   # not constant
    s_lits = []
    for b in range(k):
        lit = 0
        for j in range(nf):
            if cols[j] >> b & 1:
                lit = a.add_xor(lit, fr[j])
        s_lits.append(lit)
    n_lit = 0
    for j in range(nf):
        if neg >> j & 1:
            n_lit = a.add_xor(n_lit, fr[j])
    table = [base >> i & 1 for i in range(1 << k)]
    outs = []
    for i in range(1 << k):
        sel = [s_lits[b] ^ (i >> b & 1) for b in range(k)]
        outs.append(a.add_output(a.add_xor(a.add_mux_tree(sel, table), n_lit)))
    if like is None:
        frontier = [a.add_output(x) for x in fr]
    return outs, {"k": k, "frontier": frontier, "cols": cols, "neg": neg, "base": f"{base:x}"}


def make_ppc(key_bits: int = 16, seed: int = 1) -> Aig:
    """A random PPC: inputs ``key[0..key_bits-1]``, 48 outputs built from XOR/AND/MUX of key bits."""
    rnd = random.Random(seed)
    a = Aig()
    ins = [a.add_input(f"key[{i}]") for i in range(key_bits)]
    pool = list(ins)
    for _ in range(120):
        x, y, z = rnd.sample(pool, 3)
        op = rnd.randrange(3)
        lit = a.add_xor(x, y) if op == 0 else a.add_and(x ^ rnd.randrange(2), y) if op == 1 else a.add_mux(x, y, z)
        pool.append(lit)
    outs = rnd.sample(pool[key_bits:], 46) + [0, 1]
    for o in outs:
        a.add_output(o ^ rnd.randrange(2))
    return a


def make_build(root, seed: int = 1, device: str = DEFAULT_PART, key_bits: int = 16, affine: bool = True,
               sites=None) -> Path:
    """Write the synthetic build into ``root``; returns ``root`` as a Path. ``sites``: the (site,
    BEL) of the generic TLUTs (default :data:`SITES`; four frames per site)."""
    root = Path(root)
    (root / "tlut").mkdir(parents=True, exist_ok=True)
    rnd = random.Random(seed)
    dev = get_device(device)
    ppc = make_ppc(key_bits=key_bits, seed=seed)
    generic_outputs = ppc.num_outputs
    arnd = random.Random(seed * 7919 + 1)
    aff_tluts = []
    for site, bel, k, nf in AFFINE_SITES if affine else []:
        like = aff_tluts[0][3] if nf is None else None
        aff_tluts.append((site, bel, *add_affine(ppc, arnd, k, nf, like)))
    write_aiger(ppc, root / "ppc.aig")
    zero = ppc.simulate({n: 0 for n in ppc.input_names}, width=1)
    design_hash = hashlib.sha256(b"synthetic" + ppc.to_bytes() + bytes([seed])).hexdigest()
    entries, tluts = [], []
    mem = FrameMemory(dev)
    for site, bel in SITES if sites is None else sites:
        locs = dev.lut_bits(site, bel)
        outs = [rnd.randrange(generic_outputs) for _ in range(64)]
        for i, (far, word, bit) in enumerate(locs):
            entries.append([far, word, bit, outs[i]])
        tluts.append({"name": f"t_{site}_{bel}", "site": site, "bel": bel, "pins": [f"n{k}" for k in range(6)]})
    records = {}
    for site, bel, outs, rec in aff_tluts:
        for i, (far, word, bit) in enumerate(dev.lut_bits(site, bel)):
            entries.append([far, word, bit, outs[i % len(outs)]])
        name = f"a_{site}_{bel}"
        tluts.append({"name": name, "site": site, "bel": bel,
                      "pins": [f"n{k}" for k in range(rec["k"])] + [None] * (6 - rec["k"])})
        records[name] = rec
    entries.sort()
    fars = sorted({e[0] for e in entries}, key=dev.far_index.__getitem__)
    for far in fars:  # random background content, then the TLUT bits of the all-zero key
        mem.set_frame(far, [rnd.getrandbits(32) if k != ECC_WORD else rnd.getrandbits(32) & ~ECC_MASK
                            for k in range(101)])
    for far, word, bit, j in entries:
        mem.set_bit(far, word, bit, zero[j] & 1)
    mem.update_ecc(fars)
    head, rest = mem.to_frm(fars).split("\n", 1)
    write_text_atomic(root / "tlut" / "template.frm", f"{head} design_hash={design_hash} logic-only\n{rest}")
    fm = {"format": FRAMEMAP_FORMAT, "version": 1, "device": dev.name, "idcode": f"0x{dev.idcode:08X}",
          "design_hash": design_hash, "ppc_outputs": ppc.num_outputs, "entries": entries, "tluts": tluts}
    write_text_atomic(root / "tlut" / "framemap.json", json.dumps(fm))
    write_text_atomic(root / "ppc.json", json.dumps(
        {"format": PPC_FORMAT, "version": PPC_VERSION, "aiger": "ppc.aig", "sha256": sha256_file(root / "ppc.aig"),
         "params": ppc.input_names, "outputs": ppc.num_outputs, "ands": ppc.num_ands, "affine": records}))
    files = {n: sha256_file(root / n) for n in ("ppc.aig", "ppc.json", "tlut/template.frm", "tlut/framemap.json")}
    write_text_atomic(root / "build.json", json.dumps(
        {"format": BUILD_FORMAT, "version": BUILD_VERSION, "design": "synthetic", "design_source": {"kind": "files"},
         "top": "synthetic", "device": dev.name, "design_hash": design_hash, "params": {"key": key_bits},
         "user_params": None, "files": files}, indent=1) + "\n")
    return root
