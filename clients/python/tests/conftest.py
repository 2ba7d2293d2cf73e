"""What the Go test that starts the server (client_test.go) tells the tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from jobgen_client import Client


def env(name: str) -> str:
    value = os.environ.get("JOBGEN_TEST_" + name)
    if value is None:
        pytest.fail(
            "run these tests with `go test ./clients/python`, which starts the server"
        )
    return value


@pytest.fixture
def url() -> str:
    return env("URL")


@pytest.fixture
def headers() -> dict[str, str]:
    return {env("SESSION_HEADER"): env("SESSION")}


@pytest.fixture
def client(url: str, headers: dict[str, str]) -> Iterator[Client]:
    with Client(url, headers=headers) as c:
        yield c


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
