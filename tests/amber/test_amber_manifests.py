"""Our Amber manifests and leaderboard scenario templates, checked and compiled by the real Amber CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from green_agent.anomaly.config import parse_config as parse_anomaly_config
from green_agent.folio.config import parse_config as parse_folio_config
from green_agent.generated.config import parse_config as parse_generated_config
from tests.amber.conftest import GATEWAY_STAND_IN, REPO, SCENARIOS, Amber, Compiled, offline_copy
from tests.support.dockerfile import Dockerfile

WHITE_AGENTS = {
    "folio": {"reference": False, "cot": True, "autoformalizer": True},
    "anomaly": {"baseline": False, "llm": True},
    "generated": {},  # its template seats FOLIO's agents: the task is the same
}
"""Every white agent's manifest, and whether it takes a model and a secret API key."""
CONFIG_PARSERS = {
    "folio": parse_folio_config,
    "anomaly": parse_anomaly_config,
    "generated": parse_generated_config,
}
AGENTS = [(s, "green") for s in SCENARIOS] + [(s, a) for s in SCENARIOS for a in WHITE_AGENTS[s]]


def manifest_path(scenario: str, agent: str) -> Path:
    return REPO / "scenarios" / scenario / "amber" / f"{agent}.amber-manifest.json5"


def test_every_manifest_in_the_repository_is_covered() -> None:
    found = {p.relative_to(REPO) for p in REPO.glob("scenarios/*/amber/*.amber-manifest.json5")}
    assert found == {manifest_path(s, a).relative_to(REPO) for s, a in AGENTS}


@pytest.mark.parametrize(("scenario", "agent"), AGENTS)
def test_component_manifest_passes_amber_check(amber: Amber, scenario: str, agent: str) -> None:
    amber.check(manifest_path(scenario, agent))


def participant_scenario(tmp_path: Path, scenario: str, agent: str) -> Path:
    """A scenario (plain JSON) putting ``agent`` in the solver seat, like a submitter's fork does."""
    solver: dict[str, Any] = {"manifest": str(manifest_path(scenario, agent))}
    root: dict[str, Any] = {"manifest_version": "0.1.0"}
    if WHITE_AGENTS[scenario].get(agent):
        solver["config"] = {"model": "openai/gpt-4o-mini", "api_key": "${config.solver_api_key}"}
        root["config_schema"] = {
            "type": "object",
            "properties": {"solver_api_key": {"type": "string", "secret": True}},
            "required": ["solver_api_key"],
            "additionalProperties": False,
        }
    root |= {
        "components": {
            "gateway": {
                "manifest": str(GATEWAY_STAND_IN),
                "config": {
                    "assessment_config": {},
                    "participant_roles": {"green": "green", "purple1": "solver"},
                },
            },
            "green": {"manifest": str(manifest_path(scenario, "green"))},
            "solver": solver,
        },
        "bindings": [
            {"to": "#gateway.green", "from": "#green.a2a"},
            {"to": "#gateway.purple1", "from": "#solver.a2a"},
            {"to": "#green.proxy", "from": "#gateway.proxy", "weak": True},
        ],
        "exports": {"results": "#gateway.results"},
    }
    path = tmp_path / f"{scenario}-{agent}.json5"
    path.write_text(json.dumps(root, indent=2))
    return path


@pytest.fixture(scope="module")
def compiled_templates(amber: Amber, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Compiled]:
    out = tmp_path_factory.mktemp("templates")
    return {s: amber.compile(offline_copy(s, out), out / f"{s}-out") for s in SCENARIOS}


@pytest.fixture(scope="module")
def compiled_agents(
    amber: Amber, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], Compiled]:
    out = tmp_path_factory.mktemp("agents")
    return {
        (s, a): amber.compile(participant_scenario(out, s, a), out / f"{s}-{a}-out")
        for s in SCENARIOS
        for a in WHITE_AGENTS[s]
    }


def routes_green_proxy(compiled: Compiled) -> bool:
    """The green agent's proxy slot is wired to the gateway's proxy in the compiled mesh."""
    green = compiled.mesh_node("/green")
    gateway = compiled.mesh_node("/gateway")
    outbound = any(
        (o["slot"], o["peer_id"], o["capability"]) == ("proxy", "/gateway", "proxy")
        for o in green["outbound"]
    )
    inbound = any(i["capability"] == "proxy" and "/green" in i["allowed_issuers"] for i in gateway["inbound"])
    return outbound and inbound


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_compiled_template_routes_the_green_agents_proxy_slot(
    compiled_templates: dict[str, Compiled], scenario: str
) -> None:
    assert routes_green_proxy(compiled_templates[scenario])


