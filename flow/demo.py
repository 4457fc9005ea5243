"""``dcsflow demo``: the README's main job over every installed design that has a demo entry.

Each design with a :class:`~dcsflow.flow.design.Demo` entry marked ``default`` (others with
``--also NAME``) is built (TLUT and conventional implementations), its comparison table printed,
and its specialized implementation checked by the design's own check (on the demo entry's vectors,
else the design's default ones); a closing table sums them up, followed by one line for each design
where specialization does not pay (:func:`dcsflow.flow.report.verdict`). The exit status is 0 only
when every check passes.
"""

from __future__ import annotations

import time
from pathlib import Path

from .build import BuildOptions, build
from .check import check_build
from .ciform import ci_form
from .design import CheckOptions, Design
from .report import print_summary, print_table, verdict_line


def demo_designs(also: list[str] | tuple[str, ...] = ()) -> list[Design]:
    """The designs of the main job, in demo order: those with a default demo entry plus ``also``.

    Raises:
        DesignError: a name in ``also`` is not an installed design with a demo entry.
    """
    from .design import DesignError
    from .registry import installed

    designs = installed()
    for name in also:
        if name not in designs or designs[name].demo is None:
            optional = [n for n, d in designs.items() if d.demo is not None and not d.demo.default]
            raise DesignError(f"--also {name}: not a design with a demo entry; optional ones: "
                              + (", ".join(optional) or "none"))
    chosen = [d for d in designs.values() if d.demo is not None and (d.demo.default or d.name in also)]
    return sorted(chosen, key=lambda d: (d.demo.order, d.name))


def main_job(out_root: Path | str = "build", progress: bool = True, file=None, also=(), rtl_sim: bool = False,
             jobs: int | None = None, pinned: dict | None = None) -> int:
    """Build and check every demo design (module docstring) into ``out_root/<design>``; print the
    comparison tables, one check line per design and the closing table with the designs where
    specialization does not pay. With ``rtl_sim`` the designs' RTL simulations (``Demo.rtl_sim``)
    run first; ``jobs``: parallel jobs of each build
    (:class:`~dcsflow.flow.build.BuildOptions`); ``pinned``: entries of a build-figures file
    (:func:`dcsflow.flow.ciform.read_figures`): a design with an entry is built in the CI form
    (:func:`dcsflow.flow.ciform.ci_form`). Returns the exit status: 0 only when every check
    (and RTL simulation) passes.

    Raises the build's FlowErrors (Yosys/TMAP missing or failing).
    """
    from rich.console import Console

    designs = demo_designs(also)
    status = 0
    if rtl_sim:
        for d in designs:
            if d.demo.rtl_sim is not None and not d.demo.rtl_sim():
                status = 1
    rows, verdicts = [], {}
    labels = sorted({d.demo.cycles_label for d in designs if d.demo.cycles})
    for d in designs:
        t0 = time.perf_counter()
        form = ci_form(pinned[d.name]) if pinned and d.name in pinned else {}
        res = build(BuildOptions(design=d.name, out=Path(out_root) / d.name, progress=progress, jobs=jobs, **form))
        print_table(res.report, file=file)
        if form:
            Console(file=file).print(f"{d.name}: CI form (--pinned): candidate {', '.join(form['baselines'])} only",
                                     markup=False, highlight=False)
        vectors = d.demo.vectors() if d.demo.vectors else None
        chk = check_build(Path(out_root) / d.name, CheckOptions(vectors=vectors), progress=progress)
        Console(file=file).print(f"{d.name}: check{f' on {vectors.name}' if vectors else ''} passed "
                                 f"{chk.passed}/{chk.total} (build + check {time.perf_counter() - t0:.0f} s)",
                                 markup=False, highlight=False)
        status |= int(chk.passed != chk.total)
        rows.append((d.name, res.report["tlut"], res.report["conventional"],
                     chk.cycles_for(d.demo.cycles) if d.demo.cycles else None, f"{chk.passed}/{chk.total}"))
        verdicts[d.name] = verdict_line(res.report)
    print_summary(rows, file, cycles_label=f"cycles\n{labels[0]}" if len(labels) == 1 else "cycles",
                  verdicts=verdicts)
    return status
