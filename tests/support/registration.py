"""Why the tool registry refused a tool, for assertions."""

from __future__ import annotations

from typing import Any

import pytest

from interlock.tools import ToolRegistrationError, ToolRegistry


def registration_reason(registry: ToolRegistry, tool: Any) -> str:
    """The ``reason`` of the :class:`ToolRegistrationError` that registering ``tool`` raises.

    Fails the test when registering ``tool`` raises nothing.
    """
    with pytest.raises(ToolRegistrationError) as caught:
        registry.register(tool)
    return caught.value.reason
