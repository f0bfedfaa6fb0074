"""A config's validation errors in our words: the first bad field, named as a dotted path, in one line.

pydantic reports every error with its own wording and with locations that include the union branch it
tried (``('seed', 'str')``). A requester needs one line: the field as it appears in the request
(``config.depths.1``) and what is wrong with it, in the terms of the JSON Schema the request was written
against (``must be of type integer or null, got 'all'``, ``0 is less than the minimum of 1``,
``unknown key 'timeout' (allowed: ...)``). Which error is "first": an unknown key before any value,
then fields in name order; within a field, the deepest place (an item of an array: pydantic also
counts an array of bad items as empty), and there a broken rule (a bound, a length, a repeat) before a
type mismatch of some other union branch.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic_core import ErrorDetails

MESSAGE_LIMIT = 200
"""Characters of a message kept (it quotes the offending value, which may be huge)."""
KEY_LIMIT = 60
"""Characters of each key kept in a field's dotted name (a request's unknown key may be huge)."""
MISMATCH = frozenset(
    {
        "int_type",
        "float_type",
        "string_type",
        "bool_type",
        "tuple_type",
        "list_type",
        "dict_type",
        "model_type",
        "none_required",
        "literal_error",
        "enum",
    }
)
"""pydantic error types that mean "not a value of this type" (rather than a broken rule)."""
BOUNDS = {
    "greater_than_equal": ("ge", "is less than the minimum of"),
    "greater_than": ("gt", "is less than or equal to the minimum of"),
    "less_than_equal": ("le", "is greater than the maximum of"),
    "less_than": ("lt", "is greater than or equal to the maximum of"),
}

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 80
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = 6
Place = tuple[str | int, ...]
"""Where in the config a value sits: keys and array indexes."""


def describe(
    errors: Sequence[ErrorDetails], raw: Mapping[str, Any], schema: Mapping[str, Any]
) -> tuple[str, str]:
    """``(dotted field, one-line reason)`` of the first of ``errors`` (non-empty) found in ``raw``."""
    located = sorted(
        ((_place(error["loc"], raw), error) for error in errors),
        key=lambda pe: (pe[1]["type"] != "extra_forbidden", [str(p) for p in pe[0][:1]]),
    )
    top = located[0][0][:1]
    same_field = [pe for pe in located if pe[0][:1] == top]
    deepest = max(len(path) for path, _ in same_field)
    here = [pe for pe in same_field if len(pe[0]) == deepest]
    path, error = next((pe for pe in here if pe[1]["type"] not in MISMATCH), here[0])
    value = _value_at(raw, path)
    if error["type"] in MISMATCH:
        reason = _mismatch(_subschema(schema, path), value) or error["msg"]
    else:
        reason = _broken_rule(error, path, value, schema)
    field = ".".join(["config", *(str(part)[:KEY_LIMIT] for part in path)])
    if error["type"] == "extra_forbidden":
        return field, reason  # the key is quoted bounded; the allowed list is ours, kept whole
    return field, _one_line(reason)


def _broken_rule(error: ErrorDetails, path: Place, value: Any, schema: Mapping[str, Any]) -> str:
    kind, ctx, shown = error["type"], error.get("ctx", {}), _SHOWN.repr(value)
    if kind == "extra_forbidden":
        allowed = ", ".join(sorted(_subschema(schema, path[:-1]).get("properties", {})))
        return f"unknown key {_SHOWN.repr(path[-1])} (allowed: {allowed})"
    if kind in BOUNDS:
        key, words = BOUNDS[kind]
        return f"{shown} {words} {_number(ctx[key])}"
    if kind in ("too_short", "string_too_short"):
        least = ctx["min_length"]
        return f"{shown} should be non-empty" if least == 1 else f"{shown} is shorter than {least}"
    if kind in ("too_long", "string_too_long"):
        return f"{shown} is longer than {ctx['max_length']}"
    if kind == "finite_number":
        return f"must be a finite number, got {shown}"
    if kind == "non_unique":
        return f"{shown} has non-unique elements"
    return str(error["msg"])


def _mismatch(schema: Mapping[str, Any], value: Any) -> str | None:
    """Why ``value`` is none of the types (or constants) ``schema`` allows; None if it says nothing."""
    branches = schema.get("anyOf", [schema])
    shown = _SHOWN.repr(value)
    if not any("const" in b or "enum" in b for b in branches):
        types = [t for b in branches for t in _types(b)]
        return f"must be of type {' or '.join(types)}, got {shown}" if types else None
    reasons = []
    for branch in branches:
        if "const" in branch:
            reasons.append(f"{branch['const']!r} was expected")
        elif "enum" in branch:
            reasons.append(f"must be one of {', '.join(map(repr, branch['enum']))}, got {shown}")
        else:
            reasons.append(f"{shown} is not of type {' or '.join(map(repr, _types(branch)))}")
    return "; ".join(reasons)


def _place(loc: tuple[str | int, ...], raw: Mapping[str, Any]) -> Place:
    """The part of ``loc`` that is a place in the value (pydantic adds the union branch it tried)."""
    path: list[str | int] = []
    node: Any = raw
    for part in loc:
        if _holds(node, part):  # otherwise a union branch's tag, not a place in the value
            node = node[part]
            path.append(part)
    return tuple(path)


def _holds(node: Any, part: str | int) -> bool:
    if isinstance(node, Mapping):
        return part in node
    return isinstance(node, (list, tuple)) and isinstance(part, int) and 0 <= part < len(node)


def _value_at(raw: Mapping[str, Any], path: Place) -> Any:
    node: Any = raw
    for part in path:
        node = node[part]
    return node


def _subschema(root: Mapping[str, Any], path: Place) -> Mapping[str, Any]:
    """The part of the JSON Schema ``root`` that describes the value at ``path`` ({} if none does)."""
    node = _resolve(root, root)
    for part in path:
        branches = [_resolve(root, b) for b in node.get("anyOf", [node])]
        if isinstance(part, str):
            found = [b["properties"][part] for b in branches if part in b.get("properties", {})]
        else:
            found = [b["items"] for b in branches if "items" in b]
        if not found:
            return {}
        node = _resolve(root, found[0])
    return node


def _resolve(root: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved: Mapping[str, Any] = root.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
        return resolved
    return node


def _types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type", [])
    return [declared] if isinstance(declared, str) else list(declared)


def _number(bound: Any) -> Any:
    return int(bound) if isinstance(bound, float) and bound.is_integer() else bound


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"
