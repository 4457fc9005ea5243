"""One official π-Cipher record (the reference implementation's text format, empty AD) as text, for
tests that write vector files (tests/test_flow_picipher*.py)."""

from __future__ import annotations


def record_text(v, cipher: bytes | None = None, key: bytes | None = None) -> str:
    """Record ``v`` (a :class:`dcsflow.designs.picipher.vectors` vector) with its CIPHER (or
    ``cipher``) and KEY (or ``key``) field, followed by a blank line."""
    h = lambda b: b.hex().upper()  # noqa: E731
    cipher, key = cipher if cipher is not None else v.cipher, key if key is not None else v.key
    return (f"[vector #{v.number} ({v.number})]\nKEY ({len(key)}) = {h(key)}\nNPUB ({len(v.pmn)}) = {h(v.pmn)}\n"
            f"MSG ({len(v.msg)}) = {h(v.msg)}\nAD (0) = \nCIPHER ({len(cipher)}) = {h(cipher)}\n\n")
