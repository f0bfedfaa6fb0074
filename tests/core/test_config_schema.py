"""One parser for every plugin's config: schema defaults, one-line errors naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from green_agent.anomaly.config import AnomalyConfig
from green_agent.anomaly.config import parse_config as parse_anomaly
from green_agent.anomaly.injection import DEPTHS, TYPES
from green_agent.core.config_errors import MESSAGE_LIMIT
from green_agent.core.contract import RequestError
from green_agent.folio.config import FolioConfig
from green_agent.folio.config import parse_config as parse_folio
from green_agent.generated.config import GeneratedConfig
from green_agent.generated.config import parse_config as parse_generated
from tests.support.schemas import shipped_schema as load_schema


def schema_defaults(schema_name: str) -> dict[str, Any]:
    """Every key of the shipped schema with its default, as a client reading the file sees it."""
    props = load_schema(schema_name)["properties"]
    return {key: tuple(v) if isinstance(v := spec["default"], list) else v for key, spec in props.items()}


PLUGINS = [
    ("folio-config", FolioConfig, parse_folio),
    ("anomaly-config", AnomalyConfig, parse_anomaly),
    ("generated-config", GeneratedConfig, parse_generated),
]


@pytest.mark.parametrize(("schema", "cls", "parse"), PLUGINS)
def test_an_empty_config_is_the_schema_defaults(schema: str, cls: type, parse: Any) -> None:
    assert set(cls.model_fields) == set(load_schema(schema)["properties"])
    assert parse({}).as_dict() == schema_defaults(schema)
    assert parse(None) == parse({})


def test_anomaly_defaults_are_every_type_and_depth() -> None:
    config = parse_anomaly({})
    assert (config.types, config.depths, config.documents) == (TYPES, DEPTHS, "all")
    assert (config.max_steps, config.timeout_s, config.concurrency) == (40, 60, 4)


def test_arrays_become_tuples_and_integral_floats_ints() -> None:
    config = parse_anomaly({"documents": ["a", "b"], "depths": ["deep"], "max_steps": 5.0})
    assert config.documents == ("a", "b") and config.depths == ("deep",)
    assert config.max_steps == 5 and isinstance(config.max_steps, int)
    assert parse_anomaly({"timeout_s": 2.5}).timeout_s == 2.5


BAD = [
    (
        parse_anomaly,
        {"feedback": "rude"},
        "config.feedback",
        "must be one of 'none', 'neutral', 'misleading'",
    ),
    (parse_anomaly, {"max_steps": 0}, "config.max_steps", "minimum"),
    (parse_anomaly, {"max_steps": "many"}, "config.max_steps", "must be of type integer, got 'many'"),
    (parse_anomaly, {"bogus": 1}, "config.bogus", "unknown key 'bogus' (allowed: "),
    (parse_anomaly, {"documents": ["a", "a"]}, "config.documents", "non-unique"),
    (
        parse_anomaly,
        {"documents": "some"},
        "config.documents",
        "'all' was expected; 'some' is not of type 'array'",
    ),
    (parse_anomaly, {"depths": ["deep", "abyssal"]}, "config.depths.1", "got 'abyssal'"),
    (parse_anomaly, {"types": []}, "config.types", "should be non-empty"),
    (parse_anomaly, {"robustness": 1}, "config.robustness", "must be of type boolean, got 1"),
    (parse_anomaly, {"shard_index": 2, "num_shards": 2}, "config.shard_index", "smaller than num_shards"),
    (parse_folio, {"variants": ["original", "upside_down"]}, "config.variants.1", "got 'upside_down'"),
    (parse_folio, {"seed": 1.5}, "config.seed", "must be of type integer or string or null"),
    (parse_folio, {"deadline_s": 0}, "config.deadline_s", "minimum"),
]


@pytest.mark.parametrize(("parse", "config", "field", "words"), BAD)
def test_bad_configs_name_the_field_in_one_line(parse: Any, config: dict, field: str, words: str) -> None:
    with pytest.raises(RequestError) as info:
        parse(config)
    assert info.value.field == field
    assert words in info.value.message
    assert "\n" not in str(info.value) and str(info.value).startswith(f"{field}: ")


@pytest.mark.parametrize("parse", [parse_folio, parse_anomaly, parse_generated])
def test_a_huge_bad_value_gives_a_bounded_message(parse: Any) -> None:
    with pytest.raises(RequestError) as info:
        parse({"shard_index": ["x" * 50] * 10_000})
    assert info.value.field == "config.shard_index"
    assert len(info.value.message) <= MESSAGE_LIMIT and "\n" not in info.value.message
