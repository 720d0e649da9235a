"""What the offline model reads off the conversation after its last human message.

:func:`trailing_tool_turn` finds the tool results the model answers now and the AI message
whose calls they answer; :func:`is_plain_success` tells a result from an error, a rejection
or a cancellation; :func:`last_human_text` is the request being answered.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from interlock.models.offline.results import ANSWERED_INSTEAD


def last_human_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message ("" when there is none)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text
    return ""


def is_plain_success(message: ToolMessage) -> bool:
    """Whether a tool message is a result (not an error, rejection or cancellation)."""
    return message.status != "error" and not message.text.lstrip().startswith(
        ("Rejected by the person:", "Error [", "Cancelled:", ANSWERED_INSTEAD)
    )


def trailing_tool_turn(
    messages: Sequence[BaseMessage],
) -> tuple[AIMessage | None, list[ToolMessage]]:
    """Return the AI message whose calls the trailing tool messages answer, and those messages."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            results.insert(0, message)
            continue
        if results and isinstance(message, AIMessage):
            return message, results
        break
    return None, results
