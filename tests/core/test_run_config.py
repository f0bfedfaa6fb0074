"""The run fields both built-in configs share are declared once (``RunConfig``/``ShardedConfig`` in
green_agent/core/config.py), with one set of bounds: a bound changed there holds for every plugin, and
a plugin that only changes a default (anomaly's 60 s, 4 in flight, 1 retry) keeps the shared bounds.

Checked by hand: with anomaly redeclaring ``concurrency: int = Field(4, ge=1, le=512)`` (its own bound
again), the bounds test fails for anomaly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from green_agent.anomaly.config import AnomalyConfig
from green_agent.anomaly.config import parse_config as parse_anomaly
from green_agent.core.config import RunConfig, ShardedConfig
from green_agent.core.contract import RequestError
from green_agent.folio.config import FolioConfig
from green_agent.folio.config import parse_config as parse_folio
from green_agent.generated.config import GeneratedConfig
from green_agent.generated.config import parse_config as parse_generated

PARSERS = [
    pytest.param(parse_folio, id="folio"),
    pytest.param(parse_anomaly, id="anomaly"),
    pytest.param(parse_generated, id="generated"),
]
SHARED = ("timeout_s", "max_retries", "concurrency", "max_response_bytes", "resume")
SHARDS = ("shard_index", "num_shards", "num_instances")


@pytest.mark.parametrize("model", [FolioConfig, AnomalyConfig, GeneratedConfig])
def test_both_configs_extend_the_shared_base_and_keep_its_bounds(model: type[ShardedConfig]) -> None:
    assert issubclass(model, ShardedConfig) and issubclass(model, RunConfig)
    base = ShardedConfig.model_json_schema()["properties"]
    mine = model.model_json_schema()["properties"]
    for key in (*SHARED, *SHARDS):
        drop = ("default", "description")  # a plugin may say it in its own words, with its own default
        assert {k: v for k, v in mine[key].items() if k not in drop} == {
            k: v for k, v in base[key].items() if k not in drop
        }, key


@pytest.mark.parametrize("parse", PARSERS)
@pytest.mark.parametrize(
    ("config", "field", "words"),
    [
        ({"concurrency": 257}, "config.concurrency", "257 is greater than the maximum of 256"),
        ({"timeout_s": 86_401}, "config.timeout_s", "86401 is greater than the maximum of 86400"),
        ({"max_retries": 11}, "config.max_retries", "11 is greater than the maximum of 10"),
        ({"max_response_bytes": (1 << 30) + 1}, "config.max_response_bytes", "greater than the maximum"),
        ({"max_response_bytes": 1023}, "config.max_response_bytes", "1023 is less than the minimum of 1024"),
        ({"num_shards": 2, "shard_index": 2}, "config.shard_index", "must be smaller than num_shards"),
    ],
)
def test_one_bound_for_every_plugin(
    parse: Callable[[dict[str, Any]], RunConfig], config: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(RequestError) as err:
        parse(config)
    assert err.value.field == field and words in err.value.message


@pytest.mark.parametrize("parse", PARSERS)
def test_the_largest_allowed_values_pass(parse: Callable[[dict[str, Any]], RunConfig]) -> None:
    config = parse(
        {"concurrency": 256, "timeout_s": 86_400, "max_retries": 10, "max_response_bytes": 1 << 30}
    )
    assert (config.concurrency, config.timeout_s, config.max_retries) == (256, 86_400, 10)


def test_anomaly_keeps_its_own_defaults_and_folio_the_shared_ones() -> None:
    folio, anomaly = parse_folio({}), parse_anomaly({})
    assert (folio.timeout_s, folio.max_retries, folio.concurrency) == (120, 2, 8)
    assert (anomaly.timeout_s, anomaly.max_retries, anomaly.concurrency) == (60, 1, 4)
    assert folio.budget().timeout_s == 120 and anomaly.budget().timeout_s == 60


def test_the_run_deadline_is_folios_deadline_s_and_none_for_anomaly() -> None:
    assert parse_folio({"deadline_s": 30}).run_deadline_s == 30
    assert parse_folio({}).run_deadline_s is None
    assert parse_anomaly({}).run_deadline_s is None
