"""Scenario validation: every bad file is one line on stderr, exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from green_agent.harness.scenario import ScenarioError, load_scenario
from tests.harness.conftest import REPO, run_harness

GOOD = """
[green_agent]
endpoint = "http://127.0.0.1:9009"
cmd = "python -m green_agent --port 9009"
[[participants]]
role = "a"
endpoint = "http://127.0.0.1:9019/agent"
cmd = "python -m white_agents.reference --port 9019"
agentbeats_id = "0193-abc"
[[participants]]
role = "b"
endpoint = "https://agents.example.org/b"
[config]
dataset = "folio-sample"
limit = 3
nested = { x = [1, 2.5, "s"] }
"""

GREEN = '[green_agent]\nendpoint = "http://127.0.0.1:9009"\n'
ONE = '[[participants]]\nrole = "a"\nendpoint = "http://127.0.0.1:9019"\n'

BAD: dict[str, tuple[str, str]] = {
    "toml_syntax": (GREEN + 'endpoint = "x"\n[[participants]\n', "invalid TOML"),
    "toml_line": ('[green_agent]\nendpoint = "http://127.0.0.1:9009"\ncmd = python\n', "line 3"),
    "no_green": (ONE, "missing required key 'green_agent'"),
    "no_participants": (GREEN, "missing required key 'participants'"),
    "extra_top": (GREEN + ONE + "[extra]\nx = 1\n", "unknown key 'extra'"),
    "green_not_table": ('green_agent = "x"\n' + ONE, "green_agent: expected a table, got string"),
    "green_extra": (GREEN + 'role = "g"\n' + ONE, "green_agent: unknown key 'role'"),
    "green_no_endpoint": ('[green_agent]\ncmd = "x"\n' + ONE, "green_agent: missing required key 'endpoint'"),
    "participant_no_role": (
        GREEN + '[[participants]]\nendpoint = "http://127.0.0.1:1"\n',
        "participants[0]: missing required key 'role'",
    ),
    "participant_extra": (GREEN + ONE + 'cmdd = "x"\n', "participants[0]: unknown key 'cmdd'"),
    "endpoint_type": (
        GREEN + '[[participants]]\nrole = "a"\nendpoint = 9019\n',
        "participants[0].endpoint: expected a string, got integer",
    ),
    "endpoint_scheme": (GREEN + '[[participants]]\nrole = "a"\nendpoint = "127.0.0.1:9019"\n', "http(s) URL"),
    "endpoint_port": (
        GREEN + '[[participants]]\nrole = "a"\nendpoint = "http://127.0.0.1:99999"\n',
        "bad port",
    ),
    "role_empty": (
        GREEN + '[[participants]]\nrole = ""\nendpoint = "http://127.0.0.1:1"\n',
        "participants[0].role: must not be empty",
    ),
    "duplicate_role": (GREEN + ONE + ONE.replace("9019", "9020"), "participants[1].role: duplicate role 'a'"),
    "participants_empty": ("participants = []\n" + GREEN, "at least one"),
    "participants_not_tables": ("participants = [1]\n" + GREEN, "participants: expected one or more"),
    "cmd_type": (GREEN + 'cmd = ["python"]\n' + ONE, "green_agent.cmd: expected a string, got array"),
    "cmd_quote": (GREEN + 'cmd = "python -c \'oops"\n' + ONE, "green_agent.cmd: cannot split command"),
    "config_type": ("config = 3\n" + GREEN + ONE, "config: expected a table, got integer"),
    "config_date": (GREEN + ONE + "[config]\nwhen = 2024-01-01\n", "config.when: dates and times"),
    "agentbeats_id_type": (
        GREEN + ONE + "agentbeats_id = 7\n",
        "participants[0].agentbeats_id: expected a string",
    ),
    "same_port": (
        GREEN + 'cmd = "python -m x"\n' + ONE.replace("9019", "9009") + 'cmd = "python -m y"\n',
        "participant 'a': port 9009 is also used by green_agent",
    ),
}


def test_good_scenario_is_parsed_into_frozen_specs(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(GOOD)
    scenario = load_scenario(path)
    assert scenario.green.argv == ("python", "-m", "green_agent", "--port", "9009")
    a, b = scenario.participants
    assert (a.role, a.agentbeats_id, a.port, a.is_local) == ("a", "0193-abc", 9019, True)
    assert a.card_url == "http://127.0.0.1:9019/agent/.well-known/agent-card.json"
    assert (b.argv, b.agentbeats_id, b.port, b.is_local) == (None, None, 443, False)
    assert scenario.request() == {
        "participants": {"a": "http://127.0.0.1:9019/agent", "b": "https://agents.example.org/b"},
        "config": {"dataset": "folio-sample", "limit": 3, "nested": {"x": [1, 2.5, "s"]}},
    }
    with pytest.raises(AttributeError):
        a.role = "c"  # type: ignore[misc]


def test_default_scenario_file_is_valid() -> None:
    scenario = load_scenario(REPO / "scenario.toml")
    assert scenario.config.get("dataset") == "folio-sample"
    assert all(agent.argv for agent in scenario.agents)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scenario_is_one_line_exit_2(case: str, tmp_path: Path) -> None:
    text, expected = BAD[case]
    path = tmp_path / f"{case}.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "case", ["toml_line", "duplicate_role", "endpoint_scheme", "config_date", "missing", "directory"]
)
def test_cli_reports_bad_scenario_in_one_line(case: str, tmp_path: Path) -> None:
    if case == "missing":
        path, expected = tmp_path / "nope.toml", "no such file"
    elif case == "directory":
        path, expected = tmp_path, "is a directory"
    else:
        path = tmp_path / "bad.toml"
        path.write_text(BAD[case][0])
        expected = BAD[case][1]
    proc = run_harness(tmp_path, "run", str(path))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"agentbeats: error: {path}: ")
    assert expected in lines[0]
    assert proc.stdout == ""


def test_cli_rejects_bad_flags(tmp_path: Path) -> None:
    proc = run_harness(tmp_path, "run", "scenario.toml", "--timeout-card", "0")
    assert proc.returncode == 2
    assert "must be > 0" in proc.stderr
    assert "Traceback" not in proc.stderr
