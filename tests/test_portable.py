"""The engine's exp/log/power: accurate, and the only transcendentals on market data."""

from __future__ import annotations

import ast
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.engine import portable

ENGINE = Path(__file__).resolve().parents[1] / "workbench" / "engine"
# NumPy ufuncs whose float64 loops NumPy picks by CPU at import time
DISPATCHED = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "power", "float_power"}
DISPATCHED |= {"sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh"}


def _ulps(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.max(np.abs(got - want) / np.spacing(np.abs(want))))


def test_exp_is_within_two_ulps_of_the_c_library() -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-700, 700, 20_000), rng.normal(0, 1, 20_000)])
    want = np.array([math.exp(v) for v in x])
    assert _ulps(portable.exp(x), want) <= 2.0


def test_log_is_within_four_ulps_of_the_c_library() -> None:
    rng = np.random.default_rng(1)
    x = np.concatenate([np.exp(rng.normal(0, 5, 20_000)), 1 + rng.normal(0, 1e-6, 5_000)])
    want = np.array([math.log(v) for v in x])
    assert _ulps(portable.log(x), want) <= 4.0


def test_power_matches_the_c_library_closely() -> None:
    base, exponent = np.array([0.5, 2.0, 1.3, 10.0]), np.array([0.7, 1.5, -2.2, 3.0])
    want = np.array([math.pow(b, e) for b, e in zip(base, exponent, strict=True)])
    np.testing.assert_allclose(portable.power(base, exponent), want, rtol=1e-14)


def test_special_values_follow_the_c_library() -> None:
    got = portable.exp(np.array([np.nan, np.inf, -np.inf, 710.0, -746.0, 0.0]))
    np.testing.assert_array_equal(got, [np.nan, np.inf, 0.0, np.inf, 0.0, 1.0])
    got = portable.log(np.array([0.0, -1.0, np.inf, np.nan, 1.0]))
    np.testing.assert_array_equal(got, [-np.inf, np.nan, np.inf, np.nan, 0.0])
    assert portable.log(np.array([5e-324]))[0] == pytest.approx(math.log(5e-324), rel=1e-15)


@pytest.mark.parametrize("size", [1, 7, 4_096, 8_192, 8_193, 30_000])
@pytest.mark.slow
def test_one_call_over_many_elements_gives_the_bits_of_a_call_per_element(size: int) -> None:
    rng = np.random.default_rng(size)
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, 710.0, -746.0, -2.0]
    x = np.concatenate([rng.normal(0, 4, size), np.exp(rng.normal(0, 20, size)), specials])
    rng.shuffle(x)
    for fn in (portable.exp, portable.log):
        whole = fn(x)
        pieces = np.concatenate([fn(part) for part in np.array_split(x, 13)])
        alone = np.array([fn(value) for value in x[:300]])
        assert whole.tobytes() == pieces.tobytes(), fn.__name__
        assert whole[:300].tobytes() == alone.tobytes(), fn.__name__
        assert fn(x.reshape(-1, 1)).tobytes() == whole.tobytes(), fn.__name__


def test_a_scalar_gives_a_zero_dimensional_array() -> None:
    assert portable.exp(0.0).shape == () and portable.log(1.0).shape == ()
    assert portable.exp(np.empty(0)).shape == (0,)


def _digest_in_a_process(disabled: str) -> str:
    code = (
        "import hashlib, numpy as np\n"
        "from workbench.engine import portable\n"
        "x = np.random.default_rng(2).normal(0, 3, 50_000)\n"
        "y = portable.exp(x) + portable.log(np.abs(x) + 1e-9) + portable.power(np.abs(x), 0.37)\n"
        "print(hashlib.sha256(y.tobytes()).hexdigest())\n"
    )
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": disabled} if disabled else dict(os.environ)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_the_bits_do_not_depend_on_the_vector_extensions_numpy_uses() -> None:
    assert _digest_in_a_process("") == _digest_in_a_process("X86_V3")


# the C library's functions, which glibc picks by CPU (FMA or not) when a program starts
MATH_DISPATCHED = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "cbrt"}
MATH_DISPATCHED |= {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh"}
MATH_DISPATCHED |= {"asinh", "acosh", "atanh", "hypot", "erf", "erfc", "gamma", "lgamma"}
# NumPy samplers whose values pass through the C library's exp, log or pow (normal,
# uniform, integers and standard_gamma's values are sums and products of draws)
SAMPLERS = {"lognormal", "exponential", "standard_exponential", "standard_t", "pareto"}
SAMPLERS |= {"weibull", "power", "laplace", "gumbel", "logistic", "rayleigh", "wald"}
SAMPLERS |= {"vonmises", "beta", "logseries", "chisquare", "f", "noncentral_chisquare"}
SAMPLERS |= {"gamma", "geometric", "dirichlet"}


def _constant(node: ast.expr) -> bool:
    """A number written in the code (``2**20``): it is the same on every machine."""
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.BinOp) and _constant(node.left) and _constant(node.right)
    )


