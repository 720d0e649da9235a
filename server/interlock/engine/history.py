"""Build the model's view of a conversation from Interlock's tables.

Rules kept here (OpenAI's and Anthropic's tool-message ordering): every assistant message
with tool calls is followed at once by exactly one tool message per call, in call order,
before any other message. Args shown to the model are the args that ran (``executed_args``)
when the call ran, else the proposal.
"""

from __future__ import annotations

from collections import defaultdict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from sqlmodel import Session, col, select

from interlock.storage import Message, MessageRole, ToolCall
from interlock.store import UNDO_UNDONE
from interlock.tools import ToolRegistry, provider_safe_name

UNDONE_NOTE = (
    "[The person undid this call afterwards: its changes were reverted and are no longer in "
    "effect. Do not redo it unless they ask.]"
)
"""Appended to the tool message of an undone call, so the model knows from its next turn on."""


def load_history(
    session: Session, conversation_id: str
) -> tuple[list[Message], dict[int, list[ToolCall]]]:
    """Return the conversation's messages in order and tool calls keyed by message id."""
    messages = list(
        session.exec(
            select(Message)
            .where(Message.conversation_id == conversation_id)
            .order_by(col(Message.id))
        ).all()
    )
    calls: dict[int, list[ToolCall]] = defaultdict(list)
    for call in session.exec(
        select(ToolCall)
        .where(ToolCall.conversation_id == conversation_id)
        .order_by(col(ToolCall.message_id), col(ToolCall.index))
    ).all():
        calls[call.message_id].append(call)
    return messages, calls


def to_model_messages(
    messages: list[Message],
    calls: dict[int, list[ToolCall]],
    registry: ToolRegistry,
    system_prompt: str,
) -> list[BaseMessage]:
    """Convert stored messages to LangChain messages for a model call.

    Raises:
        RuntimeError: A tool call has no tool message (the engine never calls the model then).
    """
    tool_messages = {m.tool_call_id: m for m in messages if m.role == MessageRole.tool}
    out: list[BaseMessage] = [SystemMessage(system_prompt)]
    for message in messages:
        if message.role == MessageRole.user:
            out.append(HumanMessage(message.content))
        elif message.role == MessageRole.assistant:
            assert message.id is not None
            message_calls = calls.get(message.id, [])
            out.append(
                AIMessage(
                    content=message.content,
                    tool_calls=[
                        {
                            "id": call.id,
                            "name": _provider_name(registry, call.name),
                            "args": _shown_args(call),
                            "type": "tool_call",
                        }
                        for call in message_calls
                    ],
                )
            )
            for call in message_calls:
                tool_message = tool_messages.get(call.id)
                if tool_message is None:
                    raise RuntimeError(f"tool call {call.id} has no tool message")
                content = tool_message.content
                if call.undo_state == UNDO_UNDONE:
                    content = f"{content}\n\n{UNDONE_NOTE}"
                out.append(
                    ToolMessage(
                        content=content,
                        tool_call_id=call.id,
                        status="error" if tool_message.tool_status == "error" else "success",
                    )
                )
    return out


def _shown_args(call: ToolCall) -> dict[str, object]:
    args = call.executed_args if call.executed_args is not None else call.proposed_args
    return args if isinstance(args, dict) else {}


def _provider_name(registry: ToolRegistry, name: str) -> str:
    tool = registry.get(name)
    return tool.provider_name if tool else provider_safe_name(name)
