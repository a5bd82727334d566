"""The recorder's parts that need no model: safe calculator, tool registry, lazy imports."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz._record import CalculatorError, Tool, ToolRegistry, demo_tools, evaluate


@pytest.mark.parametrize(
    ("expression", "value"),
    [("2 + 3 * 4", 14), ("(2 + 3) * 4", 20), ("7 // 2", 3), ("7 % 4", 3), ("2 ** 10", 1024), ("-3 + +1", -2), ("1 / 4", 0.25), ("2^3", 8), ("6 × 7", 42)],
)
def test_calculator_evaluates_arithmetic(expression: str, value: float) -> None:
    assert evaluate(expression) == value


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os').system('id')", "\"__import__('os').system('id')\" is not allowed; only numbers, parentheses and + - * / // % ** are"),
        ("x + 1", "'x' is not allowed"),
        ("'a' * 3", "\"'a'\" is not allowed"),
        ("1 / 0", "division by zero in '1 / 0'"),
        ("9 ** 9 ** 9", "exponent 387420489 is too large (limit 1000)"),
        ("2 +", "'2 +' is not an arithmetic expression"),
        ("", "expression is empty"),
        ("1e308 * 10", "'1e308 * 10' overflows a float"),
    ],
)
def test_calculator_refuses_what_is_not_plain_arithmetic(expression: str, message: str) -> None:
    with pytest.raises(CalculatorError, match=re.escape(message)):
        evaluate(expression)


_numbers = st.integers(min_value=-50, max_value=50).map(str)


def _expressions() -> st.SearchStrategy[str]:
    return st.recursive(
        _numbers,
        lambda inner: st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        max_leaves=12,
    )


@given(_expressions())
def test_calculator_agrees_with_python_on_integer_arithmetic(expression: str) -> None:
    # Python's own evaluator is the oracle for these generated, harmless strings.
    assert evaluate(expression) == eval(expression)  # noqa: S307


def test_registry_runs_a_tool_and_serialises_its_result() -> None:
    result = demo_tools().call("calculator", {"expression": "2 + 3 * 4"})
    assert result.error is None
    assert json.loads(result.content) == {"expression": "2 + 3 * 4", "result": 14}


def test_unknown_tool_becomes_an_error_result_naming_the_known_ones() -> None:
    result = demo_tools().call("get_time", {})
    assert result.error == "unknown tool 'get_time'; known tools: calculator, get_weather"
    assert json.loads(result.content) == {"error": result.error}


def test_a_raising_tool_becomes_an_error_result() -> None:
    def broken(x: int) -> int:
        raise RuntimeError(f"sensor {x} offline")

    registry = ToolRegistry([Tool("broken", "Always fails.", {"type": "object"}, broken)])
    result = registry.call("broken", {"x": 3})
    assert result.error == "RuntimeError: sensor 3 offline"
    wrong = registry.call("broken", {"y": 3})
    assert wrong.error is not None and "unexpected keyword argument 'y'" in wrong.error
    assert registry.call("broken", [1, 2]).error == "arguments must be a JSON object, got [1, 2]"


def test_weather_is_fixed_data_and_unknown_cities_are_named() -> None:
    tools = demo_tools()
    tokyo = json.loads(tools.call("get_weather", {"city": "tokyo"}).content)
    assert tokyo == {"city": "Tokyo", "temperature_c": 11, "conditions": "clear", "humidity": 48}
    fahrenheit = json.loads(tools.call("get_weather", {"city": "Tokyo", "unit": "fahrenheit"}).content)
    assert fahrenheit["temperature_f"] == 11 * 9 / 5 + 32
    bad = tools.call("get_weather", {"city": "Atlantis"})
    assert bad.error is not None and bad.error.startswith("ValueError: no weather for 'Atlantis'; known cities: Berlin, London")


def test_tool_definitions_are_checked() -> None:
    with pytest.raises(ValueError, match="tool name 'get weather' must be an identifier"):
        Tool("get weather", "", {}, lambda: None)
    registry = demo_tools()
    with pytest.raises(ValueError, match="a tool named 'calculator' is already registered"):
        registry.register(Tool("calculator", "", {}, lambda: None))


def test_importing_the_recorder_does_not_import_torch_or_transformers() -> None:
    code = (
        "import sys, harmony_viz, harmony_viz._record; "
        "harmony_viz._record.demo_tools(); harmony_viz.make_tiny_model; harmony_viz.record_batch; "
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_missing_extra_says_how_to_install_it(tmp_path) -> None:
    # A None entry in sys.modules makes `import torch` fail, as on a machine without it.
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from harmony_viz._record import make_tiny_model, MissingExtraError\n"
        f"try:\n    make_tiny_model({str(tmp_path / 'm')!r})\n"
        "except MissingExtraError as exc:\n    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("; install with `pip install \"harmony-viz[record]\"`")
    assert out.stdout.startswith("recording needs 'torch', which is not importable")
