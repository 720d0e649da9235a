"""Fixture that keeps tests which load skills independent (imported by the conftests of
tests/api, tests/mcp_bridge and tests/skills)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from interlock.skills.loader import MODULE_PREFIX


@pytest.fixture(autouse=True)
def forget_skill_modules() -> Iterator[None]:
    """Remove the ``interlock_skill_*`` modules a test imported, so tests stay independent."""
    before = {name for name in sys.modules if name.startswith(MODULE_PREFIX)}
    yield
    for name in [n for n in sys.modules if n.startswith(MODULE_PREFIX) and n not in before]:
        del sys.modules[name]
