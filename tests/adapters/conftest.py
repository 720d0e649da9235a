"""Shared fixtures for the adapter tests: a tool context over an in-memory database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from interlock.storage import Database
from interlock.tools import ToolContext


@pytest.fixture
def ctx() -> Iterator[ToolContext]:
    db = Database("sqlite://")
    yield ToolContext(user_id="user_1", conversation_id="conv_1", tool_call_id="call_1", db=db)
    db.dispose()
