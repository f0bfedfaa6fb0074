"""Non-finite numbers are found wherever they sit, and named by their dotted path."""

from __future__ import annotations

import json

import pytest

from green_agent.kit.finite_json import NonFiniteNumber, loads_finite, non_finite_path


@pytest.mark.parametrize(
    ("text", "path", "token"),
    [
        ("NaN", "(top level)", "NaN"),
        ('{"a": 1, "b": {"c": [0, 1.5, Infinity]}}', "b.c.2", "Infinity"),
        ('[{"x": 1}, {"y": -Infinity}]', "1.y", "-Infinity"),
        ('{"big": 1e400}', "big", "1e400"),
        ('{"a": NaN, "b": Infinity}', "a", "NaN"),
    ],
)
def test_loads_finite_names_the_first_non_finite_number(text: str, path: str, token: str) -> None:
    with pytest.raises(NonFiniteNumber) as err:
        loads_finite(text)
    assert (err.value.path, err.value.token) == (path, token)


def test_finite_documents_load_unchanged() -> None:
    text = '{"a": [1, 2.5, -0.0, true, null, "NaN"], "b": {"c": 1e300}}'
    assert loads_finite(text) == json.loads(text)


def test_non_finite_path_of_python_data_with_a_prefix() -> None:
    data = {"role": "p", "items": [{"latency_ms": 1.0}, {"latency_ms": float("inf")}]}
    assert non_finite_path(data, "result") == "result.items.1.latency_ms"
    assert non_finite_path(float("nan")) == "(top level)"
    assert non_finite_path({"n": 1, "s": "inf", "ok": [True, None, 2.0]}) is None
