"""Config validation: defaults from the schema, and every error names its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from green_agent.core.contract import RequestError
from green_agent.folio.config import FolioConfig, parse_config
from tests.support.schemas import shipped_schema as load_schema


def test_defaults_come_from_the_schema() -> None:
    config = parse_config({})
    assert (config.dataset, config.timeout_s, config.max_retries, config.concurrency) == (
        "folio-sample",
        120,
        2,
        8,
    )
    assert (config.max_response_bytes, config.expose_fol, config.num_shards) == (1 << 20, False, 1)
    budget = config.budget()
    assert (budget.timeout_s, budget.max_retries, budget.max_response_bytes) == (120, 2, 1 << 20)


def test_schema_keys_match_the_dataclass() -> None:
    assert set(load_schema("folio-config")["properties"]) == set(FolioConfig.model_fields)
    assert load_schema("folio-config")["additionalProperties"] is False


def test_integral_floats_become_ints() -> None:
    config = parse_config({"limit": 5.0, "concurrency": 4.0, "seed": 7})
    assert config.limit == 5 and isinstance(config.limit, int) and config.concurrency == 4


@pytest.mark.parametrize(
    ("config", "field", "words"),
    [
        ({"timeout_s": -1}, "config.timeout_s", "minimum"),
        ({"timeout_s": "fast"}, "config.timeout_s", "type number"),
        ({"max_retries": 1.5}, "config.max_retries", "type integer"),
        ({"concurrency": 0}, "config.concurrency", "minimum"),
        ({"limit": "all"}, "config.limit", "type integer or null"),
        ({"expose_fol": "yes"}, "config.expose_fol", "type boolean"),
        ({"max_response_bytes": 10}, "config.max_response_bytes", "minimum"),
        ({"dataset": ""}, "config.dataset", "non-empty"),
        ({"timeout": 5}, "config.timeout", "unknown key 'timeout'"),
        ({"shard_index": 3, "num_shards": 3}, "config.shard_index", "smaller than num_shards"),
        ({"num_shards": 0}, "config.num_shards", "minimum"),
    ],
)
def test_errors_name_the_field(config: dict, field: str, words: str) -> None:
    with pytest.raises(RequestError) as info:
        parse_config(config)
    assert info.value.field == field
    assert words in info.value.message
    assert str(info.value).startswith(field + ":")


def test_manifest_only_refuses_host_paths(tmp_path) -> None:
    from green_agent.core.contract import AssessmentRequest
    from green_agent.folio.assessor import FolioPlugin

    guarded = FolioPlugin(tmp_path, manifest_only=True)
    people = {"p": "http://127.0.0.1:1/"}
    sample = Path(__file__).parents[2] / "scenarios/folio/data/sample.jsonl"
    with pytest.raises(RequestError) as err:
        guarded.validate(AssessmentRequest(people, {"dataset": str(sample)}))
    assert err.value.field == "config.dataset" and "not a manifest dataset" in err.value.message
    with pytest.raises(RequestError) as err:
        guarded.validate(AssessmentRequest(people, {"data_dir": "/etc"}))
    assert err.value.field == "config.data_dir"
    assert guarded.validate(AssessmentRequest(people, {"dataset": "folio-sample", "limit": 2})).items
    assert (
        FolioPlugin(tmp_path).validate(AssessmentRequest(people, {"dataset": str(sample), "limit": 2})).items
    )
