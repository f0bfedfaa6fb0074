"""A fair share for every client of a public green agent, on the real process (capability mode:
``--public``, clients told apart by their address, 127.0.0.2 the hostile one, 127.0.0.3 the honest one).

B1: one client sent 20 requests with ``timeout_s`` 86,400 against a participant that never answers, and
filled the 4 running and 16 queued places; everyone else was refused "busy" for a day. Now a client has
1 running and 2 queued assessments at most; its next is refused with its own reason and a retry hint,
and an honest client starts at once.

B5: messages sent to one's own running task were queued without bound (300 × 0.9 MB: RSS 76 → 579 MiB).
Now at most ``--max-task-messages`` (4) and ``--max-task-message-bytes`` (1 MiB) wait for one task.

Checked by hand that each test fails with its protection off: with ``AssessmentGate`` given the global
limits as the per-client ones, the honest request is queued behind the hostile ones (never started) and
none of the 20 is refused for its share; with ``TaskMessages.admit`` counting nothing, no follow-up is
refused.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.green_process import Green, running_green
from tests.support.participants import running_participant
from tests.support.raw_rpc import Answer, Peer
from tests.support.timing import wait_until

PUBLIC = ["--public", "--allow-private-participants"]
"""Public, and calling the participants these tests run on loopback."""


@pytest.fixture(scope="module")
def green(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Green, str]]:
    """A public green agent with the default limits, and a participant that never answers."""
    with (
        running_participant("hang") as (white, stats),
        running_green(tmp_path_factory.mktemp("fair") / "runs", args=PUBLIC) as g,
    ):
        yield g, white
        stats.release()


def _state(peer: Peer, task_id: str) -> tuple[str, str]:
    task = peer.get(task_id).task
    status = task["status"]
    text = " ".join(p.get("text", "") for p in status.get("message", {}).get("parts", []))
    return str(status["state"]).lower().removeprefix("task_state_"), text


def _running(text: str) -> bool:
    """Whether a ``working`` status says the assessment runs (started, or its progress)."""
    return text.startswith(("Assessment started", "Assessing"))


def _request(white: str, **config: object) -> str:
    return json.dumps({"participants": {"p": white}, "config": {"limit": 1, "timeout_s": 600, **config}})


def test_one_client_filling_every_slot_leaves_the_others_their_share(tmp_path: Path) -> None:
    with (
        running_participant("hang") as (white, stats),
        running_green(tmp_path / "runs", args=PUBLIC) as agent,
    ):
        _fill_every_slot_then_start_an_honest_one(agent, white)
        stats.release()


def _fill_every_slot_then_start_an_honest_one(agent: Green, white: str) -> None:
    hostile, honest = Peer(agent.url, "1.0", source="127.0.0.2"), Peer(agent.url, "1.0", source="127.0.0.3")
    ids = [hostile.start(_request(white, seed=n))["id"] for n in range(20)]
    states: dict[str, tuple[str, str]] = {}

    def settled() -> bool:
        states.update({i: _state(hostile, i) for i in ids})
        return all(
            s == "rejected" or (s == "working" and ("Queued" in t or _running(t))) for s, t in states.values()
        )

    wait_until(settled, "the hostile requests to be started, queued or refused")
    refused = [t for s, t in states.values() if s == "rejected"]
    working = [t for s, t in states.values() if s == "working"]
    assert len(working) == 3 and sum(t.startswith("Queued:") for t in working) == 2
    assert len(refused) == 17
    assert all(
        "your share" in t and "--max-assessments-per-client" in t and "try again when" in t for t in refused
    )
    rejected_task = hostile.get(next(i for i in ids if states[i][0] == "rejected")).task
    data = [p["data"] for p in rejected_task["status"]["message"]["parts"] if "data" in p]
    assert data[0]["error"] == "busy" and data[0]["retry_after_s"] >= 5
    mine = honest.start(_request(white))["id"]
    wait_until(lambda: _running(_state(honest, mine)[1]), "the honest assessment to start")
    for task_id in [*ids, mine]:
        hostile.cancel(task_id)


def _follow_ups(peer: Peer, task_id: str, texts: list[str]) -> list[Answer]:
    """Send each text to the task at once, each on its own connection; the answers as they come."""
    answers: list[Answer] = []
    lock = threading.Lock()

    def send(text: str) -> None:
        answer = peer.call("send", {"message": peer.message(text, task_id=task_id)})
        with lock:
            answers.append(answer)

    for text in texts:
        threading.Thread(target=send, args=(text,), daemon=True).start()
    return answers


def _refusals(answers: list[Answer]) -> list[str]:
    return [a.error["message"] for a in list(answers) if a.error and "waiting for it" in a.error["message"]]


@pytest.mark.parametrize(
    ("count", "size", "admitted"), [(8, 1000, 4), (4, 400_000, 2)], ids=["count", "bytes"]
)
def test_messages_waiting_for_a_running_task_are_bounded(
    green: tuple[Green, str], count: int, size: int, admitted: int
) -> None:
    agent, white = green
    client = Peer(agent.url, "1.0", source="127.0.0.4")
    task_id = client.start(_request(white))["id"]
    wait_until(lambda: _state(client, task_id)[0] == "working", "the task to run")
    answers = _follow_ups(client, task_id, [f"{n}" + "x" * size for n in range(count)])
    wait_until(lambda: len(_refusals(answers)) == count - admitted, f"{count - admitted} refusals")
    assert all(
        "over this agent's limit of 4 messages or 1,048,576 bytes per task" in r for r in _refusals(answers)
    )
    client.cancel(task_id)
    wait_until(lambda: len(answers) == count, "every follow-up to be answered once the task ended")
    assert len(_refusals(answers)) == count - admitted


def test_a_follow_up_to_a_task_of_another_principal_is_not_found_not_refused(tmp_path: Path) -> None:
    """The bound must not reveal another's task: its id answers as an unknown one."""
    tokens = tmp_path / "tokens"
    tokens.write_text("alice:alice-token-0123456789\nbob:bob-token-abcdefghijk\n", encoding="utf-8")
    tokens.chmod(0o600)
    with (
        running_participant("hang") as (white, stats),
        running_green(tmp_path / "runs", args=["--auth-tokens-file", str(tokens)]) as agent,
    ):
        alice = Peer(agent.url, "1.0", "alice-token-0123456789")
        bob = Peer(agent.url, "1.0", "bob-token-abcdefghijk")
        task_id = alice.start(_request(white))["id"]
        answers = _follow_ups(alice, task_id, ["x"] * 6)
        wait_until(lambda: len(_refusals(answers)) == 2, "alice's two refusals")
        foreign = bob.call("send", {"message": bob.message("x", task_id=task_id)})
        alice.cancel(task_id)
        stats.release()
    assert foreign.error is not None and foreign.error["code"] == -32001
