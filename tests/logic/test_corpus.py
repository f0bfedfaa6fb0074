"""Whole-corpus checks over FOLIO v1 and v2 (data used by path, skipped when absent)."""

from __future__ import annotations

from green_agent.logic import FolSyntaxError, parse, pretty


def test_lenient_parse_rate_and_round_trip(folio_formulas):
    parsed = failed = 0
    for text in folio_formulas:
        try:
            result = parse(text, lenient=True)
        except FolSyntaxError:
            failed += 1
            continue
        parsed += 1
        printed = pretty(result.formula)
        assert parse(printed).formula == result.formula, (text, printed)
    assert parsed / (parsed + failed) >= 0.99


def test_strict_round_trip(folio_formulas):
    for text in folio_formulas:
        try:
            formula = parse(text).formula
        except FolSyntaxError:
            continue
        assert parse(pretty(formula)).formula == formula, text
