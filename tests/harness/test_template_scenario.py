"""The AgentBeats leaderboard template's scenario.toml keys (`name`, `env` per agent) are accepted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from green_agent.harness.processes import Supervisor
from green_agent.harness.scenario import Scenario, ScenarioError, load_scenario

# The template repository's scenario.toml, with the endpoint and cmd a local run needs added.
TEMPLATE_WITH_ENDPOINTS = """
[green_agent]
agentbeats_id = "019bb980-5383-7131-9b41-e867b16ed71f"
endpoint = "http://127.0.0.1:9009"
cmd = "python -m green_agent --port 9009"
env = {}

[[participants]]
agentbeats_id = "019bb9c9-b3d6-73f0-a5b1-fe92b58db7f0"
name = "solver"
endpoint = "http://127.0.0.1:9019"
cmd = "python -m white_agents.cot --port 9019"
env = { OPENAI_API_KEY = "${OPENAI_API_KEY}", MODE = "plain-${OPENAI_API_KEY}-x" }

[config]
# Add your assessment config here
"""


def _load(tmp_path: Path, text: str) -> Scenario:
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    return load_scenario(path)


def test_template_keys_are_accepted_and_env_is_filled_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    scenario = _load(tmp_path, TEMPLATE_WITH_ENDPOINTS)
    (solver,) = scenario.participants
    assert solver.role == "solver"  # the template's workflow uses `name` as the role
    assert solver.env == {"OPENAI_API_KEY": "sk-test", "MODE": "plain-sk-test-x"}
    assert "sk-test" not in repr(solver)  # a spec in a log line never carries the key
    assert scenario.green.env == {}
    assert scenario.request() == {
        "participants": {"solver": "http://127.0.0.1:9019"},
        "config": {},
    }


def test_the_template_file_verbatim_says_what_a_local_run_needs(tmp_path: Path) -> None:
    verbatim = """[green_agent]\nagentbeats_id = "019bb980"\nenv = {}\n\n[[participants]]\n
agentbeats_id = "019bb9c9"\nname = "solver"\nenv = { OPENAI_API_KEY = "${OPENAI_API_KEY}" }\n\n[config]\n"""
    with pytest.raises(ScenarioError, match=r"green_agent: missing required key 'endpoint'.*add endpoint"):
        _load(tmp_path, verbatim)


BAD_ENV = {
    "unset": ('env = { K = "${NOT_SET_ANYWHERE}" }', "participants[0].env.K: ${NOT_SET_ANYWHERE} is not set"),
    "not_table": ('env = "K=1"', "participants[0].env: expected a table, got string"),
    "bad_name": ('env = { "K-1" = "x" }', "participants[0].env: 'K-1' is not an environment variable name"),
    "not_string": ("env = { K = 1 }", "participants[0].env.K: expected a string, got integer"),
    "bad_reference": ('env = { K = "${a b}" }', "participants[0].env.K: ${a b} is not a variable reference"),
    "name_and_role_differ": ('name = "other"', "participants[0].name: 'other' differs from role 'a'"),
    "name_with_space": (None, "participants[0].name: must not contain whitespace"),
}


@pytest.mark.parametrize("case", sorted(BAD_ENV))
def test_bad_template_keys_are_one_line(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    extra, expected = BAD_ENV[case]
    head = '[green_agent]\nendpoint = "http://127.0.0.1:9009"\n[[participants]]\n'
    if extra is None:
        body = 'name = "Dairy paper extractor"\nendpoint = "http://127.0.0.1:9019"\ncmd = "x"\n'
    else:
        body = f'role = "a"\nendpoint = "http://127.0.0.1:9019"\ncmd = "x"\n{extra}\n'
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, head + body)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_env_of_an_agent_the_harness_does_not_start_is_not_filled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UNSET_HERE", raising=False)
    """A remote agent's references name the platform's secrets: no error when unset here."""
    text = """[green_agent]\nendpoint = "http://127.0.0.1:9009"\n[[participants]]\nname = "a"
endpoint = "https://agents.example.org/a"\nenv = { K = "${UNSET_HERE}" }\n"""
    scenario = _load(tmp_path, text)
    assert scenario.participants[0].env == {}


def test_env_reaches_the_started_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_VAR", "v1")
    """The harness starts `cmd` with the agent's env on top of its own (fails if Supervisor drops spec.env)."""
    out = tmp_path / "seen.txt"
    script = f"import os; open({str(out)!r}, 'w').write(os.environ['SCENARIO_SECRET'])"
    text = f"""[green_agent]\nendpoint = "http://127.0.0.1:9009"\n[[participants]]\nname = "a"
endpoint = "http://127.0.0.1:9019"\ncmd = {json.dumps(f"{sys.executable} -c {script!r}")}
env = {{ SCENARIO_SECRET = "${{SOURCE_VAR}}" }}\n"""
    scenario = _load(tmp_path, text)
    supervisor = Supervisor(tmp_path)
    proc = supervisor.start(scenario.participants[0])
    try:
        assert proc.popen.wait(timeout=60) == 0, proc.log_path.read_text()
    finally:
        supervisor.stop_all()
    assert out.read_text() == "v1"
