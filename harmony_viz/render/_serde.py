"""JSON values written the way Rust's ``serde_json`` prints them (``format!("{value}")``).

The reference renders schema ``default`` values with serde_json, which differs from Python's
``json.dumps``: compact separators, non-ASCII kept, floats in ``ryu``'s shortest form
(``1e20``, ``1.5e-7``, ``100.0``) and integers outside 64 bits turned into floats.

>>> serde_display({"a": [1, 2.0, 1e20, "é"]})
'{"a":[1,2.0,1e20,"é"]}'
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

__all__ = ["serde_display"]

_I64_MIN = -(2**63)
_U64_MAX = 2**64 - 1


def _ryu(x: float) -> str:
    """A finite float as ryu prints it: shortest digits, plain form for 1e-5 <= |x| < 1e16."""
    if x == 0:
        return "-0.0" if str(x).startswith("-") else "0.0"
    sign = "-" if x < 0 else ""
    # repr gives the shortest round-tripping digits, the same ones ryu finds; only the layout differs.
    _, digit_tuple, k = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    k = int(k) + (len(digits) - len(digits.rstrip("0")))
    digits = digits.rstrip("0")
    length = len(digits)
    kk = length + k  # value = digits * 10**k, and 10**(kk-1) <= value < 10**kk
    if 0 <= k and kk <= 16:
        return f"{sign}{digits}{'0' * k}.0"
    if 0 < kk <= 16:
        return f"{sign}{digits[:kk]}.{digits[kk:]}"
    if -5 < kk <= 0:
        return f"{sign}0.{'0' * -kk}{digits}"
    if length == 1:
        return f"{sign}{digits}e{kk - 1}"
    return f"{sign}{digits[0]}.{digits[1:]}e{kk - 1}"


_U64_MAX_DIV10, _U64_MAX_MOD10 = divmod(_U64_MAX, 10)
_I32_MAX_DIV10, _I32_MAX_MOD10 = divmod(2**31 - 1, 10)
_POW10 = tuple(float(f"1e{i}") for i in range(309))


class SerdeRangeError(ValueError):
    """A number serde_json refuses to read (it overflows an f64 on the way in)."""


def _f64_from_parts(positive: bool, significand: int, exponent: int) -> float:
    # serde_json's default (not float_roundtrip) conversion: one multiply or divide by a
    # power of ten, which is sometimes one ulp away from the correctly rounded value.
    f = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            pow10 = _POW10[abs(exponent)]
            if exponent >= 0:
                f *= pow10
                if f == float("inf"):
                    raise SerdeRangeError("number out of range")
            else:
                f /= pow10
            break
        if f == 0.0:
            break
        if exponent >= 0:
            raise SerdeRangeError("number out of range")
        f /= 1e308
        exponent += 308
    return f if positive else -f


def serde_parse_number(text: str) -> int | float:
    """The value serde_json 1.0 (default features) reads from the JSON number ``text``."""
    positive = not text.startswith("-")
    body = text[1:] if not positive else text
    i, n = 0, len(body)
    significand, exponent, is_float = 0, 0, False
    overflowed = False
    while i < n and body[i].isdigit():
        d = int(body[i])
        if overflowed or (significand >= _U64_MAX_DIV10 and (significand > _U64_MAX_DIV10 or d > _U64_MAX_MOD10)):
            overflowed, is_float = True, True
            exponent += 1  # digits past u64 are dropped, only their count is kept
        else:
            significand = significand * 10 + d
        i += 1
    if i < n and body[i] == ".":
        is_float = True
        i += 1
        while i < n and body[i].isdigit():
            d = int(body[i])
            if not overflowed and (significand >= _U64_MAX_DIV10 and (significand > _U64_MAX_DIV10 or d > _U64_MAX_MOD10)):
                overflowed = True
            if not overflowed:
                significand = significand * 10 + d
                exponent -= 1
            i += 1
    if i < n and body[i] in "eE":
        is_float = True
        i += 1
        exp_positive = True
        if body[i] in "+-":
            exp_positive = body[i] == "+"
            i += 1
        exp = 0
        while i < n and body[i].isdigit():
            d = int(body[i])
            if exp >= _I32_MAX_DIV10 and (exp > _I32_MAX_DIV10 or d > _I32_MAX_MOD10):
                # serde gives 0 or an error for such exponents; JSON from Python never has them.
                if significand == 0 or not exp_positive:
                    return 0.0 if positive else -0.0
                raise SerdeRangeError("number out of range")
            exp = exp * 10 + d
            i += 1
        exponent = exponent + exp if exp_positive else exponent - exp
    if not is_float:
        if positive:
            return significand
        return -significand if significand <= 2**63 and significand != 0 else -float(significand)
    return _f64_from_parts(positive, significand, exponent)


def _number(value: int | float) -> str:
    parsed = serde_parse_number(json.dumps(value))
    if isinstance(parsed, int):
        return str(parsed)
    return _ryu(parsed)


def serde_display(value: Any) -> str:
    """``value`` printed as serde_json's ``Display`` prints a ``serde_json::Value``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        # Python escapes exactly like serde_json once non-ASCII is allowed through.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(serde_display(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{serde_display(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not a JSON value")
