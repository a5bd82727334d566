"""Safe arithmetic for the demo calculator: a tiny evaluator over Python's AST, no ``eval``.

Only numbers, parentheses, ``+ - * / // % **`` and unary signs are allowed; anything else
(names, calls, attributes, strings) is refused with a message naming it. Powers and sizes
are bounded so a model cannot make the harness compute ``9**9**9``.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Callable, Union

Number = Union[int, float]

_BINARY: dict[type, Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Number], Number]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}

MAX_EXPRESSION_CHARS = 500
MAX_EXPONENT = 1000
MAX_DIGITS = 400


class CalculatorError(ValueError):
    """The expression is not plain arithmetic, or its result would be too large."""


def evaluate(expression: str) -> Number:
    """The value of an arithmetic ``expression``.

    >>> evaluate("2 + 3 * 4")
    14
    >>> evaluate("(1 + 2) ** 2 / 4")
    2.25
    """
    if not isinstance(expression, str):
        raise CalculatorError(f"expression must be a string, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"expression is {len(expression)} characters; the limit is {MAX_EXPRESSION_CHARS}")
    # Models write ^ for powers and × / ÷ for products; accept the common spellings.
    text = expression.replace("^", "**").replace("×", "*").replace("÷", "/").strip()
    if not text:
        raise CalculatorError("expression is empty; write arithmetic such as '2 + 3 * 4'")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CalculatorError(f"{expression!r} is not an arithmetic expression") from None
    return _eval(tree.body, text)


def _eval(node: ast.AST, source: str) -> Number:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand, source))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _eval(node.left, source)
        right = _eval(node.right, source)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise CalculatorError(f"exponent {right} is too large (limit {MAX_EXPONENT})")
        try:
            value = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise CalculatorError(f"division by zero in {source!r}") from None
        except OverflowError:
            raise CalculatorError(f"{source!r} overflows a float") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise CalculatorError(f"{source!r} overflows a float")
        if isinstance(value, complex):
            raise CalculatorError(f"{source!r} has no real value")
        if isinstance(value, int) and value and math.log10(abs(value)) > MAX_DIGITS:
            raise CalculatorError(f"the result of {source!r} has more than {MAX_DIGITS} digits")
        return value
    what = ast.get_source_segment(source, node) or type(node).__name__
    raise CalculatorError(f"{what!r} is not allowed; only numbers, parentheses and + - * / // % ** are")
