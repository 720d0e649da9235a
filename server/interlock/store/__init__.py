"""``ctx.store``: data tools keep for a person, with one undo step per tool call.

See :mod:`interlock.store.tool_store` (reads and writes) and :mod:`interlock.store.undo`.
"""

from interlock.store.tool_store import UNDO_AVAILABLE, UNDO_UNDONE, ToolStore
from interlock.store.undo import read_undone_calls, redo_call, undo_call, undone_calls_note

__all__ = [
    "UNDO_AVAILABLE",
    "UNDO_UNDONE",
    "ToolStore",
    "read_undone_calls",
    "redo_call",
    "undo_call",
    "undone_calls_note",
]
