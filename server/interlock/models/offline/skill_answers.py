"""Answers to skill tools' results, and the summary of any other tool's result.

:func:`describe_answer` acknowledges the person's answer to ``ask_form``, ``ask_choice`` and
``ask_confirm`` ("Thanks, Ada! ...", "You picked: A.", "Confirmed: X.") and a loaded skill;
:func:`summarise_result` quotes the start of an unknown tool's result; :func:`action_for` names
what a skill call would have done (for rejections and errors).
"""

from __future__ import annotations

import json
from typing import Any

from interlock.json_words import JSON_ERRORS
from interlock.models.offline.questions import confirmed_what
from interlock.models.offline.tool_names import (
    ASK_CHOICE,
    ASK_CONFIRM,
    ASK_FORM,
    LOAD_SKILL,
    skill_words,
)
from interlock.models.offline.wording import with_stop
from interlock.tools.schema.labels import choice_word

RESULT_SUMMARY_CHARS = 500
"""How much of an unknown tool's result is quoted back."""


_YES = {"yes", "y", "true", "ok", "okay", "sure", "confirm", "confirmed", "approve", "approved"}
_NO = {"no", "n", "false", "cancel", "cancelled", "deny", "denied", "decline", "declined"}
_CHOICE_KEYS = ("choice", "choices", "selected", "selection", "option", "options", "answer")
_CHOICE_KEYS_MORE = ("answers", "value", "values", "picked")
_NAME_KEYS = ("name", "full_name", "first_name", "fullName", "firstName")


def action_for(name: str, args: dict[str, Any]) -> str | None:
    """Describe what a call of a tool from this module would do ("ask you to choose")."""
    if name == LOAD_SKILL:
        skill = args.get("name")
        return f"load {skill_words(skill)}" if isinstance(skill, str) else "load those tools"
    if name == ASK_FORM:
        return "ask you those questions"
    if name == ASK_CHOICE:
        return "ask you to choose"
    if name == ASK_CONFIRM:
        return "ask you to confirm that"
    return None


def _loads(content: str) -> Any:
    try:
        return json.loads(content)
    except JSON_ERRORS:
        return None


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(_show(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _field_value(schema: Any, value: Any) -> str:
    """An answered field's value as the card says it (``formAnswer.answerRows``): a choice
    as the form listed it ("Pro", an option's title, not "pro"), a yes/no as "Yes"/"No"."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    chosen = choice_word(schema, value) if isinstance(value, str) and value else None
    return chosen or _show(value)


def _form_answer(args: dict[str, Any], content: str) -> str:
    answer = _loads(content)
    if not isinstance(answer, dict):
        return f"Thanks — you answered: {with_stop(content)}" if content else "Thanks!"
    fields = args.get("fields")
    props = fields.get("properties") if isinstance(fields, dict) else None
    props = props if isinstance(props, dict) else {}
    keys = [k for k in props if k in answer] + [k for k in answer if k not in props]
    if not keys:
        return "Thanks! You left the form empty, so I have nothing to note."
    lines = []
    for key in keys:
        schema = props.get(key)
        title = schema.get("title") if isinstance(schema, dict) else None
        label = title if isinstance(title, str) and title else key
        lines.append(f"- {label}: {_field_value(schema, answer[key])}")
    name = next(
        (answer[k] for k in _NAME_KEYS if isinstance(answer.get(k), str) and answer[k].strip()),
        None,
    )
    greeting = f"Thanks, {name.strip()}!" if isinstance(name, str) else "Thanks!"
    return f"{greeting} Here is what you told me:\n\n" + "\n".join(lines)


def _picked(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return [str(value)]
    if isinstance(value, list):
        picked = [_show(item) for item in value]
        return [p for p in picked if p.strip()]
    if isinstance(value, dict):
        for key in (*_CHOICE_KEYS, *_CHOICE_KEYS_MORE):
            if key in value:
                found = _picked(value[key])
                if found is not None:
                    return found
    return None


def _choice_answer(content: str) -> str:
    parsed = _loads(content)
    picked = _picked(parsed) if parsed is not None else None
    if picked is None:
        picked = [content.strip()] if content.strip() else []
    if not picked:
        return "You did not pick any of the options, so I will leave it there."
    return f"You picked: {with_stop(', '.join(picked))}"


def _is_yes(content: str) -> bool | None:
    parsed = _loads(content)
    if isinstance(parsed, bool):
        return parsed
    if isinstance(parsed, dict):
        for key in ("confirmed", "confirm", "answer", "value", "ok"):
            if key in parsed:
                value = parsed[key]
                return value if isinstance(value, bool) else _is_yes(str(value))
        return None
    word = content.strip().strip(" .!\"'").casefold()
    if word in _YES:
        return True
    if word in _NO:
        return False
    return None


def _confirm_answer(args: dict[str, Any], content: str) -> str:
    summary = args.get("summary")
    summary_text = summary.strip() if isinstance(summary, str) else ""
    verdict = _is_yes(content)
    if verdict is True:
        return (
            f"Confirmed: {with_stop(confirmed_what(summary_text))}"
            if summary_text
            else "Confirmed."
        )
    if verdict is False:
        return "Not confirmed, nothing was done."
    return f"You answered “{content.strip()}”, which is not a yes, so nothing was done."


def describe_answer(name: str, args: dict[str, Any], content: str) -> str | None:
    """Answer a successful result of a tool from this module.

    Args:
        name: Provider-safe tool name.
        args: The call's arguments.
        content: The tool message text (for ``ask_*``: the person's answer).

    Returns:
        The answer, or None when ``name`` is not one of this module's tools.
    """
    content = content.strip()
    if name == ASK_FORM:
        return _form_answer(args, content)
    if name == ASK_CHOICE:
        return _choice_answer(content)
    if name == ASK_CONFIRM:
        return _confirm_answer(args, content)
    if name == LOAD_SKILL:
        skill = args.get("name")
        return f"I loaded {skill_words(skill)}." if isinstance(skill, str) else "Tools loaded."
    return None


def summarise_result(spoken: str, content: str) -> str:
    """Summarise any other tool's result: ``<tool> returned: <first 500 characters>``.

    Args:
        spoken: The tool named for the person (``“Fetch a web page”``, see
            :func:`~.tool_names.spoken_name`); "" when unknown.
        content: The tool message text.

    Returns:
        The summary.
    """
    tool_name = spoken or "The tool"
    content = content.strip()
    if not content:
        return f"{tool_name} finished with no output."
    snippet = content[:RESULT_SUMMARY_CHARS]
    if len(content) > RESULT_SUMMARY_CHARS:
        snippet += "…"
    return f"{tool_name} returned: {snippet}"
