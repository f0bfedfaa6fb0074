"""Each plugin's config model is the one source: the shipped JSON Schema is generated from it and says
what it enforces, and the edge cases a JSON Schema got right stay right (bools, NaN, ints, bounds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.anomaly.config import SCHEMA_NAME as ANOMALY
from green_agent.anomaly.config import AnomalyConfig
from green_agent.anomaly.config import parse_config as parse_anomaly
from green_agent.core.config import ConfigModel, schema_command, schema_text
from green_agent.core.contract import RequestError
from green_agent.folio.config import SCHEMA_NAME as FOLIO
from green_agent.folio.config import FolioConfig
from green_agent.folio.config import parse_config as parse_folio
from green_agent.generated.config import SCHEMA_NAME as GENERATED
from green_agent.generated.config import GeneratedConfig
from green_agent.generated.config import parse_config as parse_generated
from tests.core.test_config_schema import BAD
from tests.support.schemas import shipped_schema as load_schema
from tests.support.schemas import shipped_schema_path

MODELS = [(FOLIO, FolioConfig), (ANOMALY, AnomalyConfig), (GENERATED, GeneratedConfig)]
MODEL_OF = {parse_folio: FolioConfig, parse_anomaly: AnomalyConfig, parse_generated: GeneratedConfig}
EDGES = [
    (parse_folio, {"limit": True}, "config.limit", "must be of type integer or null, got True"),
    (parse_folio, {"timeout_s": True}, "config.timeout_s", "must be of type number, got True"),
    (parse_folio, {"max_retries": "2"}, "config.max_retries", "must be of type integer, got '2'"),
    (parse_folio, {"timeout_s": float("nan")}, "config.timeout_s", "must be a finite number, got nan"),
    (parse_folio, {"deadline_s": float("inf")}, "config.deadline_s", "must be a finite number, got inf"),
    (parse_anomaly, {"episode_deadline_s": float("-inf")}, "config.episode_deadline_s", "finite"),
    (parse_folio, {"timeout_s": 86401}, "config.timeout_s", "86401 is greater than the maximum of 86400"),
    (parse_folio, {"limit": 0.0}, "config.limit", "0 is less than the minimum of 1"),
    (parse_folio, {"variants": ["negate", "negate"]}, "config.variants", "has non-unique elements"),
    (parse_anomaly, {"documents": ["a", 5]}, "config.documents.1", "must be of type string, got 5"),
    (parse_anomaly, {"documents": ["a", ""]}, "config.documents.1", "'' should be non-empty"),
    (parse_anomaly, {"types": [["negation"]]}, "config.types.0", "got ['negation']"),
    (parse_anomaly, {"max_steps": 0, "bogus": 1}, "config.bogus", "unknown key 'bogus'"),
    (parse_anomaly, {"max_steps": 0, "feedback": "rude"}, "config.feedback", "got 'rude'"),
    (parse_generated, {"depth": 13}, "config.depth", "13 is greater than the maximum of 12"),
    (parse_generated, {"depth": [1, 2, 40]}, "config.depth.2", "40 is greater than the maximum of 12"),
    (parse_generated, {"labels": ["True", "True"]}, "config.labels", "has non-unique elements"),
    (parse_generated, {"seed": True}, "config.seed", "got True"),
    (parse_generated, {"vocabulary": "klingon"}, "config.vocabulary", "got 'klingon'"),
    (parse_generated, {"generation_budget_s": 601}, "config.generation_budget_s", "maximum of 600"),
]
"""Cases the old hand-written schema never listed in a test; the last three pin which error comes first
(pydantic also calls an array of bad items too short: the item's error is the one named)."""


@pytest.mark.parametrize(("name", "model"), MODELS)
def test_the_shipped_schema_is_generated_from_the_model(name: str, model: type[ConfigModel]) -> None:
    """Fails when a model changes without ``python -m green_agent.<plugin>.config --write`` (checked by
    hand: a changed default fails here until the file is regenerated)."""
    assert load_schema(name) == model.model_json_schema()
    path = shipped_schema_path(name)
    assert path.read_text(encoding="utf-8") == schema_text(model)
    jsonschema.Draft202012Validator.check_schema(load_schema(name))


@pytest.mark.parametrize(("parse", "config", "field", "words"), BAD + EDGES)
def test_the_shipped_schema_refuses_what_the_model_refuses(
    parse: Any, config: dict[str, Any], field: str, words: str
) -> None:
    """A reader validating with the JSON file alone gets the model's verdict. pydantic writes a bound it
    cannot place as its own keyword (``"gt": 0``, which JSON Schema ignores); checked by hand: declaring
    ``deadline_s`` as ``Number | None = Field(None, gt=0)`` makes ``{"deadline_s": 0}`` pass the file."""
    with pytest.raises(RequestError):
        parse(config)
    if field == "config.shard_index" and "num_shards" in config:
        return  # the one cross-field rule; a JSON Schema cannot say it
    if "finite" in words:
        return  # NaN and infinities are not JSON (the green agent refuses them in the request's text)
    validator = jsonschema.Draft202012Validator(MODEL_OF[parse].model_json_schema())  # = the file (above)
    assert not validator.is_valid(config)


@pytest.mark.parametrize(("parse", "config", "field", "words"), EDGES)
def test_edge_cases_name_the_field(parse: Any, config: dict[str, Any], field: str, words: str) -> None:
    """Checked by hand: with ``allow_inf_nan`` on, NaN reads as a bound and inf is accepted."""
    with pytest.raises(RequestError) as info:
        parse(config)
    assert (info.value.field, "\n" in str(info.value)) == (field, False)
    assert words in info.value.message


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"timeout_s": 60, "deadline_s": 5, "limit": 3.0, "seed": "s", "variants": ["negate", "original"]},
        {
            "timeout_s": 0.5,
            "deadline_s": 2.5,
            "split": "validation",
            "num_instances": None,
            "expose_fol": True,
        },
    ],
)
def test_a_good_config_passes_both_and_keeps_its_numbers(config: dict[str, Any]) -> None:
    """A number key keeps an int as an int: the config is recorded in results and hashed into the journal
    id exactly as sent (checked by hand: without ``KEEP_INT``, 60 becomes 60.0)."""
    jsonschema.validate(config, load_schema(FOLIO))
    values = parse_folio(config).as_dict()
    for key in ("timeout_s", "deadline_s"):
        if key in config:
            assert (values[key], type(values[key])) == (config[key], type(config[key]))
    assert json.dumps(values["timeout_s"]) == json.dumps(config.get("timeout_s", 120))


