"""Parameter bits: TLUTs that read one parameter function become static LUTs on a parameter bit.

A TLUT ``T`` whose entries are each a constant or one PPC function ``p`` (either polarity) computes
``T(x) = R(x, p)`` for a static table ``R``. Realized as a CFGLUT5 it takes 32 shifted bits to carry
that one parameter bit. :func:`split_param_bits` turns it into the static LUT ``R`` reading a
**parameter bit** ``q``: a TLUT without inputs whose single entry is ``p`` (netlist format: "a TLUT
with no input"), which a CFGLUT5 build holds in a flip-flop of its shift chains. One ``q`` per PPC
variable is shared by every LUT that reads it.

``R`` keeps ``T``'s name (the proof's claims are keyed by LUT name, and ``R`` computes the same
function) and reads ``T.inputs + [q]``: INIT bit ``a | pv << k`` is ``T``'s entry ``a`` with the
parameter bit at value ``pv``. The cut-point proof (:mod:`dcsflow.tmap.cutpoint`) checks ``R`` over
its other inputs with its entries multiplexed by ``q``'s PPC literal.
Standard library only.
"""

from __future__ import annotations

from dcsflow.aig import Aig

from .netlist import Lut, TlutNetlist

__all__ = ["split_param_bits"]


def _one_variable(lits: list[int]) -> int | None:
    """The variable every non-constant literal of ``lits`` reads, or None when they read two
    variables or none (all constant)."""
    var = None
    for lit in lits:
        if lit <= 1:
            continue
        if var is None:
            var = lit >> 1
        elif lit >> 1 != var:
            return None
    return var


def _static_table(lits: list[int], qlit: int) -> int:
    """INIT of the static LUT on (T's inputs, q) for entry literals ``lits`` of T, q's literal
    ``qlit``: bit ``a | pv << k`` is entry ``a`` with q = pv."""
    k_size = len(lits)
    init = 0
    for a, lit in enumerate(lits):
        for pv in (0, 1):
            if lit <= 1:
                bit = lit
            elif lit == qlit:
                bit = pv
            else:                                     # lit == qlit ^ 1 (same variable)
                bit = 1 - pv
            init |= bit << (a | pv * k_size)
    return init


def _namer(taken: set):
    """Function giving a name ``base`` (suffixed ``_1``, ``_2``, ... on collision) not in ``taken``,
    and taking it."""
    def name(base: str) -> str:
        nm, n = base, 0
        while nm in taken:
            n += 1
            nm = f"{base}_{n}"
        taken.add(nm)
        return nm
    return name


def split_param_bits(netlist: TlutNetlist, ppc: Aig, affine: dict | None, K: int) -> tuple[TlutNetlist, dict, int, int]:
    """Turn each TLUT that reads one PPC function into a static LUT on a shared parameter bit.

    A TLUT ``T`` with ``k`` inputs, ``1 <= k`` and ``k + 1 <= K``, whose entries' PPC literals
    (``ppc.outputs[j]``) are all constants or the one variable ``v`` (either polarity), not all
    constant, becomes ``Lut(T.name, T.inputs + [q], init=R)`` (module docstring). Per variable ``v``
    one parameter bit ``q = Lut(name, [], ppc=[j])`` is made, ``j`` the PPC output of the first such
    entry seen (its literal is q's value; ``R`` takes the other polarity into account); the names
    are ``pbit<j>`` (suffixed on collision), distinct from every LUT, mux, input, parameter and
    output name. The parameter bits go to the front of ``netlist.luts`` (no inputs: the order stays
    topological). Other LUTs are kept as they are; the PPC is not changed (outputs that only split
    TLUTs named stay, unused).

    Args:
        netlist: the TLUT netlist, changed in place (``luts``).
        ppc: its PPC (output ``j`` drives the entries that name ``j``).
        affine: TLUT name -> affine record (:class:`dcsflow.affine.AffineTlut`) or None; the records
            of split TLUTs are dropped (they are static now).
        K: LUT size: a TLUT is split only when the static LUT, one input more, fits.
    Returns:
        (netlist, affine records of the remaining TLUTs, TLUTs split, parameter bits made).
    Raises:
        IndexError: a TLUT names a PPC output that does not exist.
    """
    outs = ppc.outputs
    affine = dict(affine or {})
    taken = {lut.name for lut in netlist.luts} | {m.name for m in netlist.muxes}
    taken |= set(netlist.inputs) | set(netlist.params) | {n for n, _ in netlist.outputs}
    new_name = _namer(taken)
    qbits = {}              # PPC variable -> (q's name, q's literal)
    order = []              # the parameter bits, in order of first use
    luts = []
    n_split = 0
    for lut in netlist.luts:
        k = len(lut.inputs)
        if not lut.is_tlut or not 1 <= k or k + 1 > K:
            luts.append(lut)
            continue
        lits = [outs[j] for j in lut.ppc]
        var = _one_variable(lits)
        if var is None:
            luts.append(lut)
            continue
        if var not in qbits:
            j = next(j for j, lit in zip(lut.ppc, lits) if lit >> 1 == var)
            q = Lut(new_name(f"pbit{j}"), [], ppc=[j])
            qbits[var] = (q.name, outs[j])
            order.append(q)
        qname, qlit = qbits[var]
        luts.append(Lut(lut.name, list(lut.inputs) + [qname], init=_static_table(lits, qlit)))
        affine.pop(lut.name, None)
        n_split += 1
    netlist.luts = order + luts
    return netlist, affine, n_split, len(order)
