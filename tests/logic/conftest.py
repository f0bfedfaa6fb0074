"""Shared fixtures: FOLIO data by path (never copied into the repository)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.paths import SHARED_DATA

DATA_DIR = Path(os.environ.get("FOLIO_DATA", SHARED_DATA / "folio"))
FILES = ("folio-train.jsonl", "folio-validation.jsonl", "folio_v2_train.jsonl", "folio_v2_validation.jsonl")


def _lines(value: object) -> list[str]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else str(value).split("\n")


@pytest.fixture(scope="session")
def folio_records() -> dict[str, list[dict]]:
    """Records of every FOLIO jsonl file, keyed by file name; skips when the data is absent."""
    missing = [f for f in FILES if not (DATA_DIR / f).is_file()]
    if missing:
        pytest.skip(f"FOLIO data not found in {DATA_DIR} (missing {', '.join(missing)}); set FOLIO_DATA")
    return {
        f: [json.loads(x) for x in (DATA_DIR / f).read_text(encoding="utf-8").splitlines() if x.strip()]
        for f in FILES
    }


@pytest.fixture(scope="session")
def folio_formulas(folio_records: dict[str, list[dict]]) -> list[str]:
    """Every distinct premise/conclusion FOL string of FOLIO v1 and v2."""
    out: set[str] = set()
    for records in folio_records.values():
        for r in records:
            out.update(_lines(r.get("premises-FOL")) + _lines(r.get("conclusion-FOL")))
    return sorted(out)
