"""Provider-safe names of the tools the offline model calls, and the skill behind each.

The offline model only ever plans calls to these built-in tools (plus any tool named in "use
<tool> with {json}"); :data:`TOOL_SKILLS` says which skill to load when one is not bound yet.
"""

from __future__ import annotations

# Built-in tools of the notes and suggestions skills.
SUGGESTIONS = "suggestions"
NOTES_LIST = "notes_list"
NOTES_ADD = "notes_add"
NOTES_DELETE = "notes_delete"

# The browser and documents skills.
BROWSER_TIME_ZONE = "browser_time_zone"
DOCUMENTS_LIST = "documents_list"
DOCUMENTS_WRITE = "documents_write"

# Skill loading and the ask skill.
LOAD_SKILL = "load_skill"
ASK_FORM = "ask_form"
ASK_CHOICE = "ask_choice"
ASK_CONFIRM = "ask_confirm"

TOOL_SKILLS: dict[str, str] = {
    ASK_FORM: "ask",
    ASK_CHOICE: "ask",
    ASK_CONFIRM: "ask",
    "notes_add": "notes",
    "notes_delete": "notes",
    "notes_list": "notes",
    "suggestions": "suggestions",
    BROWSER_TIME_ZONE: "browser",
    DOCUMENTS_LIST: "documents",
    DOCUMENTS_WRITE: "documents",
}
"""The skill that provides each built-in tool the offline model calls (by provider name)."""