def test_the_regenerate_command_writes_what_the_test_expects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / f"{ANOMALY}.schema.json"
    assert schema_command(AnomalyConfig, target, ["--write"]) == 0
    assert target.read_text(encoding="utf-8") == schema_text(AnomalyConfig)
    assert schema_command(AnomalyConfig, target, ["--bogus"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_the_command_runs_as_documented() -> None:
    """``python -m green_agent.folio.config`` prints the shipped file (a fresh interpreter, as a user runs it)."""
    out = subprocess.run(
        [sys.executable, "-m", "green_agent.folio.config"], capture_output=True, text=True, check=True
    )
    assert out.stdout == schema_text(FolioConfig) and out.stderr == ""


@pytest.mark.parametrize(
    ("parse", "model"),
    [(parse_folio, FolioConfig), (parse_anomaly, AnomalyConfig), (parse_generated, GeneratedConfig)],
)
def test_an_unknown_key_lists_every_allowed_key_and_a_huge_one_stays_bounded(
    parse: Any, model: type[ConfigModel]
) -> None:
    """The allowed list is ours, so it is never cut; the key is the requester's, so it is (checked by
    hand: with the message bound applied to the whole line, the anomaly list lost its last eight keys)."""
    with pytest.raises(RequestError) as info:
        parse({"bogus": 1})
    assert info.value.message.endswith(f"(allowed: {', '.join(sorted(model.model_fields))})")
    with pytest.raises(RequestError) as info:
        parse({"k" * 100_000: 1})
    assert len(str(info.value)) < 700 and "\n" not in str(info.value)
    assert info.value.field.startswith("config.kkk") and "unknown key 'kkk" in info.value.message
