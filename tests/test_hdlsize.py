"""Expression depth of Verilog sources (flow/hdlsize.py): an upper bound on the syntax tree's depth,
checked against Python's own parser; a 10,000-term flat expression is refused before Yosys reads it;
the bundled designs pass far below the limit."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

from dcsflow.flow.hdlsize import MAX_EXPRESSION_DEPTH, check_expression_depth, expression_depth
from dcsflow.flow.errors import FrontendError

import pytest

ROOT = Path(__file__).resolve().parents[1]
OPS = ["+", "-", "*", "&", "|", "^"]


def _tree_depth(node) -> int:
    """Depth of a Python expression's operator tree (a name or number: 0), without recursion."""
    best, todo = 0, [(node, 0)]
    while todo:
        n, d = todo.pop()
        if isinstance(n, ast.BinOp):
            todo += [(n.left, d + 1), (n.right, d + 1)]
        elif isinstance(n, ast.UnaryOp):
            todo.append((n.operand, d))
        best = max(best, d)
    return best


_leaf = st.sampled_from(["a", "b", "key", "7", "x"])
_expr = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(OPS), inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        inner.map(lambda e: f"({e})")),
    max_leaves=60)


@settings(max_examples=300, deadline=None)
@given(_expr)
def test_the_bound_is_never_below_the_tree_depth(expr):
    true = _tree_depth(ast.parse(expr, mode="eval").body)      # Python's parser: an independent tree
    bound, _ = expression_depth(f"assign y = {expr};")
    assert bound >= true


@pytest.mark.parametrize("n", [1, 10, 500])
def test_a_flat_chain_is_as_deep_as_its_operators(n):
    expr = " ^ ".join(["x"] + [f"(key + {i})" for i in range(n)])
    true = _tree_depth(ast.parse(expr, mode="eval").body)
    bound, _ = expression_depth(f"assign y = {expr};")
    assert true <= bound <= true + 3


def _balanced(lo: int, hi: int) -> str:
    if hi - lo == 1:
        return f"(key + {lo})"
    m = (lo + hi) // 2
    return f"({_balanced(lo, m)} ^ {_balanced(m, hi)})"


def test_a_balanced_tree_of_10000_terms_passes():
    depth, _ = expression_depth(f"assign y = {_balanced(0, 10000)};")
    assert depth <= 3 * 15                                       # log2(10000) < 14 levels of brackets


def test_comments_strings_and_statements_do_not_add_up():
    chain = " ^ ".join(["x"] * 5000)
    text = (f"// {chain}\n/* {chain} */\ninitial $display(\"{chain}\");\n"
            + "".join(f"assign y{i} = a ^ b;\n" for i in range(5000)))
    assert expression_depth(text)[0] <= 3
    assert expression_depth("(* keep = 1 *) wire [7:0] w;")[0] <= 3


def test_the_refusal_names_file_line_and_limit():
    text = "module m(input a, output y);\n\nassign y = " + " ^ ".join(["a"] * (MAX_EXPRESSION_DEPTH + 10)) + ";\nendmodule\n"
    with pytest.raises(FrontendError) as e:
        check_expression_depth(Path("deep.v"), text)
    msg = str(e.value)
    assert msg.startswith("deep.v:3: ") and str(MAX_EXPRESSION_DEPTH) in msg and "\n" not in msg


def test_deep_brackets_are_refused():
    text = "assign y = " + "(" * 10000 + "a" + ")" * 10000 + ";"
    with pytest.raises(FrontendError):
        check_expression_depth(Path("deep.v"), text)


def test_bundled_sources_pass_far_below_the_limit():
    files = [p for p in ROOT.rglob("*.v") if ".venv" not in p.parts] + list(ROOT.rglob("*.sv"))
    assert len(files) > 10
    worst = max(expression_depth(p.read_text(encoding="latin-1"))[0] for p in files)
    assert worst < 100


def test_build_refuses_10000_flat_terms_before_yosys(tmp_path):
    """``y <= x ^ (key + 1) ^ ... ^ (key + 10000)``: Yosys's read_verilog alone takes 99 s on it; the build
    ends in one line well within a minute."""
    src = tmp_path / "flat.v"
    terms = " ^ ".join(f"(key + 16'd{i})" for i in range(1, 10001))
    src.write_text("module flat(input clk, (* PARAM *) input [15:0] key, input [15:0] x, output reg [15:0] y);\n"
                   f"always @(posedge clk) y <= x ^ {terms};\nendmodule\n")
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", str(src), "--out", str(tmp_path / "b")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "flat.v:2:" in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "b" / "frontend" / "top_probe.log").exists()     # no Yosys run
