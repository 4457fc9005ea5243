"""An independent bit-parallel evaluator of TLUT netlists (format ``dcsflow-tlut-netlist`` v1/v2),
used by the ``verify`` stage against the front end's AIG."""

from __future__ import annotations


def simulate_netlist(netlist: dict, ppc_vals: list[int], inputs: dict[str, int], width: int) -> dict[str, int]:
    """Evaluate a TLUT netlist bit-parallel.

    Args:
        netlist: the TLUT netlist (dict, format "dcsflow-tlut-netlist" v1 or v2; a v2 mux
            ``MUXF7``/``MUXF8`` is ``O = S ? I1 : I0``, UG474, evaluated when first read).
        ppc_vals: PPC output j for ``width`` patterns (bit p of the int = pattern p).
        inputs: regular input name -> ``width``-bit pattern int.
        width: number of patterns.
    Returns:
        output name -> ``width``-bit pattern int.
    """
    mask = (1 << width) - 1
    val = dict(inputs)
    val["0"], val["1"] = 0, mask
    muxes = {m["name"]: m for m in netlist.get("muxes", [])}

    def get(x: str) -> int:
        if x not in val and x in muxes:
            m = muxes[x]
            s = get(m["S"])
            val[x] = (s & get(m["I1"])) | (s ^ mask) & get(m["I0"])
        return val[x]

    for lut in netlist["luts"]:
        ins = [get(x) for x in lut["inputs"]]
        k = len(ins)
        if "ppc" in lut:
            entries = [ppc_vals[j] for j in lut["ppc"]]
        else:
            init = int(lut["init"], 16)
            entries = [mask if (init >> i) & 1 else 0 for i in range(1 << k)]
        acc = 0
        for i, e in enumerate(entries):
            sel = e
            for j in range(k):
                sel &= ins[j] if (i >> j) & 1 else ins[j] ^ mask
            acc |= sel
        val[lut["name"]] = acc
    return {o["name"]: get(o["driver"]) for o in netlist["outputs"]}
