"""Provider-safe names of the tools the offline model calls, and the skill behind each.

The offline model only ever plans calls to these built-in tools (plus any tool named in "use
<tool> with {json}"); :data:`TOOL_SKILLS` says which skill to load when one is not bound yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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

BUILTIN_TITLES: dict[str, str] = {
    SUGGESTIONS: "Suggestions",
    NOTES_LIST: "List notes",
    NOTES_ADD: "Add a note",
    NOTES_DELETE: "Delete a note",
    BROWSER_TIME_ZONE: "Read your time zone",
    DOCUMENTS_LIST: "List documents",
    DOCUMENTS_WRITE: "Save a document",
    ASK_FORM: "Ask to fill in a form",
    ASK_CHOICE: "Ask to choose",
    ASK_CONFIRM: "Ask to confirm",
}
"""The title of each built-in tool above (as its skill registers it), for a tool not bound."""

SKILL_WORDS: dict[str, str] = {
    "ask": "the tools to ask you questions",
    "notes": "the notes tools",
    "suggestions": "the suggestions tool",
    "browser": "the tools that read from your browser",
    "documents": "the documents tools",
}
"""The built-in skills in the person's words (a skill's name is a code name)."""


def skill_words(skill: str) -> str:
    """Name a skill for the person: what it brings, not its code name.

    Args:
        skill: The skill's name (``ask``, ``web_search``).

    Returns:
        ``the tools to ask you questions`` for a built-in skill, else ``the web search tools``.
    """
    if skill in SKILL_WORDS:
        return SKILL_WORDS[skill]
    words = " ".join(skill.replace("_", " ").replace("-", " ").split())
    return f"the {words} tools" if words else "the tools for that"


def skills_words(skills: Sequence[str]) -> str:
    """Name several skills for the person (``the notes tools and the documents tools``)."""
    named = [skill_words(s) for s in skills]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"


def spoken_name(name: str, titles: Mapping[str, str] | None = None) -> str:
    """Name a tool for the person: its title in quotes when known, else its dotted name.

    A built-in tool not bound here is named by its title too (:data:`BUILTIN_TITLES`).

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
    title = (titles or {}).get(name) or BUILTIN_TITLES.get(name)
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
