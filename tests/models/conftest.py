"""Fixtures for the model tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.openai_stub import OpenAIStub


@pytest.fixture
def openai_stub() -> Iterator[tuple[OpenAIStub, str]]:
    """A running OpenAI-compatible stub server and its base URL (``http://127.0.0.1:<port>/v1``)."""
    stub = OpenAIStub()
    with stub.running() as base_url:
        yield stub, base_url
