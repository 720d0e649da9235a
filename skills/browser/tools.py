"""Browser: tools the person's browser runs (``execution="frontend"``).

The server never runs these handlers: the call waits ``awaiting_client`` until the web client
posts its result to ``POST /api/tool-calls/{id}/result``, where ``data`` is checked against
each tool's ``output_schema`` (the browser is untrusted).
"""

from __future__ import annotations

from typing import Any, NoReturn

from interlock.tools import Confirmation, Permission, ToolAnnotations, ToolContext, ToolError, tool

MAX_SELECTION_CHARS = 100_000
MAX_PURPOSE_CHARS = 300


def _not_on_the_server(args: dict[str, Any], ctx: ToolContext) -> NoReturn:
    """Never called for a frontend tool; raises if it ever is.

    Raises:
        ToolError: ``internal`` always.
    """
    raise ToolError("internal", "This tool runs in the person's browser, not on the server.")


@tool(
    name="browser.time_zone",
    title="Read your time zone",
    description=(
        "Return the person's time zone as set in their browser (an IANA name such as "
        "'Europe/Oslo'). Runs at once in their browser."
    ),
    output_schema={
        "type": "object",
        "properties": {
            "time_zone": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "pattern": r"^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$",
            }
        },
        "required": ["time_zone"],
        "additionalProperties": False,
    },
    permission=Permission.ALLOW,
    annotations=ToolAnnotations(read_only=True, idempotent=True),
    execution="frontend",
)
def time_zone(args: dict[str, Any], ctx: ToolContext) -> NoReturn:
    """Runs in the browser: ``Intl.DateTimeFormat().resolvedOptions().timeZone``."""
    _not_on_the_server(args, ctx)


def confirm_selection(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
    """The card of ``browser.selection``: what is shared, and why."""
    purpose = " ".join(str(args.get("purpose") or "").split())
    summary = "Share the text you have selected on this page."
    if purpose:
        # The model words the purpose freely ("to quote it", "I want to cite it", "Summarise
        # it"), so it is quoted as the reason, never spliced into this sentence.
        reason = purpose.rstrip(".")
        summary = f"Share the text you have selected on this page. Reason: {reason}."
    return Confirmation(
        title="Share your selection", summary=summary, action_label="Share selection"
    )


@tool(
    name="browser.selection",
    title="Read your selected text",
    description=(
        "Return the text the person has selected on the Interlock page, after they approve. "
        "Say in 'purpose' why you need it. An empty text means nothing was selected."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "purpose": {
                "type": "string",
                "maxLength": MAX_PURPOSE_CHARS,
                "description": "Why you need the selected text, shown to the person.",
            }
        },
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": MAX_SELECTION_CHARS}},
        "required": ["text"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
    annotations=ToolAnnotations(read_only=True),
    confirmation=confirm_selection,
    execution="frontend",
)
def selection(args: dict[str, Any], ctx: ToolContext) -> NoReturn:
    """Runs in the browser: ``window.getSelection().toString()``."""
    _not_on_the_server(args, ctx)
