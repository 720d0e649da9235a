"""Test-only tools for the card browser tests (loaded from ``skills_path``)."""

from __future__ import annotations

from typing import Any

from interlock.tools import Permission, ToolAnnotations, ToolContext, tool

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
"""Markup that must show as text wherever it lands."""


@tool(
    name="cardlab.dump",
    title="Dump a large text",
    description="Return a text of about the given number of kilobytes.",
    input_schema={
        "type": "object",
        "properties": {"kilobytes": {"type": "integer", "minimum": 1, "maximum": 8192}},
        "required": ["kilobytes"],
        "additionalProperties": False,
    },
    permission=Permission.ALLOW,
    annotations=ToolAnnotations(read_only=True, idempotent=True),
)
def dump(args: dict[str, Any], ctx: ToolContext) -> str:
    """Return ``kilobytes`` KiB of numbered lines (64 characters each, line break included)."""
    count = args["kilobytes"] * 1024 // 64
    return "".join(f"line {i:08d} " + "x" * 49 + "\n" for i in range(count))


@tool(
    name="cardlab.publish",
    title="Publish a post",
    description="Publish a post with a headline and a long body.",
    input_schema={
        "type": "object",
        "properties": {
            "headline": {"type": "string", "title": "Headline", "description": "One line."},
            "body": {"type": "string", "title": "Body", "description": "The post, plain text."},
            "tags": {"type": "array", "title": "Tags", "items": {"type": "string"}},
        },
        "required": ["headline", "body"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
    write=True,
)
def publish(args: dict[str, Any], ctx: ToolContext) -> str:
    """Pretend to publish; say what was published."""
    lines = len(args["body"].splitlines())
    return f"Published “{args['headline']}” ({lines} lines)."


@tool(
    name="cardlab.hostile",
    title="Hostile <b>title</b>",
    description=f"A tool whose texts carry markup: {HOSTILE}",
    input_schema={
        "type": "object",
        "properties": {
            "text": {"type": "string", "title": HOSTILE, "description": HOSTILE},
            "link": {"type": "string", "title": "Link"},
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
)
def hostile(args: dict[str, Any], ctx: ToolContext) -> str:
    """Echo the text back (the result is hostile text too)."""
    return f"You sent: {args['text']} [click](javascript:alert(1))"


@tool(
    name="cardlab.memo",
    title="Send a memo",
    description="Send a memo written in Markdown (reviewed in a modal).",
    input_schema={
        "type": "object",
        "properties": {"body": {"type": "string", "title": "Memo"}},
        "required": ["body"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
    write=True,
)
def memo(args: dict[str, Any], ctx: ToolContext) -> str:
    """Pretend to send the memo."""
    return f"Memo sent ({len(args['body'])} characters)."
