"""Parameter transforms: user parameters -> circuit parameters, registered per design.

A design whose circuit parameters are a function of what the user knows (e.g. the π16 state after
initialization instead of Key‖PMN) registers ``"flow.transforms:<name>"`` in
:data:`flow.designs.BUNDLED`; ``specialize`` and ``check`` apply it before evaluating the PPC.
"""

from __future__ import annotations

from .errors import FlowError


class TransformError(FlowError):
    """User parameter values the transform cannot use."""


def picipher_cis(user: dict[str, int]) -> dict[str, int]:
    """``key_mn`` (Key‖PMN, 128 bits, key byte 0 in the MSBs; 96-bit key) -> ``cis_param`` (448 bits).

    cis_param = CIS after initialization and the empty-AD step, the counter and the tag accumulator,
    computed by the golden model (``designs.picipher.cis_parameters(key, pmn).as_int()``; layout in
    designs/picipher_cis/rtl/picipher_cis_mp.v).
    """
    from dcsflow.designs.picipher import cis_parameters

    if "key_mn" not in user:
        raise TransformError("picipher_cis needs key_mn")
    raw = user["key_mn"].to_bytes(16, "big")
    return {"cis_param": cis_parameters(raw[:12], raw[12:]).as_int()}
