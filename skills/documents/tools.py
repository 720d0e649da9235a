"""Documents: the person's Markdown documents, kept in Interlock's ``documents`` table.

Each document belongs to the owner of the conversation (``ctx.user_id``) and is named by its
title (unique per owner). ``documents.write`` asks first; its card is reviewed in a modal
with the new Markdown (``detail``) and the text it replaces (``previous``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from interlock.storage import Document
from interlock.storage.models import utcnow
from interlock.tools import (
    Confirmation,
    Permission,
    ToolAnnotations,
    ToolContext,
    ToolError,
    ToolResult,
    tool,
)

MAX_TITLE_CHARS = 200
MAX_MARKDOWN_CHARS = 200_000
MAX_LISTED = 200

_TITLE = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_TITLE_CHARS,
    "pattern": r"\S",
    "description": "The document's title, exactly as listed.",
}


def _title(args: dict[str, Any]) -> str:
    return " ".join(str(args["title"]).split())


def _find(ctx: ToolContext, title: str) -> Document | None:
    with ctx.db.session() as session:
        return session.exec(
            select(Document).where(Document.owner_id == ctx.user_id, Document.title == title)
        ).first()


def _lines(text: str) -> str:
    count = len(text.splitlines()) or 1
    return f"{count:,} line{'s' if count != 1 else ''}"


@tool(
    name="documents.list",
    title="List documents",
    description="List the person's documents: one line per document, '<title> (<n> lines)'.",
    output_schema={
        "type": "object",
        "properties": {
            "documents": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "title": {"type": "string"},
                        "chars": {"type": "integer"},
                        "updated_at": {"type": "string"},
                    },
                    "required": ["id", "title", "chars", "updated_at"],
                },
            }
        },
        "required": ["documents"],
    },
    permission=Permission.ALLOW,
    annotations=ToolAnnotations(read_only=True, idempotent=True),
)
def list_documents(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Return the caller's documents, most recently changed first (at most 200)."""
    with ctx.db.session() as session:
        documents = session.exec(
            select(Document)
            .where(Document.owner_id == ctx.user_id)
            .order_by(col(Document.updated_at).desc(), col(Document.id).desc())
            .limit(MAX_LISTED)
        ).all()
    if not documents:
        return ToolResult(text="No documents yet.", data={"documents": []})
    return ToolResult(
        text="\n".join(f"{d.title} ({_lines(d.markdown)})" for d in documents),
        data={
            "documents": [
                {
                    "id": d.id,
                    "title": d.title,
                    "chars": len(d.markdown),
                    "updated_at": d.updated_at.isoformat(),
                }
                for d in documents
            ]
        },
    )


@tool(
    name="documents.read",
    title="Read a document",
    description="Return one of the person's documents (its Markdown) by its exact title.",
    input_schema={
        "type": "object",
        "properties": {"title": _TITLE},
        "required": ["title"],
        "additionalProperties": False,
    },
    permission=Permission.ALLOW,
    annotations=ToolAnnotations(read_only=True, idempotent=True),
)
def read_document(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Return the document's Markdown.

    Raises:
        ToolError: ``not_found`` when the caller has no document with that title.
    """
    title = _title(args)
    document = _find(ctx, title)
    if document is None:
        raise ToolError(
            "not_found",
            f"There is no document titled “{title}”.",
            hint="Call documents.list to see the titles.",
        )
    return ToolResult(
        text=document.markdown, data={"title": document.title, "markdown": document.markdown}
    )


def confirm_write(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
    """The card of ``documents.write``: create or replace, the new text and the old one."""
    title = _title(args)
    markdown = str(args["markdown"])
    existing = _find(ctx, title)
    if existing is None:
        summary = f"Create the document “{title}” ({_lines(markdown)})."
    else:
        summary = (
            f"Replace the text of the document “{title}” "
            f"({_lines(existing.markdown)} now, {_lines(markdown)} after)."
        )
    return Confirmation(
        title="Save a document",
        summary=summary,
        action_label="Save document",
        detail=markdown,
        previous=existing.markdown if existing is not None else None,
    )


@tool(
    name="documents.write",
    title="Save a document",
    description=(
        "Save a Markdown document for the person: a new title creates it, an existing title "
        "replaces its whole text. The person reviews it first. Send the complete text."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "title": {**_TITLE, "description": "The document's title."},
            "markdown": {
                "type": "string",
                "maxLength": MAX_MARKDOWN_CHARS,
                "description": "The whole document, in Markdown.",
            },
        },
        "required": ["title", "markdown"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
    write=True,
    confirmation=confirm_write,
    modal=True,
)
def write_document(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Create or replace the caller's document ``title`` with ``markdown``."""
    title, markdown = _title(args), str(args["markdown"])
    for _attempt in range(2):  # a concurrent create of the same title: update it instead
        with ctx.db.session() as session:
            document = session.exec(
                select(Document).where(Document.owner_id == ctx.user_id, Document.title == title)
            ).first()
            created = document is None
            if document is None:
                document = Document(owner_id=ctx.user_id, title=title, markdown=markdown)
            else:
                document.markdown = markdown
                document.updated_at = utcnow()
            session.add(document)
            try:
                session.commit()
            except IntegrityError:
                session.rollback()
                continue
            session.refresh(document)
            verb = "Created" if created else "Saved"
            return ToolResult(
                text=f"{verb} the document “{title}” ({_lines(markdown)}).",
                data={"id": document.id, "title": title, "created": created},
            )
    raise ToolError("failed", f"The document “{title}” could not be saved; try again.")
