"""Helpers for tests that alter build folders on purpose."""

from __future__ import annotations

import json
from pathlib import Path

from dcsflow.scg.buildfolder import sha256_file


def reseal(root, ppc_hash: bool = True) -> None:
    """Record the current SHA-256 of every file listed in ``root/build.json`` (and, with ``ppc_hash``,
    of ``ppc.aig`` in ``ppc.json``): a folder changed on purpose then passes the file-hash check, so
    that a test reaches the check behind it (as if the flow itself had written inconsistent files)."""
    root = Path(root)
    if ppc_hash:
        pj = json.loads((root / "ppc.json").read_text())
        pj["sha256"] = sha256_file(root / "ppc.aig")
        (root / "ppc.json").write_text(json.dumps(pj))
    bj = json.loads((root / "build.json").read_text())
    bj["files"] = {n: sha256_file(root / n) for n in bj["files"]}
    (root / "build.json").write_text(json.dumps(bj))
