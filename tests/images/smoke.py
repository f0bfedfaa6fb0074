"""``make images-smoke``: the built images do their job, in containers, offline.

After ``make images``: starts the FOLIO green and reference images as their own users on the host network
(free 127.0.0.1 ports through ``AGENT_PORT`` and ``--host 127.0.0.1``), waits for Docker's HEALTHCHECK to
report them healthy, runs a whole assessment against them with our harness (a scenario whose agents have an
``endpoint`` and no ``cmd``), and checks: every item of the embedded sample answered in a results file that
matches the shipped schema, the green agent's journal in its run dir (``AGENTBEATS_RUN_DIR``), both still
healthy, both running as uid 10001; then runs one Z3Py program through the sandbox's CLI in the
autoformalizer image, as its user under Docker's default seccomp profile with no extra privilege, and
prints the isolation the sandbox reports (a run that falls back to the weak, unisolated mode fails).
The containers are removed at the end, on failure and on Ctrl-C too.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from green_agent.core.schemas import load_schema
from tests.images.base import base_tag, is_stand_in
from tests.images.engine import ImageError, docker, image_exists, require_engine, run_main
from tests.support.dockerfile import REPO

GREEN_IMAGE = "agentified-green"
REFERENCE_IMAGE = "agentified-reference"
SANDBOX_IMAGE = "agentified-autoformalizer"
IMAGE_UID = "10001"
SAMPLE = REPO / "scenarios/folio/data/sample.jsonl"
HEALTHY_WITHIN_S = 120.0
"""How long a container may take to be reported healthy (its HEALTHCHECK probes every 10 s)."""
ASSESSMENT_WITHIN_S = 600.0
SANDBOX_PROGRAM = """\
import z3
x = z3.Int("x")
solver = z3.Solver()
solver.add(x > 2, x < 2)
print(solver.check())
"""
"""Unsatisfiable on purpose: the sandbox must print ``unsat``, proving z3 ran inside it."""


@dataclass(frozen=True)
class Agent:
    """One agent container of the smoke."""

    role: str
    image: str
    port: int
    name: str

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def run_argv(self) -> list[str]:
        """``docker run`` arguments: the image's user and entry point, host network, port by AGENT_PORT."""
        return [
            "run", "--detach", "--name", self.name, "--network", "host",
            "--env", f"AGENT_PORT={self.port}", self.image, "--host", "127.0.0.1",
        ]  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def scenario_text(green: Agent, participants: Sequence[Agent]) -> str:
    """A scenario file for agents that already run: endpoints only, no ``cmd`` (docs/harness.md)."""
    lines = ["[green_agent]", f'endpoint = "{green.endpoint}"', ""]
    for agent in participants:
        lines += ["[[participants]]", f'role = "{agent.role}"', f'endpoint = "{agent.endpoint}"', ""]
    lines += ["[config]", 'dataset = "folio-sample"', "expose_fol = true", ""]
    return "\n".join(lines)


def sample_ids() -> set[str]:
    """The ids of the embedded sample's items (what a complete results file must answer)."""
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    return {str(row["example_id"]) for row in rows}


def check_results(results: dict[str, Any], role: str, expected: set[str]) -> str:
    """Raise :class:`ImageError` unless ``role`` answered every item of ``expected`` (ids) and the results
    match the shipped schema; a one-line summary."""
    parts = results.get("results")
    if not isinstance(parts, list):
        raise ImageError("the results file has no 'results' list")
    try:
        jsonschema.Draft202012Validator(load_schema("green_agent.folio", "folio-result")).validate(parts)
    except jsonschema.ValidationError as error:
        raise ImageError(f"the results do not match folio-result.schema.json: {error.message}") from None
    mine = [p for p in parts if p.get("role") == role and "items" in p]
    if len(mine) != 1:
        raise ImageError(f"expected one result part for {role}, found {len(mine)}")
    part = mine[0]
    items = part["items"]
    unanswered = [i["id"] for i in items if i["status"] != "ok" or i["predicted"] is None]
    ids = [str(i["id"]) for i in items]
    if part["total"] != len(expected) or len(ids) != len(expected) or set(ids) != expected or unanswered:
        raise ImageError(
            f"{role}: {len(ids)} items for the sample's {len(expected)}, {len(set(ids) ^ expected)} ids differ, "
            f"unanswered: {unanswered[:5] or 'none'} (timeout {part['timeout']}, runtime_error "
            f"{part['runtime_error']}, parse_error {part['parse_error']})"
        )
    return (
        f"results: {role} answered all {len(expected)} sample items ({part['correct']} correct), "
        "folio-result schema valid"
    )


