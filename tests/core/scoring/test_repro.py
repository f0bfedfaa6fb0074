"""reproducibility_block: versions, timestamps, redaction, card digests."""

from __future__ import annotations

from datetime import datetime, timezone
from importlib import metadata

import pytest

from green_agent.core.scoring.repro import package_version, reproducibility_block


def test_block_contents() -> None:
    card = {"name": "cot", "version": "2.0", "url": "http://127.0.0.1:9019/", "skills": [{"id": "x"}]}
    block = reproducibility_block(
        dataset={"name": "folio-sample", "sha256": "ab" * 32, "n": 20},
        config={"limit": 20, "llm": {"api_key": "sk-123", "model": "m"}, "token": ""},
        seed=7,
        started_at=datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc),
        finished_at=1735733100.0,  # 2025-01-01T12:05:00Z
        participants_cards={"cot": card},
    )
    assert block["package"] == "agentified-assessment" and block["version"] == package_version()
    assert block["started_at"] == "2025-01-01T12:00:00Z" and block["finished_at"] == "2025-01-01T12:05:00Z"
    assert block["duration_s"] == 300.0 and block["seed"] == 7
    assert block["config"] == {"limit": 20, "llm": {"api_key": "***", "model": "m"}, "token": ""}
    cot = block["participants"]["cot"]
    assert cot["name"] == "cot" and cot["version"] == "2.0" and len(cot["card_sha256"]) == 64
    assert "skills" not in cot


def test_version_fallback_for_unknown_distribution() -> None:
    assert package_version("surely-not-an-installed-distribution") is None


def test_versions_are_read_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda dist: calls.append(dist) or real(dist))
    package_version.cache_clear()
    try:
        versions = [package_version("jsonschema") for _ in range(3)]
    finally:
        package_version.cache_clear()
    assert calls == ["jsonschema"] and versions == [real("jsonschema")] * 3
