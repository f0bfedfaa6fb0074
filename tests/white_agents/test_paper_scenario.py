"""scenarios/folio/paper.toml: loads, its config validates, its agent commands start with the paper's
model unless LLM_MODEL overrides it."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.harness.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "scenarios" / "folio" / "paper.toml"


def _started(monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]) -> dict[str, Any]:
    """Run an agent's ``main`` with serving stubbed out; return what it would have served."""
    import white_agents.common.server as server

    seen: dict[str, Any] = {}
    real_settings = server.settings_from_args

    def capture(args: Any) -> Any:
        seen["settings"] = real_settings(args)
        seen["args"] = args
        return seen["settings"]

    monkeypatch.setattr(server, "settings_from_args", capture)
    monkeypatch.setattr(server, "start_litellm_import", threading.Event)
    monkeypatch.setattr(server, "missing_credentials", lambda settings: None)  # no keys here
    monkeypatch.setattr(server, "serve_command", lambda app, **kw: seen.update(app=app, **kw) or 0)
    module = __import__(f"{argv[2]}.__main__", fromlist=["main"])
    assert module.main(list(argv[3:])) == 0
    return seen


def test_paper_scenario_loads_and_config_validates() -> None:
    scenario = load_scenario(PAPER)
    assert [p.role for p in scenario.participants] == ["cot", "autoformalizer"]
    assert scenario.config["dataset"] == "folio-cleaned-validation"
    schema = json.loads(
        (ROOT / "green_agent" / "folio" / "schemas" / "folio-config.schema.json").read_text(encoding="utf-8")
    )
    jsonschema.validate(scenario.config, schema)


@pytest.mark.parametrize("role", ["cot", "autoformalizer"])
def test_paper_agents_default_to_gemini_and_llm_model_overrides(
    monkeypatch: pytest.MonkeyPatch, role: str
) -> None:
    spec = next(p for p in load_scenario(PAPER).participants if p.role == role)
    monkeypatch.delenv("LLM_MODEL", raising=False)
    seen = _started(monkeypatch, spec.argv)
    assert seen["settings"].model == "gemini/gemini-2.5-flash"
    assert seen["port"] == int(spec.endpoint.rsplit(":", 1)[1])
    monkeypatch.setenv("LLM_MODEL", "openai/other")
    assert _started(monkeypatch, spec.argv)["settings"].model == "openai/other"
