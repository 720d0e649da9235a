"""Notes: the person's short personal notes, kept through ``ctx.store`` (namespace ``notes``).

Each note is the value ``{"text": ...}`` under its id; it belongs to the owner of the
conversation (``ctx.user_id``), so a person never sees or deletes another person's notes. An
add or a delete is one undo step for the person (Undo on the call's card).
"""

from __future__ import annotations

from typing import Any

from interlock.tools import (
    Confirmation,
    Permission,
    ToolAnnotations,
    ToolContext,
    ToolError,
    ToolResult,
    tool,
)

MAX_NOTE_CHARS = 2000
"""Longest note, in characters."""

QUOTE_CHARS = 80
"""Longest note text quoted in a one-sentence summary; the whole text is in ``detail``."""
NAMESPACE = "notes"


def _one_line(text: str) -> str:
    """Return ``text`` with its line breaks turned into spaces, for one-line listings."""
    return " ".join(text.splitlines())


def _quoted(text: str) -> str:
    """``“buy milk”``: the note on one line, cut past :data:`QUOTE_CHARS` with "…"."""
    line = " ".join(_one_line(text).split())
    return f"“{line if len(line) <= QUOTE_CHARS else line[: QUOTE_CHARS - 1] + '…'}”"


def _note_text(note_id: int, ctx: ToolContext) -> str | None:
    """Return the text of note ``note_id`` of ``ctx.user_id``; None when there is no such note
    or another person owns it (the two cases read the same)."""
    value = ctx.store.get(NAMESPACE, str(note_id))
    return str(value.get("text", "")) if isinstance(value, dict) else None


def _owned_note(note_id: int, ctx: ToolContext) -> str:
    """Return the text of note ``note_id`` of ``ctx.user_id``.

    Raises:
        ToolError: ``not_found`` when no such note exists or another person owns it (the two
            cases read the same, so ids of others' notes are not revealed).
    """
    text = _note_text(note_id, ctx)
    if text is None:
        raise ToolError(
            "not_found",
            f"There is no note #{note_id}.",
            hint="Call notes.list to see the ids of the person's notes.",
        )
    return text


def _label(note_id: int | str, text: str) -> str:
    """Words naming a note for the undo step: ``note #3: “buy milk”``."""
    return f"note #{note_id}: {_quoted(text)}"


def confirm_add(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
    """The card of ``notes.add``: the note's text, action "Add note"."""
    text = str(args["text"]).strip()
    return Confirmation(
        title="Add a note",
        summary=f"Add a note: {_quoted(text)}",
        action_label="Add note",
        detail=text if "\n" in text or len(text) > QUOTE_CHARS else None,
    )


def check_delete(args: dict[str, Any], ctx: ToolContext) -> None:
    """The note must exist and be the person's (``not_found`` otherwise: no card)."""
    _owned_note(int(args["id"]), ctx)


def confirm_delete(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
    """The card of ``notes.delete``: names the note's text as it is now; says how to take it
    back. A waiting card is described again when it is read, so a note changed or deleted
    since the call was proposed shows its new text, or that it no longer exists."""
    note_id = int(args["id"])
    text = _note_text(note_id, ctx)
    if text is None:
        return Confirmation(
            title="Delete a note",
            summary=f"Delete note #{note_id} (this note no longer exists).",
            action_label="Delete",
        )
    return Confirmation(
        title="Delete a note",
        # Read by the owner and by approvers, who cannot undo: say it can be, not by whom.
        summary=f"Delete note #{note_id}: {_quoted(text)}.",
        undo="It can be undone afterwards.",  # said only while the call may still run, or ran
        action_label="Delete",
        detail=text if "\n" in text or len(text) > QUOTE_CHARS else None,
    )


@tool(
    name="notes.list",
    title="List notes",
    description=(
        "List the person's notes, oldest first, one per line as '#<id>: <text>'. "
        "Use the ids with notes.delete."
    ),
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    output_schema={
        "type": "object",
        "properties": {
            "notes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "text": {"type": "string"}},
                    "required": ["id", "text"],
                },
            }
        },
        "required": ["notes"],
    },
    permission=Permission.ALLOW,
    annotations=ToolAnnotations(read_only=True, idempotent=True),
)
def list_notes(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Return the caller's notes: text ``#3: buy milk`` lines, data ``{"notes": [{id, text}]}``."""
    notes = [(int(key), str(value.get("text", ""))) for key, value in ctx.store.items(NAMESPACE)]
    if not notes:
        return ToolResult(text="No notes yet.", data={"notes": []})
    return ToolResult(
        text="\n".join(f"#{note_id}: {_one_line(text)}" for note_id, text in notes),
        data={"notes": [{"id": note_id, "text": text} for note_id, text in notes]},
    )


@tool(
    name="notes.add",
    title="Add a note",
    description="Save a short note for the person (a reminder, a to-do item, a fact to keep).",
    input_schema={
        "type": "object",
        "properties": {
            "text": {
                "type": "string",
                "title": "Note",
                "minLength": 1,
                "maxLength": MAX_NOTE_CHARS,
                "pattern": r"\S",
                "description": f"The note, 1 to {MAX_NOTE_CHARS} characters, not only spaces.",
            }
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
    write=True,
    annotations=ToolAnnotations(destructive=False),  # it only adds
    confirmation=confirm_add,
)
def add_note(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Store ``args["text"]`` (surrounding spaces removed) as a note of ``ctx.user_id``."""
    text = str(args["text"]).strip()
    note_id = int(ctx.store.add(NAMESPACE, {"text": text}, label=_label("{key}", text)))
    return ToolResult(text=f"Added note #{note_id}: {text}", data={"id": note_id, "text": text})


@tool(
    name="notes.delete",
    title="Delete a note",
    description="Delete one of the person's notes by its id (see notes.list).",
    input_schema={
        "type": "object",
        "properties": {
            "id": {
                "type": "integer",
                "title": "Note number",
                "minimum": 1,
                "description": "The note's id, as in '#3'.",
            }
        },
        "required": ["id"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
    write=True,
    annotations=ToolAnnotations(destructive=True),
    check=check_delete,
    confirmation=confirm_delete,
)
def delete_note(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Delete note ``args["id"]`` of ``ctx.user_id``.

    Raises:
        ToolError: ``not_found`` when no such note exists or another person owns it (the two
            cases read the same, so ids of others' notes are not revealed).
    """
    note_id = int(args["id"])
    text = _owned_note(note_id, ctx)
    if not ctx.store.delete(NAMESPACE, str(note_id), label=_label(note_id, text)):
        raise ToolError(
            "not_found",
            f"There is no note #{note_id}.",
            hint="Call notes.list to see the ids of the person's notes.",
        )
    return ToolResult(text=f"Deleted note #{note_id}: {text}", data={"id": note_id, "text": text})
