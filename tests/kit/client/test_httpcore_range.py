"""The linear pool pass overrides a private httpcore method, so it runs only on the httpcore releases
it was checked against, and fails closed elsewhere: httpcore's own pool, one warning, and every
request still served. Run with the real httpcore, whose version the check is made to read differently.
Checked by hand: with the check removed from ``make_linear``, the out-of-range tests fail (the pool
becomes a ``LinearPool``)."""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import Iterator

import httpcore
import httpx
import pytest
from packaging.requirements import Requirement

from green_agent.kit.client import linear_pool
from green_agent.kit.client.bounded_http import BoundedTransport
from green_agent.kit.client.linear_pool import HTTPCORE_REQUIREMENT, LinearPool, supports
from tests.support.paths import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PYPROJECT = REPO / "pyproject.toml"


@pytest.fixture
def httpcore_version(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Lets a test set the version the check reads; the check runs afresh before and after."""
    linear_pool._supported_here.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    linear_pool._supported_here.cache_clear()


@pytest.mark.parametrize("version", ["1.0.3", "1.0.9", "1.0.10", "1.1.0", "1.9.0"])
def test_pyproject_does_not_cap_httpcore_at_the_checked_range(version: str) -> None:
    """The range is checked at run time (a newer httpcore gets httpcore's own pool), so an installer
    must not be refused a newer httpcore for it."""
    dependencies = [Requirement(d) for d in tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]]
    declared = [r for r in dependencies if r.name == "httpcore"]
    assert len(declared) == 1 and declared[0].specifier.contains(version)


def test_every_lock_pins_an_httpcore_the_pass_was_checked_against() -> None:
    """What CI and the images install gets the linear pass, not the fallback."""
    pins = {
        lock.name: re.findall(r"^httpcore==([^\s;]+)", lock.read_text(), re.MULTILINE)
        for lock in sorted(PYPROJECT.parent.glob("requirements*.lock"))
    }
    assert pins["requirements.lock"] and pins["requirements-runtime.lock"]
    assert all(supports(version) for versions in pins.values() for version in versions), pins


def test_the_installed_httpcore_is_in_the_range() -> None:
    """The lock pins a release the pass was checked against; otherwise the suite would only ever test
    the fallback."""
    assert supports(httpcore.__version__)


@pytest.mark.parametrize(
    ("version", "supported"),
    [
        ("1.0.2", False),  # before the pool pass it reproduces (encode/httpcore#880)
        ("1.0.3", True),
        ("1.0.9", True),
        ("1.0.10", False),  # not checked: unknown
        ("1.1.0", False),
        ("0.17.3", False),
        ("2.0.0", False),
        ("1.0.9rc1", False),  # anything but X.Y.Z is unknown
        ("1.0.9+local", False),
        ("", False),
    ],
)
def test_which_versions_get_the_linear_pass(version: str, supported: bool) -> None:
    assert supports(version) is supported


def _serve_burst(requests: int) -> tuple[list[str], type]:
    """``requests`` GETs, 16 at a time, through one BoundedTransport; (replies, its pool's class)."""
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    async def run() -> tuple[list[str], type]:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    await reader.readuntil(b"\r\n\r\n")
                    writer.write(reply)
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        transport = BoundedTransport(limits=httpx.Limits(max_connections=16, max_keepalive_connections=4))
        slots = asyncio.Semaphore(16)

        async def get(client: httpx.AsyncClient) -> str:
            async with slots:
                return (await client.get(f"http://127.0.0.1:{port}/")).text

        async with server, httpx.AsyncClient(transport=transport) as client:
            texts = await asyncio.gather(*(get(client) for _ in range(requests)))
        return list(texts), type(transport._pool)

    return asyncio.run(run())


@pytest.mark.parametrize("version", ["1.1.0", "1.0.2", "1.0.10.dev0"])
def test_outside_the_range_httpcores_own_pool_serves_with_one_warning(
    version: str, httpcore_version: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    httpcore_version.setattr(httpcore, "__version__", version)
    with caplog.at_level(logging.WARNING, logger=linear_pool.__name__):
        texts, pool_class = _serve_burst(100)
        again_texts, again_class = _serve_burst(10)  # a second transport: no second warning
    assert texts == ["ok"] * 100 and again_texts == ["ok"] * 10
    assert pool_class is httpcore.AsyncConnectionPool and again_class is httpcore.AsyncConnectionPool
    warnings = [r for r in caplog.records if r.name == linear_pool.__name__]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert version in warnings[0].getMessage() and HTTPCORE_REQUIREMENT in warnings[0].getMessage()


def test_inside_the_range_the_pool_is_linear_without_a_warning(
    httpcore_version: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    httpcore_version.setattr(httpcore, "__version__", "1.0.3")
    with caplog.at_level(logging.WARNING, logger=linear_pool.__name__):
        texts, pool_class = _serve_burst(100)
    assert texts == ["ok"] * 100
    assert pool_class is LinearPool
    assert not [r for r in caplog.records if r.name == linear_pool.__name__]


def test_a_missing_version_counts_as_unknown(httpcore_version: pytest.MonkeyPatch) -> None:
    httpcore_version.delattr(httpcore, "__version__")
    pool = httpcore.AsyncConnectionPool()
    assert not linear_pool.make_linear(pool)
    assert type(pool) is httpcore.AsyncConnectionPool


def _shape(pool: object) -> dict[str, type]:
    """A pool's attributes by the type of their values."""
    return {name: type(value) for name, value in vars(pool).items()}


@pytest.mark.parametrize(
    ("version", "ours"), [("1.1.0", httpcore.AsyncConnectionPool), ("1.0.9", LinearPool)]
)
def test_the_pool_is_httpxs_own_but_for_the_fenced_pass(
    version: str, ours: type, httpcore_version: pytest.MonkeyPatch
) -> None:
    """Nothing private of httpcore is touched outside the version check, and inside it only the pool's
    class changes (no attribute is added or replaced): checked by hand to fail with the network-backend
    wrapper BoundedTransport used to install unconditionally."""
    httpcore_version.setattr(httpcore, "__version__", version)
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=4)
    pool = BoundedTransport(limits=limits)._pool
    plain = httpx.AsyncHTTPTransport(limits=limits)._pool
    assert type(pool) is ours
    assert _shape(pool) == _shape(plain)
