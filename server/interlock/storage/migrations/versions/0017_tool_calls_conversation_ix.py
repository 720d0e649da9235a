"""Indexes that let a model step's reads of a conversation's tool calls touch only their rows.

``(conversation_id, message_id, index)`` replaces ``ix_tool_calls_conversation_id`` (same
leading column): the history's calls after a message, already in call order. ``(conversation_id,
status)``: the open calls a new message closes and the declined calls the loop guard compares.
``(conversation_id, undo_state)``: the undone calls the system prompt lists. Before, each of
these scanned all of the conversation's calls, so a step's cost grew with its length.

Revision ID: 0017_tool_calls_conversation_ix
Revises: 0016_conversations_owner_updated
Create Date: 2026-12-01 23:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0017_tool_calls_conversation_ix"
down_revision: str | Sequence[str] | None = "0016_conversations_owner_updated"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEXES = (
    ("ix_tool_calls_conversation_id_message_id_index", ["conversation_id", "message_id", "index"]),
    ("ix_tool_calls_conversation_id_status", ["conversation_id", "status"]),
    ("ix_tool_calls_conversation_id_undo_state", ["conversation_id", "undo_state"]),
)


def upgrade() -> None:
    """Add the three ``tool_calls`` indexes led by ``conversation_id``; drop the single one."""
    for name, columns in _INDEXES:
        op.create_index(name, "tool_calls", columns, unique=False)
    op.drop_index("ix_tool_calls_conversation_id", table_name="tool_calls")


def downgrade() -> None:
    """Restore ``ix_tool_calls_conversation_id``; drop the three indexes."""
    op.create_index(
        "ix_tool_calls_conversation_id", "tool_calls", ["conversation_id"], unique=False
    )
    for name, _ in reversed(_INDEXES):
        op.drop_index(name, table_name="tool_calls")
