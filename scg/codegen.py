"""C99 code generation for the firmware SCG (``python -m dcsflow.scg codegen BUILD --out DIR``).

Writes three files into DIR:

``scg_gen.h``
    sizes (``SCG_GEN_INPUTS``, ``SCG_GEN_OUTPUTS``, ``SCG_GEN_YWORDS`` (words of ``y``: the PPC
    outputs the patch reads), ``SCG_GEN_FRAMES``, ``SCG_GEN_ENTRIES``,
    ``SCG_GEN_RUNS``, ``SCG_GEN_PARAM_BITS``, ``SCG_GEN_ANDS``, ``SCG_GEN_IDCODE``) and declarations.
``scg_gen.c``
    ``scg_ppc_eval(const uint32_t *x, uint32_t *y)``: straight-line, bit-sliced evaluation of the PPC
    AIG (one C statement per AND node, no branches, no table look-ups: its time does not depend on
    the key). Bit lane ``p`` of every word is an independent parameter set, so one call evaluates 32
    sets (``x[i]`` = input ``i`` of the PPC for the 32 sets, ``y[k]`` = the k-th of the PPC outputs
    the patch reads, in output order: :func:`slots`).
    ``scg_gen_patch(y, f)``: the frame patch (entry bits and frame ECC) of the shadow frames; the
    affine TLUTs (:mod:`dcsflow.scg.affine`) as one loop over the ``scg_ag``/``scg_ar``/``scg_ae`` tables,
    from their frontier outputs (:func:`affine_source`).
    With ``style="table"`` (large PPCs) both are loops over constant tables instead of straight-line
    code: the same results and still constant time (loop counts and addresses from the tables only;
    no address depends on the key).
    ``scg_blob[]``: the data blob, 32-bit words (layout below), with a CRC-32 over it.
``scg_devtab.c``
    the device's configuration rows (frame counts per column, FDRI order) for the C model
    (``firmware/icap_model.c``); not needed on the board.

Blob layout (format version 1, all 32-bit words)::

    0 magic 0x42474353 ("SCGB")  1 version 1  2 IDCODE  3..10 design hash (SHA-256, 8 words, big-endian)
    11 inputs I  12 outputs O  13 frames F  14 entries E  15 runs R  16 parameter bits P  17 AND nodes
    18.. FARs[F] | template frames[F*101] | run lengths[R] | entry positions[E] | entry outputs[E] |
         input bits[I] | CRC
    entry position = frame_index << 12 | word << 5 | bit (frame_index into FARs);
    input bit i = position of PPC input i in the parameter vector (scg.plan.param_layout);
    CRC = CRC-32 (IEEE 802.3, zlib.crc32) over the little-endian bytes of all previous words.

A build with a parameter transform program (``transform.json``): ``scg_gen.h`` also defines
``SCG_GEN_TRANSFORM`` and ``SCG_GEN_USER_BITS`` (the user parameter vector) and ``scg_gen.c`` holds
``scg_transform(user, param)`` (:mod:`dcsflow.scg.transform_c`), which the firmware runs before the
PPC evaluation (``scg_rekey_user``; a cfglut5 build's ``app_cfglut.c`` likewise): the board rekeys
from the user's values alone.

CFGLUT5 builds (``dcsflow build --tlut cfglut5``): ``scg_gen.h`` defines ``SCG_GEN_CFGLUT`` and the
loader's figures (``SCG_GEN_CFG_CHAINS``, ``_CHAIN_LUTS``, ``_WORDS``, ``_SHIFT``, ``_STRIDE_LOG2``,
``_ADDR_WIDTH``, ``_BUILD_ID``); ``scg_gen.c`` holds the same PPC evaluation and, instead of the frame
patch, ``scg_gen_words(y, w)``: the loader's chain words in word order (:func:`cfglut_words_source`,
every word an OR of ``y[j] & mask``: no branch, no key-dependent address), and a blob (version 1)::

    0 magic 0x43474353 ("SCGC")  1 version 1  2 BUILD_ID  3..10 design hash  11 inputs I
    12 parameter bits P  13 chains  14 chain_luts  15 words  16 STRIDE_LOG2  17 ADDR_WIDTH
    18.. input bits[I] | CRC

``scg_devtab.c`` is an empty table (no configuration frames). The firmware (``make -C firmware``)
then builds ``app_cfglut.c`` and the loader driver ``cfglut.c`` in place of the HWICAP path.
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.fileio import check_output_dir, write_files_atomic

from .affine import AffineRow, affine_rows, group_tables
from .buildfolder import BuildFolder, load_build
from .device import ECC_MASK, ECC_WORD, FRAME_WORDS, bit_code, finish_ecc
from .errors import BuildFolderError
from .plan import param_layout

BLOB_MAGIC = 0x42474353
BLOB_VERSION = 1
HEADER_WORDS = 18


@dataclass
class CodegenResult:
    """What :func:`codegen` wrote: ``files`` (paths) and the blob size in words, AND nodes, frames,
    frame-map entries, the code style ("straight" or "table"), the number of affine TLUTs (patched
    from their frontier, :mod:`dcsflow.scg.affine`), the AND nodes the generated evaluation computes
    and the firmware sources copied with them (``firmware``: paths; empty unless asked); for a
    ``cfglut5`` build ``chain_words`` (the loader's words; ``frames`` 0, ``entries`` the word terms)."""

    files: list
    blob_words: int
    ands: int
    frames: int
    entries: int
    style: str = "straight"
    affine: int = 0
    live_ands: int = 0
    firmware: list = field(default_factory=list)
    chain_words: int = 0


def input_bits(build: BuildFolder) -> list[int]:
    """Position of each PPC input in the firmware parameter vector."""
    off = {p: o for p, o, _ in param_layout(build.ppc)}
    out = []
    for n in build.ppc.inputs:
        m = re.match(r"^(.*?)(?:\[(\d+)\])?$", n)
        out.append(off[m.group(1)] + int(m.group(2) or 0))
    return out


def _hash_words(build: BuildFolder) -> list[int]:
    """The 8 blob words of the build's design hash (SHA-256 hex, 8 hex digits per word; all 0 for a
    shorter hash)."""
    h = build.design_hash
    return [int(h[8 * k:8 * k + 8] or "0", 16) for k in range(8)] if len(h) >= 64 else [0] * 8


def make_blob(build: BuildFolder) -> list[int]:
    """The data blob (list of 32-bit words, CRC last); layout in the module docstring."""
    ppc = build.ppc
    fidx = {f: k for k, f in enumerate(build.fars)}
    hw = _hash_words(build)
    pbits = sum(w for _, _, w in param_layout(ppc))
    words = [BLOB_MAGIC, BLOB_VERSION, build.idcode & 0xFFFFFFFF, *hw, len(ppc.inputs), ppc.num_outputs,
             len(build.fars), len(build.entries), len(build.runs), pbits, ppc.aig.num_ands]
    words += list(build.fars)
    for f in build.fars:
        words += build.template.frame(f)
    words += [len(r) for r in build.runs]
    words += [fidx[f] << 12 | w << 5 | b for f, w, b, _ in build.entries]
    words += [j for *_, j in build.entries]
    words += input_bits(build)
    words.append(blob_crc(words))
    return words


def blob_crc(words) -> int:
    """CRC-32 (zlib) over the little-endian bytes of ``words``."""
    return zlib.crc32(b"".join((w & 0xFFFFFFFF).to_bytes(4, "little") for w in words)) & 0xFFFFFFFF


def _lit(v: int) -> str:
    """C expression of AIG literal ``v`` in straight-style code (node ``n`` is the constant ``n<n>``)."""
    var, neg = v >> 1, v & 1
    if var == 0:
        return "0xFFFFFFFFu" if neg else "0u"
    return f"~n{var}" if neg else f"n{var}"


#: AND nodes per generated C function of the straight style: gcc's time grows faster than linearly
#: with the size of one function (aes128_iter's 31k-node PPC in one function: ~8 min at -O2)
EVAL_CHUNK = 2048


def eval_source(aig, name: str = "scg_ppc_eval", needed=None) -> str:
    """C99 function ``void name(const uint32_t *x, uint32_t *y)``: straight-line bit-sliced AIG.
    ``needed``: outputs to compute (None: all), written to ``y[slots(needed)[j]]``; the cones of the
    others are left out.

    Up to :data:`EVAL_CHUNK` live AND nodes: one function, every node a local constant. Above: one
    static function per chunk of that many nodes, called in order; a node read by a later chunk or
    an output is also stored in the static array ``scg_nv`` (wiped before returning). The chunks are
    ``noinline``: inlined back into one function, gcc -O2 spends ~9 min on aes128_pipe's 37,760
    nodes (alias walking over the array stores)."""
    ni = aig.num_inputs
    aig = _only(aig, needed)
    live = _live(aig)  # nodes in the outputs' cones only
    nodes = [ni + 1 + k for k in range(len(aig.ands)) if ni + 1 + k in live]
    if len(nodes) <= EVAL_CHUNK:
        return _eval_one(aig, name, live)
    first = ni + 1
    chunk = {v: i // EVAL_CHUNK for i, v in enumerate(nodes)}
    export = {}
    for v in nodes:
        a, b = aig.ands[v - first]
        for u in (a >> 1, b >> 1):
            if u >= first and chunk[u] != chunk[v] and u not in export:
                export[u] = len(export)
    for o in aig.outputs:
        if o >> 1 >= first and o >> 1 not in export:
            export[o >> 1] = len(export)

    out = [f"static uint32_t scg_nv[{max(1, len(export))}u];\n"]
    n_chunks = chunk[nodes[-1]] + 1
    for c in range(n_chunks):
        members = nodes[c * EVAL_CHUNK:(c + 1) * EVAL_CHUNK]
        mine = set(members)
        reads, ins = [], []
        seen = set()
        for v in members:
            a, b = aig.ands[v - first]
            for u in (a >> 1, b >> 1):
                if u in seen or u in mine or u == 0:
                    continue
                seen.add(u)
                (ins if u < first else reads).append(u)
        body = [f"static __attribute__((noinline)) void {name}_{c}(const uint32_t *restrict x)", "{"]
        body += [f"    const uint32_t n{u} = x[{u - 1}];" for u in sorted(ins)]
        body += [f"    const uint32_t n{u} = scg_nv[{export[u]}];" for u in sorted(reads)]
        for v in members:
            a, b = aig.ands[v - first]
            body.append(f"    const uint32_t n{v} = {_lit(a)} & {_lit(b)};")
            if v in export:
                body.append(f"    scg_nv[{export[v]}] = n{v};")
        if not ins:
            body.append("    (void)x;")
        body.append("}\n")
        out.append("\n".join(body))
    main = [f"void {name}(const uint32_t *restrict x, uint32_t *restrict y)", "{",
            "    volatile uint32_t *z = scg_nv;", "    uint32_t k;"]
    main += [f"    {name}_{c}(x);" for c in range(n_chunks)]
    for j, o in enumerate(aig.outputs):
        var, neg = o >> 1, o & 1
        if var == 0:
            main.append(f"    y[{j}] = {'0xFFFFFFFFu' if neg else '0u'};")
        else:
            src = f"x[{var - 1}]" if var < first else f"scg_nv[{export[var]}]"
            main.append(f"    y[{j}] = {'~' if neg else ''}{src};")
    main += [f"    for (k = 0; k < {max(1, len(export))}u; k++) z[k] = 0u;", "}"]
    return "\n".join(out) + "\n" + "\n".join(main) + "\n"


def _eval_one(aig, name: str, live: set) -> str:
    """:func:`eval_source` as one function (every node a local constant)."""
    ni = aig.num_inputs

    lines = [f"void {name}(const uint32_t *restrict x, uint32_t *restrict y)", "{"]
    for i in range(ni):
        if i + 1 in live:
            lines.append(f"    const uint32_t n{i + 1} = x[{i}];")
    for k, (a, b) in enumerate(aig.ands):
        if ni + 1 + k in live:
            lines.append(f"    const uint32_t n{ni + 1 + k} = {_lit(a)} & {_lit(b)};")
    for j, o in enumerate(aig.outputs):
        lines.append(f"    y[{j}] = {_lit(o)};")
    if not any(i + 1 in live for i in range(ni)):
        lines.append("    (void)x;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def patch_plan(build: BuildFolder, skip=frozenset()):
    """The frame patch of a build as data (shared by both code styles).

    ``skip``: frame bits ``(far, word, bit)`` written by the affine TLUT loop
    (:func:`dcsflow.scg.affine.affine_rows`) instead: left out of the words, their template bits taken out of
    the ECC constant, and their frames always get an ECC row (the loop adds its syndromes).

    Returns ``(words, eccs)``: ``words`` = list of ``(index, base, terms)`` with ``index`` = word
    index into the shadow frames (``frame_index * 101 + word``), ``base`` = template word with the
    entry bits cleared and constant entries set, ``terms`` = sorted ``(j, mask)``: OR ``y[j] & mask``;
    ``eccs`` = list of ``(index of word 50, a, terms)`` for every touched frame: the new ECC bits are
    ``a ^ e ^ parity(e[11:0]) << 12`` with ``e`` = XOR of ``y[j] & code`` over ``terms`` = ``(j, code)``.
    """
    aig = build.ppc.aig
    const = {}
    for j, o in enumerate(aig.outputs):
        if o >> 1 == 0:
            const[j] = o & 1
    fidx = {f: k for k, f in enumerate(build.fars)}
    frames = [build.template.frame(far) for far in build.fars]
    words: dict[int, dict] = {}
    codes: dict[int, dict] = {}
    kconst: dict[int, int] = {}
    for far, word, bit, j in build.entries:
        fi = fidx[far]
        idx = fi * FRAME_WORDS + word
        tb = (frames[fi][word] >> bit) & 1
        if (far, word, bit) in skip:
            if tb:
                kconst[fi] = kconst.get(fi, 0) ^ bit_code(word, bit)
            codes.setdefault(fi, {})
            continue
        w = words.setdefault(idx, {"clear": 0, "set": 0, "by": {}})
        w["clear"] |= 1 << bit
        c = bit_code(word, bit)
        if tb:
            kconst[fi] = kconst.get(fi, 0) ^ c
        if j in const:
            w["set"] |= const[j] << bit
            if const[j]:
                codes.setdefault(fi, {}).setdefault(-1, 0)
                codes[fi][-1] ^= c
        else:
            w["by"][j] = w["by"].get(j, 0) | (1 << bit)
            cj = codes.setdefault(fi, {})
            cj[j] = cj.get(j, 0) ^ c
    out_words = []
    for idx in sorted(words):
        w = words[idx]
        tpl = frames[idx // FRAME_WORDS][idx % FRAME_WORDS]
        base = (tpl & ~w["clear"] & 0xFFFFFFFF) | w["set"]
        out_words.append((idx, base, sorted(w["by"].items())))
    eccs = []
    for fi, fr in enumerate(frames):
        if fi not in codes and fi not in kconst:
            continue
        cj = codes.get(fi, {})
        kk = kconst.get(fi, 0) ^ cj.get(-1, 0)
        a = (fr[ECC_WORD] & ECC_MASK) ^ finish_ecc(kk)
        eccs.append((fi * FRAME_WORDS + ECC_WORD, a, [(j, c) for j, c in sorted(cj.items()) if j >= 0 and c]))
    return out_words, eccs


def patch_source(build: BuildFolder, name: str = "scg_gen_patch", rows=None, slot=None) -> str:
    """C99 ``void name(const uint32_t *y, uint32_t *f)``: straight-line frame patch.

    ``y`` = PPC outputs, each 0 or 0xFFFFFFFF (one parameter set in every lane); ``f`` = the shadow
    frames (``SCG_GEN_FRAMES`` x 101 words, FAR order of the blob). Every touched word is rebuilt as
    ``template & keep | y[j] & mask_j | ...`` (bits driven by the same output grouped into one mask,
    outputs that are constant folded into the template constant), and every touched frame's ECC as
    ``A_f ^ finish(XOR_j y[j] & code_j)`` with ``code_j`` the XOR of the ECC codes of output j's bits
    in that frame and ``A_f`` = template ECC ^ finish(codes of the template's set entry bits): the
    frame ECC is linear (:func:`dcsflow.scg.device.frame_ecc`), so this equals the ECC update of
    ``FrameMemory.set_lut(update_ecc=True)``. No branches, no data-dependent addresses.
    Affine TLUTs (``rows`` = ``(rows, covered)`` of :func:`dcsflow.scg.affine.affine_rows`, computed when
    None) are written by the loop of :func:`affine_source` instead, which adds their ECC syndromes.
    ``slot``: PPC output -> index into ``y`` (:func:`slots` of :func:`needed_outputs` when None).
    """
    rows, covered = affine_rows(build) if rows is None else rows
    slot = slots(needed_outputs(build, (rows, covered))) if slot is None else slot
    words, eccs = patch_plan(build, covered)
    arrays, aff_loop = affine_source(rows, len(build.fars), slot)
    lines = [arrays + f"void {name}(const uint32_t *restrict y, uint32_t *restrict f)", "{", "    uint32_t e, v;"]
    for idx, base, by in words:
        terms = [f"0x{base:08X}u"] + [f"(y[{slot[j]}] & 0x{m:08X}u)" for j, m in by]
        lines.append(f"    f[{idx}] = " + " | ".join(terms) + ";")
    if aff_loop:
        lines.append(aff_loop.rstrip("\n"))
    for k50, a, cj in eccs:
        terms = ([f"scg_eacc[{k50 // FRAME_WORDS}]"] if rows else []) + [f"(y[{slot[j]}] & 0x{c:04X}u)" for j, c in cj]
        lines.append("    e = " + (" ^ ".join(terms) if terms else "0u") + ";")
        lines.append("    v = e & 0xFFFu; v ^= v >> 8; v ^= v >> 4; v ^= v >> 2; v ^= v >> 1;")
        lines.append(f"    f[{k50}] = (f[{k50}] & ~0x1FFFu) | ((0x{a:04X}u ^ e ^ ((v & 1u) << 12)) & 0x1FFFu);")
    if rows:
        lines.append(_EACC_WIPE)
    lines.append("    (void)e; (void)v; (void)y;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _only(aig, needed):
    """``aig`` with only the outputs in ``needed``, in increasing order (output ``slots(needed)[j]``
    of the result = output j of ``aig``); None: unchanged."""
    if needed is None:
        return aig
    from dcsflow.aig import Aig

    keep = sorted(needed)
    return Aig(num_inputs=aig.num_inputs, ands=aig.ands, input_names=list(aig.input_names),
               outputs=[aig.outputs[j] for j in keep], output_names=[aig.output_names[j] for j in keep])


def slots(needed) -> dict:
    """PPC output -> its index in the generated code's ``y`` array (the needed outputs, in order)."""
    return {j: i for i, j in enumerate(sorted(needed))}


def _live(aig) -> set:
    """Variables in the cones of the AIG's outputs (inputs included)."""
    ni = aig.num_inputs
    live = set(o >> 1 for o in aig.outputs)
    for k in range(len(aig.ands) - 1, -1, -1):
        if ni + 1 + k in live:
            a, b = aig.ands[k]
            live.add(a >> 1)
            live.add(b >> 1)
    return live


def eval_table_source(aig, name: str = "scg_ppc_eval", needed=None) -> str:
    """C99 ``void name(const uint32_t *x, uint32_t *y)``: the PPC AIG as a table of AND nodes walked by
    one loop (for PPCs too large for straight-line code; same contract as :func:`eval_source`).

    Table ``scg_tab_and``: two literals per live AND node (``lit = node * 2 + complement``; node 0 is
    constant 0, nodes 1..I the inputs, then the AND nodes in table order); ``scg_tab_out``: one
    literal per output. Constant time: the loop count and every address come from the tables, never
    from parameter values; the node array (key material) is zeroed before returning.
    ``needed`` as for :func:`eval_source`.
    """
    ni = aig.num_inputs
    aig = _only(aig, needed)
    live = _live(aig)
    num = {0: 0}
    for i in range(ni):
        num[i + 1] = i + 1
    tab = []
    for k, (a, b) in enumerate(aig.ands):
        v = ni + 1 + k
        if v in live:
            num[v] = ni + 1 + len(tab) // 2
            tab += [num[a >> 1] << 1 | (a & 1), num[b >> 1] << 1 | (b & 1)]
    outs = [num[o >> 1] << 1 | (o & 1) for o in aig.outputs]
    n_and = len(tab) // 2
    nodes = ni + 1 + n_and
    # loops with a zero count are left out (gcc -Wextra: "comparison < 0 is always false")
    inputs = f"    for (k = 0; k < {ni}u; k++) scg_node[k + 1u] = x[k];\n" if ni else "    (void)x;\n"
    and_loop = f"""    for (k = 0; k < {n_and}u; k++) {{
        a = scg_tab_and[2u * k];
        b = scg_tab_and[2u * k + 1u];
        scg_node[{ni + 1}u + k] = (scg_node[a >> 1] ^ (0u - (a & 1u))) & (scg_node[b >> 1] ^ (0u - (b & 1u)));
    }}
""" if n_and else "    (void)b;\n"
    out_loop = f"""    for (k = 0; k < {len(outs)}u; k++) {{
        a = scg_tab_out[k];
        y[k] = scg_node[a >> 1] ^ (0u - (a & 1u));
    }}
""" if outs else "    (void)a; (void)y;\n"
    body = f"""static uint32_t scg_node[{nodes}u];

void {name}(const uint32_t *restrict x, uint32_t *restrict y)
{{
    uint32_t k, a = 0u, b = 0u;
    volatile uint32_t *z = scg_node;
    scg_node[0] = 0u;
{inputs}{and_loop}{out_loop}    for (k = 0; k < {nodes}u; k++) z[k] = 0u;
}}
"""
    return ((_array("scg_tab_and", tab, static=True) if tab else "")
            + (_array("scg_tab_out", outs, static=True) if outs else "") + body)


def _flatten(rows):
    """Rows ``(index, constant, [(j, value), ...])`` of :func:`patch_plan` as five lists: indexes,
    constants, term counts, and the terms' ``j`` and values in row order."""
    idx, const, count, tj, tv = [], [], [], [], []
    for i, c, terms in rows:
        idx.append(i)
        const.append(c)
        count.append(len(terms))
        for j, v in terms:
            tj.append(j)
            tv.append(v)
    return idx, const, count, tj, tv


def patch_table_source(build: BuildFolder, name: str = "scg_gen_patch", rows=None, slot=None) -> str:
    """C99 ``void name(const uint32_t *y, uint32_t *f)``: the frame patch of :func:`patch_plan` as
    tables walked by loops (same contract and result as :func:`patch_source`; for large builds).
    Loop counts and addresses come from the tables only (constant time)."""
    rows, covered = affine_rows(build) if rows is None else rows
    slot = slots(needed_outputs(build, (rows, covered))) if slot is None else slot
    words, eccs = patch_plan(build, covered)
    aff_arrays, aff_loop = affine_source(rows, len(build.fars), slot)
    w_idx, w_base, w_n, t_j, t_m = _flatten(words)
    e_idx, e_a, e_n, c_j, c_c = _flatten(eccs)
    t_j, c_j = [slot[j] for j in t_j], [slot[j] for j in c_j]
    # only the arrays of loops that are emitted (a term array may be empty: one unused 0 word)
    groups = ((w_idx, (("scg_pw_idx", w_idx), ("scg_pw_base", w_base), ("scg_pw_n", w_n), ("scg_pt_j", t_j),
                       ("scg_pt_m", t_m))),
              (e_idx, (("scg_pe_idx", e_idx), ("scg_pe_a", e_a), ("scg_pe_n", e_n), ("scg_pc_j", c_j),
                       ("scg_pc_c", c_c))))
    arrays = "".join(_array(n, v or [0], static=True) for used, arrs in groups if used for n, v in arrs)
    word_loop = f"""    for (w = 0; w < {len(w_idx)}u; w++) {{
        v = scg_pw_base[w];
        for (n = t + scg_pw_n[w]; t < n; t++) v |= y[scg_pt_j[t]] & scg_pt_m[t];
        f[scg_pw_idx[w]] = v;
    }}
""" if w_idx else ""
    ecc_loop = f"""    t = 0;
    for (w = 0; w < {len(e_idx)}u; w++) {{
        e = {"scg_eacc[scg_pe_idx[w] / 101u]" if rows else "0u"};
        for (n = t + scg_pe_n[w]; t < n; t++) e ^= y[scg_pc_j[t]] & scg_pc_c[t];
        v = e & 0xFFFu; v ^= v >> 8; v ^= v >> 4; v ^= v >> 2; v ^= v >> 1;
        f[scg_pe_idx[w]] = (f[scg_pe_idx[w]] & ~0x1FFFu) | ((scg_pe_a[w] ^ e ^ ((v & 1u) << 12)) & 0x1FFFu);
    }}
""" if e_idx else ""
    wipe = _EACC_WIPE + "\n" if rows else ""
    return arrays + aff_arrays + f"""
void {name}(const uint32_t *restrict y, uint32_t *restrict f)
{{
    uint32_t w = 0, t = 0, n = 0, e = 0, v = 0;
{word_loop}{aff_loop}{ecc_loop}{wipe}    (void)w; (void)t; (void)n; (void)e; (void)v; (void)y; (void)f;
}}
"""


#: wipes the ECC syndrome accumulator (key-dependent) before scg_gen_patch returns; it is static,
#: so it starts at 0 for the next call
_EACC_WIPE = """    {
        volatile uint32_t *z = scg_eacc;
        uint32_t i;
        for (i = 0; i < SCG_GEN_FRAMES; i++) z[i] = 0u;
    }"""


def _affine_decl(t, frames: int) -> str:
    """Declarations of :func:`affine_source`: the tables ``t`` (:func:`dcsflow.scg.affine.group_tables`),
    the ECC accumulator of ``frames`` frames and the half-word type (little-endian targets only)."""
    return (_array("scg_ag", t.groups, static=True) + _array("scg_ar", t.rows, static=True)
            + _array("scg_ae", t.eccs or [0], static=True)
            + f"static uint32_t scg_eacc[{frames}u];\n"
            "typedef uint16_t __attribute__((may_alias)) scg_h16;\n"
            "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__\n"
            "#error \"scg_gen.c: the half-word writes assume a little-endian target\"\n#endif\n\n")


def _quarter_choice(nh: int) -> tuple[str, str, str, str, str]:
    """C fragments of :func:`affine_source` for ``nh`` quarter choices per row (1, 2 or 4): the extra
    declarations, the select masks ``s<j>`` from ``D`` bits 7..8, the loads of a row's V0 and of a
    frame's pre-summed ECC pair, and the wipe of the masks. With quarter choices a value is picked
    by masks, never by a key-dependent index (constant time; :mod:`dcsflow.scg.affine`)."""
    if nh == 1:
        return "", "", "lo = r[0]; hi = r[1];", "c = x[1] ^ ((x[1] ^ x[2]) & m5);", ""
    sel_decl = ", e, " + ", ".join(f"s{j}" for j in range(nh))
    sel = "\n            e = (d >> 7) & 3u;\n" + "".join(
        f"            s{j} = 0u - ((((e ^ {j}u) - 1u) >> 31) & 1u);\n" for j in range(nh))
    load_v0 = ("lo = " + " | ".join(f"(r[{2 * j}] & s{j})" for j in range(nh)) + ";\n                hi = "
               + " | ".join(f"(r[{2 * j + 1}] & s{j})" for j in range(nh)) + ";")
    load_ecc = ("lo = " + " | ".join(f"(x[{1 + 2 * j}] & s{j})" for j in range(nh)) + ";\n                hi = "
                + " | ".join(f"(x[{2 + 2 * j}] & s{j})" for j in range(nh)) + ";\n"
                "                c = lo ^ ((lo ^ hi) & m5);")
    sel_clear = " e = " + " = ".join(f"s{j}" for j in range(nh)) + " = 0u; (void)e;" + "".join(
        f" (void)s{j};" for j in range(nh))
    return sel_decl, sel, load_v0, load_ecc, sel_clear


def affine_source(rows: list[AffineRow], frames: int, slot: dict | None = None) -> tuple[str, str]:
    """C99 for the affine TLUTs: ``(declarations, loop)``; empty strings when there are no rows.

    Tables of :func:`dcsflow.scg.affine.group_tables`: ``scg_ag`` (groups), ``scg_ar`` (rows), ``scg_ae``
    (pre-summed ECC per group and frame). The loop (inside ``scg_gen_patch``, after the generic
    words and before the ECC rows) computes per group the mask ``D`` from its frontier outputs and
    the 7 stage masks (and, with quarter choices, ``nh`` select masks from ``D`` bits 7..8 that pick
    a row's V0 and a frame's pre-summed ECC); per row it permutes V0 with 6 butterfly stages (the
    masks, never a branch),
    complements it by bit 6 of ``D`` and writes its 4 half-words; per (group, frame) it selects the
    syndrome for ``D``'s two frame bits with masks and XORs it into ``scg_eacc[frame]``. Loop counts
    and addresses come from the tables only. ``slot``: PPC output -> index into ``y``.
    """
    if not rows:
        return "", ""
    if slot is not None:   # frontier outputs as indexes into y
        rows = [dataclasses.replace(r, frontier=tuple(slot[j] for j in r.frontier)) for r in rows]
    t = group_tables(rows)
    nf, nh = t.nf, t.nh
    decl = _affine_decl(t, frames)
    sel_decl, sel, load_v0, load_ecc, sel_clear = _quarter_choice(nh)
    rw, ew = 2 * nh + 4, 1 + 2 * nh
    loop = f"""    {{
        scg_h16 *h = (scg_h16 *)f;
        const uint32_t *g = scg_ag, *r = scg_ar, *x = scg_ae;
        uint32_t k, i, d, lo, hi, t, m0, m1, m2, m3, m4, m5, m6, c{sel_decl};
        for (k = 0; k < {t.num_groups}u; k++, g += {2 + 2 * nf}u) {{
            d = 0u;
            for (i = 0; i < {nf}u; i++) d ^= y[g[2u + i]] & g[{2 + nf}u + i];{sel}
            m0 = (0u - (d & 1u)) & 0x55555555u;
            m1 = (0u - ((d >> 1) & 1u)) & 0x33333333u;
            m2 = (0u - ((d >> 2) & 1u)) & 0x0F0F0F0Fu;
            m3 = (0u - ((d >> 3) & 1u)) & 0x00FF00FFu;
            m4 = (0u - ((d >> 4) & 1u)) & 0x0000FFFFu;
            m5 = 0u - ((d >> 5) & 1u);
            m6 = 0u - ((d >> 6) & 1u);
            for (i = g[0]; i != 0u; i--, r += {rw}) {{
                {load_v0}
                t = ((lo >> 1) ^ lo) & m0; lo ^= t ^ (t << 1);
                t = ((hi >> 1) ^ hi) & m0; hi ^= t ^ (t << 1);
                t = ((lo >> 2) ^ lo) & m1; lo ^= t ^ (t << 2);
                t = ((hi >> 2) ^ hi) & m1; hi ^= t ^ (t << 2);
                t = ((lo >> 4) ^ lo) & m2; lo ^= t ^ (t << 4);
                t = ((hi >> 4) ^ hi) & m2; hi ^= t ^ (t << 4);
                t = ((lo >> 8) ^ lo) & m3; lo ^= t ^ (t << 8);
                t = ((hi >> 8) ^ hi) & m3; hi ^= t ^ (t << 8);
                t = ((lo >> 16) ^ lo) & m4; lo ^= t ^ (t << 16);
                t = ((hi >> 16) ^ hi) & m4; hi ^= t ^ (t << 16);
                t = (lo ^ hi) & m5; lo ^= t ^ m6; hi ^= t ^ m6;
                h[r[{rw - 4}]] = (scg_h16)lo; h[r[{rw - 3}]] = (scg_h16)(lo >> 16);
                h[r[{rw - 2}]] = (scg_h16)hi; h[r[{rw - 1}]] = (scg_h16)(hi >> 16);
            }}
            m4 = 0u - ((d >> 4) & 1u);
            d &= 15u;
            for (i = g[1]; i != 0u; i--, x += {ew}) {{
                {load_ecc}
                c = (c ^ (((c >> 16) ^ c) & m4)) & 0xFFFFu;
                scg_eacc[x[0]] ^= (c & 0x1FFFu) ^ ((0u - (c >> 13)) & d);
            }}
        }}
        d = lo = hi = t = m0 = m1 = m2 = m3 = m4 = m5 = m6 = c = 0u;
        (void)d; (void)lo; (void)hi; (void)t; (void)m0; (void)m1; (void)m2; (void)m3; (void)m4; (void)m5;
        (void)m6; (void)c;{sel_clear}
    }}
"""
    return decl, loop


def patch_model(build: BuildFolder, ybits: list[int], rows=None) -> dict:
    """Python mirror of the generated ``scg_gen_patch`` (both styles): the touched frames (FAR -> 101
    words) for PPC output bits ``ybits`` (0/1). For tests: it must equal :func:`dcsflow.scg.plan.plan`."""
    from .affine import apply_tables

    rows, covered = affine_rows(build) if rows is None else rows
    words, eccs = patch_plan(build, covered)
    f = [w for far in build.fars for w in build.template.frame(far)]
    for idx, base, by in words:
        v = base
        for j, m in by:
            v |= m if ybits[j] else 0
        f[idx] = v
    f16 = [h for w in f for h in (w & 0xFFFF, w >> 16)]
    eacc = [0] * len(build.fars)
    apply_tables(group_tables(rows), ybits, f16, eacc)
    f = [f16[2 * i] | f16[2 * i + 1] << 16 for i in range(len(f))]
    for k50, a, cj in eccs:
        e = eacc[k50 // FRAME_WORDS]
        for j, c in cj:
            e ^= c if ybits[j] else 0
        f[k50] = (f[k50] & ~0x1FFF) | ((a ^ finish_ecc(e)) & 0x1FFF)
    return {far: f[k * FRAME_WORDS:(k + 1) * FRAME_WORDS] for k, far in enumerate(build.fars)}


def needed_outputs(build: BuildFolder, rows=None) -> set:
    """PPC outputs the generated patch reads: the generic entries' (bits not covered by affine
    TLUTs) and the affine TLUTs' frontier outputs. The PPC evaluation computes only their cones."""
    rows, covered = affine_rows(build) if rows is None else rows
    need = {j for far, w, b, j in build.entries if (far, w, b) not in covered}
    for r in rows:
        need.update(r.frontier)
    return need


def devtab_words(device) -> list[int]:
    """Device table of ``firmware/icap_model.h``: idcode, rows, then per row key, ncols, counts."""
    out = [device.idcode, len(device.rows)]
    for block, bottom, row, counts in device.rows:
        out += [block << 16 | bottom << 8 | row, len(counts), *counts]
    return out


def _array(name: str, words: list[int], per_line: int = 8, static: bool = False) -> str:
    body = ",\n".join("    " + ", ".join(f"0x{w:08X}u" for w in words[i:i + per_line])
                      for i in range(0, len(words), per_line))
    return f"{'static ' if static else ''}const uint32_t {name}[{len(words)}] = {{\n{body}\n}};\n"


def _hwicap_define(build: BuildFolder) -> str:
    """``#define SCG_GEN_HWICAP_BASE`` from the board of a ``--backend vivado --board`` build
    (``vivado/tluts.json`` key ``hwicap_base``, copied from the board file: the configuration port's
    address), and ``#define SCG_GEN_ICAP_DMA 1`` when that port is the ICAP stream controller
    (``transport`` ``icap-dma``: the firmware is then built with its driver); else nothing. The file
    is read only when ``build.json`` lists it (its hash was checked by the reader); a plan without
    a readable base gives nothing either (firmware/board_main.c then takes -DHWICAP_BASE or its
    default)."""
    if not build.lists("vivado/tluts.json"):
        return ""
    try:
        plan = build.read_json("vivado/tluts.json", "Vivado plan")
        base = plan.get("hwicap_base")
        out = f"#define SCG_GEN_HWICAP_BASE 0x{int(base, 16):08X}u\n" if base else ""
        return out + ("#define SCG_GEN_ICAP_DMA 1\n" if plan.get("transport") == "icap-dma" else "")
    except (BuildFolderError, ValueError, TypeError, AttributeError):
        return ""


#: ``style="auto"`` writes table-driven code (:func:`eval_table_source`, :func:`patch_table_source`)
#: above this many PPC AND nodes or frame-map entries: straight-line C of that size takes gcc minutes
#: to hours (aes128_iter: 31k AND nodes, 2 MB of C, ~8 min at -O2).
TABLE_STYLE_ABOVE = 100_000
CODE_STYLES = ("auto", "straight", "table")


def code_style(build: BuildFolder, style: str = "auto", rows=None, size=None) -> str:
    """Resolve ``style`` ("auto", "straight" or "table") for ``build``: "auto" is "table" when the
    AND nodes the patch needs or the entries it writes bit by bit (those of affine TLUTs, ``rows``
    of :func:`dcsflow.scg.affine.affine_rows`, left out) exceed :data:`TABLE_STYLE_ABOVE`. ``size``: that
    pair if already known (:func:`work_size`).

    Raises:
        ValueError: unknown style.
    """
    if style not in CODE_STYLES:
        raise ValueError(f"unknown code style {style!r} (expected one of {', '.join(CODE_STYLES)})")
    if style != "auto":
        return style
    if size is None:
        size = work_size(build, affine_rows(build) if rows is None else rows)
    ands, entries = size
    return "table" if max(ands, entries) > TABLE_STYLE_ABOVE else "straight"


def work_size(build: BuildFolder, rows, need=None) -> tuple[int, int]:
    """``(AND nodes evaluated, entries patched bit by bit)`` of the generated SCG for ``rows``
    (``need``: :func:`needed_outputs`, computed when None)."""
    aig = _only(build.ppc.aig, needed_outputs(build, rows) if need is None else need)
    live = _live(aig)
    ands = sum(1 for k in range(len(aig.ands)) if aig.num_inputs + 1 + k in live)
    return ands, sum(1 for far, w, b, _ in build.entries if (far, w, b) not in rows[1])


def codegen(build_dir, out_dir, style: str = "auto", firmware=None) -> CodegenResult:
    """Generate the firmware sources for a build folder into ``out_dir`` (created); with
    ``firmware`` (a folder), copy the C firmware sources there too (:func:`firmware_files`), in the
    same group of writes: every file of both folders is written as a temporary first and renamed
    only when all are complete, so a failure (a full disk, a folder that cannot be written) leaves
    the earlier files of both folders as they were.

    ``style``: "straight" (one C statement per AND node and per patched word: fastest on the
    Cortex-A9), "table" (the same computation as loops over constant tables: small code, for large
    PPCs), or "auto" (table above :data:`TABLE_STYLE_ABOVE` AND nodes or entries). Both styles are
    constant time and give the same frames.

    A ``cfglut5`` build (``dcsflow build --tlut cfglut5``) gets the chain-word SCG instead
    (:func:`cfglut_words_source`; module docstring "CFGLUT5 builds").

    Raises:
        BuildFolderError: the build folder is refused (:func:`dcsflow.scg.buildfolder.load_build`), or
            its affine records disagree with its PPC.
        dcsflow.fileio.OutputError: ``out_dir`` or ``firmware`` is a file (or under one) or cannot be
            written, ``firmware`` is the firmware source folder; the files are written as one group
            (all or none), never over a file of the build folder.
        ValueError: unknown style.
    """
    out = check_output_dir(out_dir)
    fw = firmware_files(firmware) if firmware is not None else {}
    build = load_build(build_dir)
    if build.tlut_kind == "cfglut5":
        return _codegen_cfglut(build, out, style, fw)
    rows = affine_rows(build)
    need = needed_outputs(build, rows)
    slot = slots(need)
    size = work_size(build, rows, need)
    style = code_style(build, style, rows, size)
    blob = make_blob(build)
    ppc = build.ppc
    pbits = blob[16]
    tf_hdr, tf_src = transform_code(build)
    hdr = f"""/* scg_gen.h - generated by dcsflow codegen from {build.path.name}; do not edit.
 * design hash {build.design_hash}
 */
#ifndef SCG_GEN_H
#define SCG_GEN_H
#include <stdint.h>
#define SCG_GEN_INPUTS {len(ppc.inputs)}u
#define SCG_GEN_OUTPUTS {ppc.num_outputs}u
#define SCG_GEN_YWORDS {max(1, len(need))}u
#define SCG_GEN_FRAMES {len(build.fars)}u
#define SCG_GEN_ENTRIES {len(build.entries)}u
#define SCG_GEN_RUNS {len(build.runs)}u
#define SCG_GEN_PARAM_BITS {pbits}u
#define SCG_GEN_ANDS {ppc.aig.num_ands}u
#define SCG_GEN_IDCODE 0x{build.idcode:08X}u
#define SCG_GEN_BLOB_WORDS {len(blob)}u
#define SCG_GEN_STYLE "{style}"
#define SCG_GEN_DEVICE "{build.device.name}"
{_hwicap_define(build)}{tf_hdr}extern const uint32_t scg_blob[SCG_GEN_BLOB_WORDS];
extern const uint32_t scg_devtab[];
void scg_ppc_eval(const uint32_t *restrict x, uint32_t *restrict y);
void scg_gen_patch(const uint32_t *restrict y, uint32_t *restrict f);
#endif
"""
    src = ("/* scg_gen.c - generated by dcsflow codegen; do not edit. */\n#include \"scg_gen.h\"\n\n"
           + (eval_table_source(ppc.aig, needed=need) + "\n" + patch_table_source(build, rows=rows, slot=slot)
              if style == "table" else
              eval_source(ppc.aig, needed=need) + "\n" + patch_source(build, rows=rows, slot=slot))
           + "\n" + _array("scg_blob", blob) + tf_src)
    dt = ("/* scg_devtab.c - generated by dcsflow codegen: configuration rows of "
          f"{build.device.name} (C model only). */\n#include <stdint.h>\n\n"
          + _array("scg_devtab", devtab_words(build.device)))
    gen = {out / "scg_gen.h": hdr, out / "scg_gen.c": src, out / "scg_devtab.c": dt}
    files = write_files_atomic({**gen, **fw}, inputs=build.input_files())
    return CodegenResult(files[:len(gen)], len(blob), ppc.aig.num_ands, len(build.fars), len(build.entries), style,
                         len(rows[0]), size[0], files[len(gen):])


def transform_code(build: BuildFolder) -> tuple[str, str]:
    """``(header lines, C source)`` of the build's parameter transform program for ``scg_gen.h`` and
    ``scg_gen.c`` (:func:`dcsflow.scg.transform_c.transform_source`: ``SCG_GEN_TRANSFORM``,
    ``SCG_GEN_USER_BITS``, ``scg_transform``), or two empty strings for a build without one.

    Raises:
        BuildFolderError: the program is refused.
    """
    if build.transform is None:
        return "", ""
    from .transform_c import transform_source, user_bits

    prog = build.transform
    hdr = (f"#define SCG_GEN_TRANSFORM 1\n#define SCG_GEN_USER_BITS {user_bits(prog)}u\n"
           f"#define SCG_GEN_TF_STEPS {prog.steps()}u\n"
           "uint32_t scg_transform(const uint8_t *restrict user, uint8_t *restrict param);\n")
    return hdr, "\n" + transform_source(prog, param_layout(build.ppc))


CFG_BLOB_MAGIC = 0x43474353
CFG_HEADER_WORDS = 18


def cfglut_bit_sources(build: BuildFolder) -> list:
    """Where every chain-word bit of a ``cfglut5`` build comes from: per word (word order), the
    sorted list ``(j, mask)``: OR of PPC output ``j``'s value (0 or all ones) & ``mask``. Word
    (g, t) bit k is INIT bit b of ``lut_i`` of chain 32g+k with ``32*i + b = S-1-t``, and that bit's
    PPC output is :meth:`dcsflow.scg.cfglut.Layout.bit_sources`'s (CFGLUT5 INIT bit b of a TLUT of
    n entries is entry ``b mod n``; bit b of a parameter-bit register its member b).

    Raises:
        BuildFolderError: a refused ``cfglut.json``.
    """
    lay = build.cfglut_layout
    s = lay.shift_cycles
    src = lay.bit_sources(build.tlut_entries)
    terms: list = [dict() for _ in range(lay.words)]
    for c, chain in enumerate(lay.chains):
        base, k = (c // 32) * s, c % 32
        for i, name in enumerate(chain):
            for b, j in enumerate(src[name]):
                if j is not None:
                    w = terms[base + s - 1 - (32 * i + b)]
                    w[j] = w.get(j, 0) | 1 << k
    return [sorted(w.items()) for w in terms]


def cfglut_words_model(sources: list, ybits: list) -> list:
    """Python mirror of the generated ``scg_gen_words``: the words of :func:`cfglut_bit_sources`
    for PPC output bits ``ybits`` (0/1). For tests: it must equal :meth:`Layout.words_for`."""
    return [sum(m for j, m in terms if ybits[j]) for terms in sources]


def cfglut_words_source(sources: list, slot: dict, style: str, name: str = "scg_gen_words") -> str:
    """C99 ``void name(const uint32_t *y, uint32_t *w)``: the chain words of ``sources``
    (:func:`cfglut_bit_sources`) from the PPC outputs ``y`` (each 0 or 0xFFFFFFFF; ``slot``: PPC
    output -> index into ``y``). ``style`` "straight": one statement per word; "table": one loop
    over constant tables (term counts, ``y`` indexes, masks). Both constant time: no branch and no
    address depends on a parameter value."""
    if style == "table":
        counts = [len(t) for t in sources]
        tj = [slot[j] for t in sources for j, _ in t] or [0]
        tm = [m for t in sources for _, m in t] or [0]
        return (_array("scg_cw_n", counts, static=True) + _array("scg_cw_j", tj, static=True)
                + _array("scg_cw_m", tm, static=True) + f"""
void {name}(const uint32_t *restrict y, uint32_t *restrict w)
{{
    uint32_t i, t = 0, n, v;
    for (i = 0; i < {len(sources)}u; i++) {{
        v = 0u;
        for (n = t + scg_cw_n[i]; t < n; t++) v |= y[scg_cw_j[t]] & scg_cw_m[t];
        w[i] = v;
    }}
    v = 0u;
    (void)v;
}}
""")
    lines = [f"void {name}(const uint32_t *restrict y, uint32_t *restrict w)", "{"]
    for i, terms in enumerate(sources):
        rhs = " | ".join(f"(y[{slot[j]}] & 0x{m:08X}u)" for j, m in terms) or "0u"
        lines.append(f"    w[{i}] = {rhs};")
    lines += ["    (void)y;", "}"]
    return "\n".join(lines) + "\n"


def make_cfglut_blob(build: BuildFolder) -> list[int]:
    """The data blob of a ``cfglut5`` build (list of 32-bit words, CRC last; layout in the module
    docstring)."""
    lay = build.cfglut_layout
    hw = _hash_words(build)
    pbits = sum(w for _, _, w in param_layout(build.ppc))
    words = [CFG_BLOB_MAGIC, BLOB_VERSION, lay.build_id, *hw, len(build.ppc.inputs), pbits, lay.n_chains,
             lay.chain_luts, lay.words, lay.stride_log2, lay.addr_width]
    words += input_bits(build)
    words.append(blob_crc(words))
    return words


def _codegen_cfglut(build: BuildFolder, out: Path, style: str, fw: dict) -> CodegenResult:
    """:func:`codegen` of a ``cfglut5`` build: PPC evaluation, chain words, blob."""
    lay = build.cfglut_layout
    sources = cfglut_bit_sources(build)
    need = {j for t in sources for j, _ in t}
    slot = slots(need)
    aig = _only(build.ppc.aig, need)
    live = _live(aig)
    ands = sum(1 for k in range(len(aig.ands)) if aig.num_inputs + 1 + k in live)
    terms = sum(len(t) for t in sources)
    style = code_style(build, style, size=(ands, terms))
    blob = make_cfglut_blob(build)
    ppc = build.ppc
    tf_hdr, tf_src = transform_code(build)
    hdr = f"""/* scg_gen.h - generated by dcsflow codegen from {build.path.name} (a --tlut cfglut5 build); do not edit.
 * design hash {build.design_hash}
 */
#ifndef SCG_GEN_H
#define SCG_GEN_H
#include <stdint.h>
#define SCG_GEN_CFGLUT 1
#define SCG_GEN_INPUTS {len(ppc.inputs)}u
#define SCG_GEN_OUTPUTS {ppc.num_outputs}u
#define SCG_GEN_YWORDS {max(1, len(need))}u
#define SCG_GEN_PARAM_BITS {blob[12]}u
#define SCG_GEN_ANDS {ppc.aig.num_ands}u
#define SCG_GEN_CFG_CHAINS {lay.n_chains}u
#define SCG_GEN_CFG_CHAIN_LUTS {lay.chain_luts}u
#define SCG_GEN_CFG_WORDS {lay.words}u
#define SCG_GEN_CFG_SHIFT {lay.shift_cycles}u
#define SCG_GEN_CFG_STRIDE_LOG2 {lay.stride_log2}u
#define SCG_GEN_CFG_ADDR_WIDTH {lay.addr_width}u
#define SCG_GEN_CFG_BUILD_ID 0x{lay.build_id:08X}u
#define SCG_GEN_BLOB_WORDS {len(blob)}u
#define SCG_GEN_STYLE "{style}"
{tf_hdr}extern const uint32_t scg_blob[SCG_GEN_BLOB_WORDS];
void scg_ppc_eval(const uint32_t *restrict x, uint32_t *restrict y);
void scg_gen_words(const uint32_t *restrict y, uint32_t *restrict w);
#endif
"""
    ev = eval_table_source(ppc.aig, needed=need) if style == "table" else eval_source(ppc.aig, needed=need)
    src = ("/* scg_gen.c - generated by dcsflow codegen; do not edit. */\n#include \"scg_gen.h\"\n\n" + ev + "\n"
           + cfglut_words_source(sources, slot, style) + "\n" + _array("scg_blob", blob) + tf_src)
    dt = ("/* scg_devtab.c - generated by dcsflow codegen: a cfglut5 build has no configuration frames. */\n"
          "#include <stdint.h>\n\nconst uint32_t scg_devtab[1] = {0u};\n")
    gen = {out / "scg_gen.h": hdr, out / "scg_gen.c": src, out / "scg_devtab.c": dt}
    files = write_files_atomic({**gen, **fw}, inputs=build.input_files())
    return CodegenResult(files[:len(gen)], len(blob), ppc.aig.num_ands, 0, terms, style, 0, ands, files[len(gen):],
                         lay.words)


#: files of the C firmware (``firmware/`` in the repository, ``scg/firmware/`` in a wheel install)
FIRMWARE_GLOBS = ("*.c", "*.h", "*.S", "*.ld", "Makefile")


def firmware_dir() -> Path:
    """Folder of the C firmware sources: ``scg/firmware/`` of an installed wheel, else the checkout's
    ``firmware/`` (beside the ``scg`` package).

    Raises:
        DataMissing: neither holds the firmware Makefile.
    """
    from .errors import DataMissing

    here = Path(__file__).resolve().parent
    for d in (here / "firmware", here.parent / "firmware"):
        if (d / "Makefile").is_file() and (d / "scg_runtime.c").is_file():
            return d
    raise DataMissing(f"firmware sources not found in {here / 'firmware'} or {here.parent / 'firmware'}")


def firmware_files(dest) -> dict[Path, bytes]:
    """The firmware sources (:data:`FIRMWARE_GLOBS` of :func:`firmware_dir`) as they are to be
    written into ``dest``: destination path -> contents (nothing written).

    Raises:
        dcsflow.fileio.OutputError: ``dest`` is a file (or under one) or the firmware source folder.
    """
    src = firmware_dir()
    dest = check_output_dir(dest, inputs=[src])
    return {dest / f.name: f.read_bytes() for pat in FIRMWARE_GLOBS for f in sorted(src.glob(pat))}


def copy_firmware(dest) -> list[Path]:
    """Copy the firmware sources (:func:`firmware_files`) into ``dest`` (created); returns the
    copied files. Then ``make -C dest host-test GEN=<codegen folder>`` builds it.

    Raises:
        dcsflow.fileio.OutputError: ``dest`` is a file (or under one), is the firmware source folder,
            or cannot be written (all files are written as a group: none replaced on failure).
    """
    return write_files_atomic(firmware_files(dest))
