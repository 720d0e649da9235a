"""Reading a streamed model message: its text and the tool calls it proposes.

Argument JSON is parsed here from the raw streamed text, never trusted: broken JSON keeps
its raw text and parse error, so the call can fail with ``invalid_args`` and no card.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessageChunk

from interlock.storage.text import clean_json, clean_text


@dataclass
class Proposal:
    """One proposed tool call: provider tool name, parsed args (None when unparsable)."""

    name: str
    args: Any
    raw_args: str
    parse_error: str | None = None


def read_proposals(aggregate: AIMessageChunk | None) -> list[Proposal]:
    """Return the tool calls of a streamed message, in order."""
    if aggregate is None:
        return []
    proposals: list[Proposal] = []
    for chunk in aggregate.tool_call_chunks:
        raw = chunk.get("args") or ""
        name = chunk.get("name") or ""
        try:
            args: Any = json.loads(raw) if raw.strip() else {}
            error = None
        except json.JSONDecodeError as exc:
            args, error = None, str(exc)
        proposals.append(
            Proposal(
                name=clean_text(name),
                args=clean_json(args),
                raw_args=clean_text(raw),
                parse_error=error,
            )
        )
    if not proposals:
        for tool_call in aggregate.tool_calls:
            proposals.append(
                Proposal(
                    name=clean_text(tool_call["name"]),
                    args=clean_json(tool_call["args"]),
                    raw_args=json.dumps(clean_json(tool_call["args"])),
                )
            )
    return proposals


def message_text(content: Any) -> str:
    """Return the text of a message content: a string, or text blocks (Anthropic style).

    NUL characters and lone surrogates are replaced (storage cannot hold them).
    """
    return clean_text(_raw_text(content))


def _raw_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def field_hint(field_errors: list[dict[str, Any]]) -> str | None:
    """Return ``path: message; ...`` for a tool message, or None without errors."""
    if not field_errors:
        return None
    return "; ".join(
        f"{'/'.join(map(str, e['path'])) or '(root)'}: {e['message']}" for e in field_errors
    )
