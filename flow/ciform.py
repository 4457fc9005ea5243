"""The CI form of a build: the TLUT implementation and only the conventional candidate a table of
pinned figures names, bounded by the LUT depths the table records.

A full build makes every conventional candidate (:data:`dcsflow.flow.baselines.ALL_CANDIDATES`)
and chooses the one with the fewest slices at no greater LUT depth than ``yosys-abc``; its static
re-mapping is bounded by the shallowest candidate's LUT depth. A test that checks a build's figures
against those of an earlier full build (a *build-figures* file, ``dcsflow-build-figures`` version
1, docs/reference/formats.md) needs only the candidate that build chose and the two depths: with
them (:attr:`dcsflow.flow.build.BuildOptions.depth_bounds`) the build makes the same TLUT
implementation and the same conventional one, for a fraction of the work (aes128_iter: one
candidate of 15). Its comparison table shows that candidate alone, so it is not the comparison
with the strongest conventional implementation that a default build reports.
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.fileio import InputError, load_json_file

from .baselines import REFERENCE as _REFERENCE
from .errors import FlowError

__all__ = ["FIGURES_FORMAT", "FIGURES_VERSION", "read_figures", "ci_form"]

#: the format and version of a build-figures file (``format`` and ``version`` keys)
FIGURES_FORMAT, FIGURES_VERSION = "dcsflow-build-figures", 1
#: the largest build-figures file read (bytes)
_LIMIT = 8 << 20


def read_figures(path: str | Path) -> dict[str, dict]:
    """The entries of build-figures file ``path``: design name -> its pinned figures (at least
    ``conventional.baseline`` and ``candidates``: name -> ``depth``, ...).

    Raises:
        FlowError: the file is missing, unreadable, not a regular file, larger than 8 MiB, not JSON,
            of another format or version, or an entry lacks its chosen candidate (one line naming
            the file).
    """
    p = Path(path)
    try:
        doc = load_json_file(p, limit=_LIMIT, what="build-figures file")
    except InputError as e:            # not a regular file (a FIFO, a device), too large, too deep
        raise FlowError(str(e)) from None
    except OSError as e:
        raise FlowError(f"{p}: cannot read ({e.strerror or e})") from None
    except ValueError as e:            # json.JSONDecodeError, UnicodeDecodeError
        raise FlowError(f"{p}: not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FIGURES_FORMAT or doc.get("version") != FIGURES_VERSION:
        raise FlowError(f"{p}: not a {FIGURES_FORMAT} file of version {FIGURES_VERSION}")
    designs = doc.get("designs")
    if not isinstance(designs, dict):
        raise FlowError(f"{p}: no designs")
    for name, e in designs.items():
        try:
            chosen = e["conventional"]["baseline"]
            depths = {n: int(c["depth"]) for n, c in e["candidates"].items()}
        except (KeyError, TypeError, ValueError):
            raise FlowError(f"{p}: design {name}: no chosen candidate with the candidates' LUT depths") from None
        if chosen not in depths:
            raise FlowError(f"{p}: design {name}: the chosen candidate {chosen} is not among its candidates")
    return designs


def ci_form(entry: dict) -> dict:
    """The :class:`~dcsflow.flow.build.BuildOptions` fields of the CI form for one entry of
    :func:`read_figures`: ``baselines`` (the chosen candidate; ``yosys-abc`` too when the entry has
    no figures of it) and ``depth_bounds`` ((``yosys-abc``'s LUT depth, the shallowest candidate's),
    or None when ``yosys-abc`` is made)."""
    chosen = entry["conventional"]["baseline"]
    cands = entry["candidates"]
    if _REFERENCE not in cands:
        return {"baselines": tuple(dict.fromkeys((_REFERENCE, chosen))), "depth_bounds": None}
    return {"baselines": (chosen,),
            "depth_bounds": (int(cands[_REFERENCE]["depth"]), min(int(c["depth"]) for c in cands.values()))}