def _dispatched_calls(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        found += [f"{path.name}:{node.lineno} {what}" for what in _dispatched(node)]
    return found


def _dispatched(node: ast.AST) -> list[str]:
    """What in ``node`` computes market data with machine-dependent maths."""
    if isinstance(node, ast.Attribute):
        module = node.value.id if isinstance(node.value, ast.Name) else None
        if module in ("np", "numpy") and node.attr in DISPATCHED:
            return [f"np.{node.attr}"]
        if module in ("math", "cmath") and node.attr in MATH_DISPATCHED:
            return [f"{module}.{node.attr}"]
    if isinstance(node, ast.ImportFrom) and node.module in ("math", "numpy", "cmath"):
        return [f"from {node.module} import {alias.name}" for alias in node.names]
    if isinstance(node, ast.Import):
        return [
            f"import {a.name} as {a.asname}"
            for a in node.names
            if a.asname and a.name in ("math", "cmath")
        ]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "pow":
        return ["pow() (use x * x or portable.power)"]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value.id if isinstance(node.func.value, ast.Name) else None
        if node.func.attr in SAMPLERS and owner not in ("portable", "np", "numpy"):
            return [f".{node.func.attr}() (draw normals and use portable.exp)"]
    # a float's ** is the C library's pow, and an array's is NumPy's dispatched power
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not _constant(node):
        return ["** (use x * x or portable.power)"]
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Pow):
        return ["**= (use x * x or portable.power)"]
    return []


@pytest.mark.slow
def test_the_engine_uses_only_portable_transcendentals() -> None:
    exempt = {
        "portable.py",  # the portable functions themselves
        "stylised.py",  # measures finished paths for the bench and tests; makes no market data
        "sample_bars.py",  # wrote the committed example CSV; no run computes its data again
    }
    modules = sorted(p for p in ENGINE.glob("*.py") if p.name not in exempt)
    found = [call for path in modules for call in _dispatched_calls(path)]
    assert not found, "machine-dependent maths on market data: " + ", ".join(found)


def test_the_rule_catches_a_dispatched_call(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import math\nimport numpy as np\n"
        "y = np.exp(x) + z ** k + w**2 + math.exp(v) + math.log(60.0) + 2**20 + math.sqrt(u)\n"
        "from math import exp\nimport math as m\nv = rng.lognormal(0, 1) + pow(a, b)\n"
        "v **= 3\nq = rng.normal(0, 1) + rng.standard_normal(3) + cmath.exp(q)\n"
        "w = np.power(a, b) + portable.power(a, b) + t.beta + rngs['x'].gamma(2.0)\n"
    )
    assert sorted(_dispatched_calls(bad)) == [
        "bad.py:3 ** (use x * x or portable.power)",
        "bad.py:3 ** (use x * x or portable.power)",
        "bad.py:3 math.exp",
        "bad.py:3 math.log",
        "bad.py:3 np.exp",
        "bad.py:4 from math import exp",
        "bad.py:5 import math as m",
        "bad.py:6 .lognormal() (draw normals and use portable.exp)",
        "bad.py:6 pow() (use x * x or portable.power)",
        "bad.py:7 **= (use x * x or portable.power)",
        "bad.py:8 cmath.exp",
        "bad.py:9 .gamma() (draw normals and use portable.exp)",
        "bad.py:9 np.power",
    ]


def test_one_number_gets_the_bits_of_the_array_functions() -> None:
    for x in (0.0, -1.5, 1e-300, 60.0, 709.0):
        assert portable.exp_of(x) == float(portable.exp(np.array([x]))[0])
    for x in (1e-4, 1.0, 60.0, 1e4, 5e-324):
        assert portable.log_of(x) == float(portable.log(np.array([x]))[0])


def test_the_scalar_path_gives_the_array_bits_over_the_whole_range() -> None:
    rng = np.random.default_rng(11)
    near_half = 0.5 * math.log(2.0) * np.array([-3, -1, 1, 3])  # where rint ties
    xs = np.concatenate([rng.normal(0, 1, 5000), rng.uniform(-745.1, 709.7, 5000), near_half])
    scalar = np.array([portable.exp_of(x) for x in xs.tolist()])
    assert scalar.tobytes() == portable.exp(xs).tobytes()
    ys = np.concatenate([np.abs(rng.normal(0, 1, 5000)), 2.0 ** rng.uniform(-1070, 1020, 5000)])
    scalar = np.array([portable.log_of(y) for y in ys.tolist()])
    assert scalar.tobytes() == portable.log(ys).tobytes()
    powers = [portable.power_of(0.5, 1.0 / h) for h in (1.0, 3.0, 40.0, 252.0)]
    assert powers == [float(portable.power(0.5, 1.0 / h)) for h in (1.0, 3.0, 40.0, 252.0)]
    for odd in (math.nan, math.inf, -math.inf, 710.0, -746.0, 0.0, -1.0):
        assert np.array_equal(portable.exp_of(odd), portable.exp(odd), equal_nan=True)
        assert np.array_equal(portable.log_of(odd), portable.log(odd), equal_nan=True)