def container_uid(name: str) -> str:
    """The uids of the container's main process as the host kernel sees them, checked against the image's."""
    pid = docker("inspect", "--format", "{{.State.Pid}}", name).strip()
    status = Path(f"/proc/{pid}/status").read_text()
    uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
    inside = docker("exec", name, "id", "-u").strip()
    if set(uids) != {IMAGE_UID} or inside != IMAGE_UID:
        raise ImageError(f"{name} runs as uids {uids} (exec: {inside}), not {IMAGE_UID}")
    return f"uid {IMAGE_UID} (process {pid}: real/effective/saved/fs {'/'.join(uids)}; docker exec id -u {inside})"


def health(name: str) -> str:
    return docker("inspect", "--format", "{{.State.Status}} {{.State.Health.Status}}", name).strip()


def wait_healthy(name: str, start: float) -> float:
    """Seconds from ``start`` (monotonic) until Docker reports the container healthy; an error if it
    stops or turns unhealthy first."""
    while time.monotonic() - start < HEALTHY_WITHIN_S:
        state = health(name)
        if state == "running healthy":
            return time.monotonic() - start
        if not state.startswith("running") or state.endswith("unhealthy"):
            break
        time.sleep(0.5)
    tail = docker("logs", "--tail", "3", name, check=False).strip().replace("\n", " | ")
    raise ImageError(f"{name} is not healthy ({health(name)}); last log lines: {tail[-300:] or '(none)'}")


def journal_lines(green: Agent) -> tuple[str, int]:
    """The green agent's journal in its run dir (the one written by this run) and its number of records."""
    listing = docker(
        "exec", green.name, "sh", "-c", 'cd "$AGENTBEATS_RUN_DIR" && pwd && wc -l */items.jsonl'
    ).split("\n")
    run_dir, counts = listing[0], [line.split() for line in listing[1:] if line.strip()]
    journals = [(path, int(n)) for n, path in counts if path != "total"]
    if len(journals) != 1:
        raise ImageError(f"expected one journal in {run_dir}, found {journals}")
    return f"{run_dir}/{journals[0][0]}", journals[0][1]


