"""The scenario file's pydantic model and the JSON Schema generated from it: shipped, current, and faithful."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from green_agent.core.schemas import load_schema
from green_agent.harness.scenario import ScenarioError, load_scenario
from green_agent.harness.scenario_file import SCHEMA_FILE, ScenarioFile
from green_agent.kit.schema_files import schema_text
from tests.harness.conftest import REPO
from tests.harness.test_scenario import BAD, GOOD, GREEN, ONE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SHIPPED = sorted(
    path
    for path in [REPO / "scenario.toml", *REPO.glob("scenarios/**/*.toml"), *REPO.glob("examples/*.toml")]
    if "[green_agent]" in path.read_text(encoding="utf-8")
)
STRUCTURAL = [
    "no_green",
    "no_participants",
    "extra_top",
    "green_not_table",
    "green_extra",
    "green_no_endpoint",
    "participant_no_role",
    "participant_extra",
    "endpoint_type",
    "endpoint_scheme",
    "role_empty",
    "participants_empty",
    "participants_not_tables",
    "cmd_type",
    "config_type",
    "agentbeats_id_type",
]
"""Cases of tests/harness/test_scenario.py a JSON Schema can state (a key, a type, a shape, a pattern)."""


def schema() -> dict:
    return load_schema("green_agent.harness", "scenario")


def test_the_shipped_schema_is_generated_from_the_model() -> None:
    assert schema() == ScenarioFile.model_json_schema()
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(ScenarioFile.model_json_schema())
    jsonschema.Draft202012Validator.check_schema(schema())


def test_the_module_prints_the_schema_and_refuses_other_arguments() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "green_agent.harness.scenario_file", *args]
        return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)

    printed = run()
    assert printed.returncode == 0 and printed.stdout == SCHEMA_FILE.read_text(encoding="utf-8")
    refused = run("--bogus")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        "usage: python -m green_agent.harness.scenario_file [--write]  (rewrites scenario.schema.json)\n"
    )


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(REPO)) for p in SHIPPED])
def test_every_shipped_scenario_validates_against_the_schema(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema()).validate(data)
    ScenarioFile.model_validate(data)


def test_shipped_scenarios_are_found() -> None:
    assert {"scenario.toml", "scenarios/folio/paper.toml", "scenarios/anomaly/scenario.toml"} <= {
        str(p.relative_to(REPO)) for p in SHIPPED
    }


def test_a_good_file_is_accepted_by_both() -> None:
    data = tomllib.loads(GOOD)
    jsonschema.Draft202012Validator(schema()).validate(data)
    assert ScenarioFile.model_validate(data).participants[0].seat == "a"


@pytest.mark.parametrize("case", STRUCTURAL)
def test_the_schema_refuses_what_the_model_refuses(case: str) -> None:
    data = tomllib.loads(BAD[case][0])
    assert not jsonschema.Draft202012Validator(schema()).is_valid(data)


def test_a_participant_named_by_the_template_key_is_valid_in_the_schema() -> None:
    data = tomllib.loads(GREEN + '[[participants]]\nname = "a"\nendpoint = "http://127.0.0.1:1"\n')
    jsonschema.Draft202012Validator(schema()).validate(data)
    bad_env = tomllib.loads(GREEN + ONE + 'env = { "K-1" = "x" }\n')
    assert not jsonschema.Draft202012Validator(schema()).is_valid(bad_env)


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    return str(info.value)


def test_an_unknown_key_is_reported_before_a_missing_key_and_any_value(tmp_path: Path) -> None:
    text = '[green_agent]\ncmd = 3\n[[participants]]\nrole = "a"\nendpoint = "http://h:1"\nbar = 2\n'
    assert _error(tmp_path, text).startswith("participants[0]: unknown key 'bar' (allowed: ")
    assert _error(tmp_path, text.replace("bar = 2\n", "")).startswith(
        "green_agent: missing required key 'endpoint'"
    )


def test_the_files_text_is_never_read_as_a_message_template(tmp_path: Path) -> None:
    twice = ONE.replace('"a"', '"{where}"')
    message = _error(tmp_path, GREEN + twice + twice.replace("9019", "9020"))
    assert message == "participants[1].role: duplicate role '{where}'"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('""', "green_agent.cmd: must not be empty"),
        ('"   "', "green_agent.cmd: must not be empty"),
        ('"a \'b"', "green_agent.cmd: cannot split command (No closing quotation)"),
    ],
)
def test_a_command_is_checked_like_before(tmp_path: Path, value: str, expected: str) -> None:
    assert _error(tmp_path, GREEN + f"cmd = {value}\n" + ONE) == expected


def test_nested_config_values_name_their_place(tmp_path: Path) -> None:
    message = _error(tmp_path, GREEN + ONE + "[config]\nx = { y = [1, nan] }\n")
    assert message == "config.x.y[1]: nan and inf cannot be sent as JSON"
