"""Frame patches of a rekey: parameter values -> new contents of the touched frames.

For every parameter assignment (several at once, bit-parallel :mod:`dcsflow.scg.ppc` evaluation) the
template's touched frames are copied, every frame-map entry's bit set to its PPC output, and each
touched frame's ECC (word 50 bits [12:0]) updated by the ECC of the change (the code is linear,
:func:`dcsflow.scg.device.frame_ecc`; same result as ``FrameMemory.set_lut(update_ecc=True)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .device import ECC_MASK, ECC_WORD, FRAME_WORDS, Device, finish_ecc, word_ecc


@dataclass
class RekeyPlan:
    """New contents of the touched frames.

    Attributes:
        frames: FAR -> 101 words (the specialized frame, ECC updated).
        runs: the FARs as runs of consecutive frames in one row (as :attr:`BuildFolder.runs`).
    """

    frames: dict
    runs: list


def plan_many(build, assignments: list[dict]) -> list[RekeyPlan]:
    """Evaluate the PPC of ``build`` (:class:`dcsflow.scg.buildfolder.BuildFolder`) for several parameter
    assignments at once (bit-parallel) and patch the template's touched frames for each.

    Args:
        assignments: each maps every parameter port to its value (int).
    Returns:
        one :class:`RekeyPlan` per assignment.
    Raises:
        scg.ppc.PpcError: a port missing or a value wider than its port.
        BuildFolderError: the frame map or template is refused (read on first use).
    """
    bits = build.ppc.evaluate_many(assignments)
    tpl = build.template
    plans = []
    for b in bits:
        frames = {far: tpl.frame(far) for far in build.fars}
        for far, word, bit, j in build.entries:
            fr = frames[far]
            fr[word] = (fr[word] & ~(1 << bit) & 0xFFFFFFFF) | (b[j] << bit)
        for far, fr in frames.items():
            old = tpl.frame(far)
            e = 0
            for k in range(FRAME_WORDS):
                if fr[k] != old[k]:
                    e ^= word_ecc(k, fr[k] ^ old[k])
            fr[ECC_WORD] = (fr[ECC_WORD] & ~ECC_MASK & 0xFFFFFFFF) | ((old[ECC_WORD] ^ finish_ecc(e)) & ECC_MASK)
        plans.append(RekeyPlan(frames, build.runs))
    return plans


def plan(build, assignment: dict) -> RekeyPlan:
    """:func:`plan_many` for one assignment."""
    return plan_many(build, [assignment])[0]


def words_hash(words) -> str:
    """FNV-1a 64-bit hash (16 hex digits) over the little-endian bytes of the 32-bit ``words``: the
    firmware's frames and chain-words hash (key-dependent: printed only on request)."""
    h = 0xCBF29CE484222325
    for w in words:
        for k in range(4):
            h = ((h ^ ((w >> (8 * k)) & 0xFF)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def frames_hash(frames: dict, device: Device) -> str:
    """:func:`words_hash` over ``frames`` (FAR -> words) in FDRI order: the value the firmware's
    host-test and qemu-test print (``scg_frames_hash`` in firmware/scg_runtime.c)."""
    return words_hash(w for far in sorted(frames, key=device.far_index.__getitem__) for w in frames[far])


def param_layout(ppc) -> list[tuple[str, int, int]]:
    """Parameter vector layout of the firmware: ``(port, offset, width)`` per port of ``ppc``
    (:class:`dcsflow.scg.ppc.Ppc`) in order of first appearance among the PPC inputs; the vector is the
    ports concatenated, port 0 at bit 0 (``rekey <hex>`` of the firmware takes it as one number)."""
    out, off = [], 0
    seen = []
    for n in ppc.inputs:
        p = n.split("[")[0] if n.endswith("]") else n
        if p not in seen:
            seen.append(p)
    for p in seen:
        out.append((p, off, ppc.ports[p]))
        off += ppc.ports[p]
    return out