def sandbox_report() -> dict[str, Any]:
    """What the sandbox's CLI reports for one Z3Py run in the autoformalizer image, as its user, under
    Docker's default seccomp profile and no added privilege (no --privileged, --cap-add or --security-opt)."""
    argv = [
        "docker", "run", "--rm", "--interactive", "--network", "none", "--entrypoint", "python",
        SANDBOX_IMAGE, "-s", "-m", "white_agents.autoformalizer.sandbox", "/dev/stdin",
    ]  # fmt: skip
    done = subprocess.run(argv, input=SANDBOX_PROGRAM, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ImageError(f"the sandbox refused to run in {SANDBOX_IMAGE}: {last}")
    uid = docker("run", "--rm", "--network", "none", "--entrypoint", "id", SANDBOX_IMAGE, "-u").strip()
    if uid != IMAGE_UID:
        raise ImageError(f"{SANDBOX_IMAGE} runs as uid {uid}, not {IMAGE_UID}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if report["status"] != "ok" or report["stdout"].strip() != "unsat":
        raise ImageError(
            f"the sandbox's run failed: {report['status']} {report['detail'] or report['stderr']}"
        )
    if "weak-sandbox" in report["layers"]:
        raise ImageError(f"the sandbox ran in the WEAK fallback mode: layers {report['layers']}")
    return report


@contextmanager
def containers(agents: Sequence[Agent]) -> Iterator[None]:
    """Start the agents' containers; remove them all on the way out, whatever happened (``run_main``
    turns SIGTERM into an interruption, so it unwinds through here too)."""
    try:
        for agent in agents:
            docker(*agent.run_argv())
        yield
    finally:
        for agent in agents:
            subprocess.run(["docker", "rm", "--force", agent.name], capture_output=True)


class Timings:
    """Wall time of each step, for the summary."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float]] = []
        self._start = time.monotonic()

    @contextmanager
    def step(self, what: str) -> Iterator[None]:
        start = time.monotonic()
        yield
        self.steps.append((what, time.monotonic() - start))

    def lines(self) -> list[str]:
        rows = [f"  {what:38} {seconds:6.1f} s" for what, seconds in self.steps]
        return [*rows, f"  {'total':38} {time.monotonic() - self._start:6.1f} s"]


def assess(green: Agent, reference: Agent, workdir: Path) -> dict[str, Any]:
    """Run the harness on the scenario; the results file's content."""
    scenario = workdir / "scenario.toml"
    output = workdir / "results.json"
    scenario.write_text(scenario_text(green, [reference]))
    argv = [sys.executable, "-m", "green_agent.harness", "run", str(scenario), "--output", str(output)]
    done = subprocess.run(argv, timeout=ASSESSMENT_WITHIN_S, cwd=workdir)
    if done.returncode != 0:
        raise ImageError(f"the assessment failed: agentbeats run exited with status {done.returncode}")
    results: dict[str, Any] = json.loads(output.read_text())
    return results


def main(argv: Sequence[str] | None = None) -> int:
    del argv  # no options
    require_engine()
    missing = [i for i in (GREEN_IMAGE, REFERENCE_IMAGE, SANDBOX_IMAGE) if not image_exists(i)]
    if missing:
        raise ImageError(f"images not built: {', '.join(missing)} (run make images first)")
    suffix = f"{os.getpid()}"
    green = Agent("green_agent", GREEN_IMAGE, free_port(), f"agentified-smoke-green-{suffix}")
    reference = Agent("reference", REFERENCE_IMAGE, free_port(), f"agentified-smoke-reference-{suffix}")
    timings, report = Timings(), []
    with containers([green, reference]), tempfile.TemporaryDirectory(prefix="images-smoke-") as scratch:
        with timings.step("containers healthy (Docker HEALTHCHECK)"):
            started = time.monotonic()
            for agent in (green, reference):
                waited = wait_healthy(agent.name, started)
                report.append(
                    f"{agent.role}: {agent.image} healthy {waited:.1f} s after start, {agent.endpoint}"
                )
        for agent in (green, reference):
            report.append(f"{agent.role}: {container_uid(agent.name)}")
        with timings.step("assessment (agentbeats run)"):
            results = assess(green, reference, Path(scratch))
        report.append(check_results(results, reference.role, sample_ids()))
        journal, records = journal_lines(green)
        if records < len(sample_ids()):
            raise ImageError(f"the journal {journal} holds {records} records, fewer than the sample's items")
        report.append(f"journal: {journal} in the green container, {records} records")
        for agent in (green, reference):
            state = health(agent.name)
            if state != "running healthy":
                raise ImageError(f"{agent.name} is {state} after the assessment")
            report.append(f"{agent.role}: still {state} after the assessment")
    with timings.step("sandbox probe (autoformalizer image)"):
        sandbox = sandbox_report()
    report.append(
        f"sandbox in {SANDBOX_IMAGE} (uid {IMAGE_UID}, default seccomp, no added privilege): "
        f'isolation "{sandbox["isolation"]}", layers {", ".join(sandbox["layers"])}; z3 said unsat'
    )
    on_stand_in = [i for i in (GREEN_IMAGE, REFERENCE_IMAGE, SANDBOX_IMAGE) if is_stand_in(i)]
    if on_stand_in:
        report.append(f"base: {', '.join(on_stand_in)} built on the Debian STAND-IN for {base_tag()}")
    print("\nimages smoke: PASSED")
    print("\n".join(f"  {line}" for line in report))
    print("timings:")
    print("\n".join(timings.lines()))
    return 0


if __name__ == "__main__":
    run_main(main)