def test_without_a_reference_to_the_slot_amber_drops_the_route(amber: Amber, tmp_path: Path) -> None:
    template = offline_copy("folio", tmp_path)
    green = template.with_name("green.amber-manifest.json5")
    text = green.read_text()
    assert '"${slots.proxy.url}"' in text
    green.write_text("\n".join(line for line in text.splitlines() if "${slots.proxy.url}" not in line))
    done = amber.run("compile", template, "--docker-compose", tmp_path / "compose")
    assert done.returncode == 0, done.stderr
    compiled = Compiled({}, (tmp_path / "compose" / "compose.yaml").read_text())
    assert not routes_green_proxy(compiled)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_template_exports_results_and_names_every_role(
    compiled_templates: dict[str, Compiled], scenario: str
) -> None:
    compiled = compiled_templates[scenario]
    assert [(e["name"], e["capability"]["kind"]) for e in compiled.ir["exports"]] == [("results", "http")]
    gateway_config = compiled.component("/gateway")["config"]
    roles = gateway_config["participant_roles"]
    green_meta = compiled.component("/green")["metadata"]
    assert roles["green"] == "green" and sorted(v for k, v in roles.items() if k != "green") == sorted(
        green_meta["participant_roles"]
    )
    ids = compiled.component("/")["metadata"]["agentbeats_ids"]
    assert set(ids) == set(roles.values())  # results join on role name == component name
    for component in roles.values():
        compiled.component(f"/{component}")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_assessment_configs_are_accepted_by_the_green_agent(
    compiled_templates: dict[str, Compiled], scenario: str
) -> None:
    compiled = compiled_templates[scenario]
    template_config = compiled.component("/gateway")["config"]["assessment_config"]
    assert template_config == compiled.component("/green")["metadata"]["assessment_config"]
    patched = {
        **template_config,
        "shard_index": 1,
        "num_shards": 3,
        "num_instances": 30,
    }  # as the workflow does
    parsed = CONFIG_PARSERS[scenario](patched)
    assert (parsed.shard_index, parsed.num_shards, parsed.num_instances) == (1, 3, 30)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_secrets_reach_the_agent_only_as_environment(
    compiled_templates: dict[str, Compiled], scenario: str
) -> None:
    compiled = compiled_templates[scenario]
    solver = compiled.component("/solver")
    assert solver["config_schema"]["properties"]["api_key"]["secret"] is True
    assert solver["program"]["env"]["LLM_API_KEY"] == "${config.api_key}"
    assert not solver["program"].get("mounts")
    assert "AMBER_CONFIG_SOLVER_API_KEY=${AMBER_CONFIG_SOLVER_API_KEY?" in compiled.compose


@pytest.mark.parametrize(("scenario", "agent"), [a for a in AGENTS if a[1] != "green"])
def test_every_white_agent_compiles_in_the_solver_seat(
    compiled_agents: dict[tuple[str, str], Compiled], scenario: str, agent: str
) -> None:
    compiled = compiled_agents[(scenario, agent)]
    assert routes_green_proxy(compiled)
    env = compiled.component("/solver")["program"].get("env", {})
    assert ("LLM_API_KEY" in env) == WHITE_AGENTS[scenario][agent]


def program_of(scenario: str, agent: str, templates: dict[str, Compiled], agents: dict) -> dict[str, Any]:
    if agent == "green":
        return templates[scenario].component("/green")["program"]
    return agents[(scenario, agent)].component("/solver")["program"]


@pytest.mark.parametrize(("scenario", "agent"), AGENTS)
def test_manifest_runs_what_its_dockerfile_builds(
    compiled_templates: dict[str, Compiled],
    compiled_agents: dict[tuple[str, str], Compiled],
    scenario: str,
    agent: str,
) -> None:
    program = program_of(scenario, agent, compiled_templates, compiled_agents)
    docker = Dockerfile.read(REPO / "scenarios" / scenario / "docker" / f"{agent}.Dockerfile")
    entry = docker.exec_form("ENTRYPOINT")
    command = program["entrypoint"]
    assert command[: len(entry)] == entry, (
        "the manifest's full command must start with the image's ENTRYPOINT"
    )
    port = int(command[command.index("--port") + 1])
    assert [e["port"] for e in program["network"]["endpoints"]] == [port]
    assert int(docker.env()["AGENT_PORT"]) == port and docker.one("EXPOSE") == str(port)
    assert program["image"].rsplit("/", 1)[1].split(":")[0] == docker.build_tag()
    for key, value in program.get("env", {}).items():
        if key in docker.env():
            assert docker.env()[key] == value, f"{key} differs between manifest and image"
