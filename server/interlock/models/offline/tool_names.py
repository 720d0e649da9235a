"""Provider-safe names of the tools the offline model calls, and the skill behind each.

The offline model only ever plans calls to these built-in tools (plus any tool named in "use
<tool> with {json}"); :data:`TOOL_SKILLS` says which skill to load when one is not bound yet.
"""

from __future__ import annotations

from collections.abc import Mapping

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

DOTTED_NAMES: dict[str, str] = {
    SUGGESTIONS: "suggestions",
    NOTES_LIST: "notes.list",
    NOTES_ADD: "notes.add",
    NOTES_DELETE: "notes.delete",
    BROWSER_TIME_ZONE: "browser.time_zone",
    DOCUMENTS_LIST: "documents.list",
    DOCUMENTS_WRITE: "documents.write",
    LOAD_SKILL: "load_skill",
    ASK_FORM: "ask.form",
    ASK_CHOICE: "ask.choice",
    ASK_CONFIRM: "ask.confirm",
}
"""The registered (dotted) name of each built-in tool above, by provider name."""


def spoken_name(name: str, titles: Mapping[str, str] | None = None) -> str:
    """Name a tool for the person: its title in quotes when known, else its dotted name.

    The model only sees provider-safe names (``web_search_fetch``), which are no words for a
    person; the engine gives the offline model each bound tool's title
    (``OfflineChatModel.tool_titles``), and the built-in tools' dotted names are known here.

    Args:
        name: Provider-safe tool name.
        titles: Titles by provider-safe name (the bound tools').

    Returns:
        ``“Fetch a web page”``, else ``` `notes.delete` ```, else the name as given in code
        quotes; "" for an empty name.
    """
    if not name:
        return ""
    title = (titles or {}).get(name)
    if title:
        return f"“{title}”"
    return f"`{DOTTED_NAMES.get(name, name)}`"


ASK_LEADS: dict[str, str] = {
    ASK_FORM: "I'll ask you to fill in a form.",
    ASK_CHOICE: "I'll ask you to choose.",
    ASK_CONFIRM: "I'll ask you to confirm.",
}
"""What the offline model says before asking the person with a tool of the ``ask`` skill."""


def announce(name: str, titles: Mapping[str, str] | None = None, said: str | None = None) -> str:
    """What the offline model says before it calls a tool, in the person's terms.

    A tool's title is a name, not the model's own words: "I'll use “Ask to fill in a form”."
    read as a command. A question to the person says what they will be asked; a titled tool
    is named as a tool; a tool the person named in code (``use web.fetch with {...}``) as
    they wrote it.

    Args:
        name: Provider-safe tool name.
        titles: Titles by provider-safe name (the bound tools').
        said: The dotted name as the person wrote it, if they named the tool.

    Returns:
        ``I'll ask you to fill in a form.``, ``I'll use the “Fetch a web page” tool.``,
        ``I'll use `web.fetch`.``
    """
    if name in ASK_LEADS:
        return ASK_LEADS[name]
    title = (titles or {}).get(name)
    if title:
        return f"I'll use the “{title}” tool."
    return f"I'll use `{said or DOTTED_NAMES.get(name, name)}`."
