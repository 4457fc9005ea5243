"""What a command that refuses its input must print: one ``error: ...`` line, exit status 1, no
traceback (shared by the hostile-input tests)."""

from __future__ import annotations


def one_line_error(r, *needles) -> str:
    """The single ``error: ...`` line of a failed command ``r`` (a :class:`subprocess.CompletedProcess`
    or a click ``Result``; exit status 1), containing every string of ``needles``."""
    err = r.stderr if isinstance(r.stderr, str) else r.stderr.decode("utf-8", "backslashreplace")
    code = getattr(r, "returncode", getattr(r, "exit_code", None))
    assert code == 1, (code, err[-3000:])
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err[-3000:]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]
