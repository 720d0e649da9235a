"""Engine: the names a model sees in the history come from the registry at each step.

Stored calls keep Interlock's names (``web-search.fetch``); the model form maps them to
provider names when the history is built, so changing the mapping (issue 9: dashes became
``_``) needs no migration of stored conversations.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from interlock.engine.history import to_model_messages
from interlock.storage import Message, MessageRole, ToolCall
from interlock.tools import Tool, ToolContext, ToolRegistry


def _handler(args: dict[str, Any], ctx: ToolContext) -> str:
    return "done"


def _stored(*names: str) -> tuple[list[Message], dict[int, list[ToolCall]]]:
    assistant = Message(id=1, conversation_id="c", role=MessageRole.assistant, content="")
    calls = [
        ToolCall(id=f"call_{i}", conversation_id="c", message_id=1, run_id="r", index=i, name=n)
        for i, n in enumerate(names)
    ]
    tool_messages = [
        Message(id=2 + i, conversation_id="c", role=MessageRole.tool, tool_call_id=c.id)
        for i, c in enumerate(calls)
    ]
    return [assistant, *tool_messages], {1: calls}


def test_stored_dashed_names_reach_the_model_in_provider_form() -> None:
    registry = ToolRegistry()
    registry.register(
        Tool(
            name="web-search.fetch",
            title="Fetch",
            description="Fetches.",
            handler=_handler,
            input_schema={"type": "object", "properties": {}},
        )
    )
    # One call of a registered tool, one of a tool no longer registered (an old conversation).
    messages, calls = _stored("web-search.fetch", "old-skill.gone")

    history = to_model_messages(messages, calls, registry, "prompt")

    ai = history[1]
    assert isinstance(ai, AIMessage)
    assert [c["name"] for c in ai.tool_calls] == ["web_search_fetch", "old_skill_gone"]
    assert registry.by_provider_name("web_search_fetch") is registry.get("web-search.fetch")
