"""A field's label for people (the schema's ``title``, else its key in words), and field
errors as sentences naming those labels ("Note number must be a whole number.").

The web client labels fields the same way (``client-web/src/cards/fields/schemaFields.ts``
``humanise``): ``due_date`` is "Due date", ``noteId`` "Note ID", ``id`` "ID".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from interlock.errors import BadRequest

if TYPE_CHECKING:
    from interlock.tools.base import FieldError

__all__ = ["args_refused", "choice_word", "field_label", "field_sentences", "humanise"]

_ACRONYMS = {
    word + plural: word.upper() + plural
    for word in ("id", "url", "uri", "api", "ip", "uuid", "html", "json", "http", "sku", "vat")
    for plural in ("", "s")
}
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_SEPARATORS = re.compile(r"[_\-.\s]+")


def humanise(key: str) -> str:
    """Return ``key`` in words: ``"due_date"`` → ``"Due date"``, ``"api_url"`` → ``"API URL"``."""
    words = [w for w in _SEPARATORS.split(_CAMEL.sub(r"\1 \2", key).lower()) if w]
    if not words:
        return key
    line = " ".join(_ACRONYMS.get(w, w) for w in words)
    return line[0].upper() + line[1:]


def choice_word(schema: Any, value: str) -> str | None:
    """Return how a field's schema lists the option ``value`` to a person, as the web client
    does (``schemaFields.choiceWord``): the ``title`` of its ``oneOf``/``anyOf`` option, else
    the value humanised when the schema lists it (``"pro"`` → ``"Pro"``); None when ``schema``
    offers no such choice."""
    if not isinstance(schema, dict):
        return None
    for alternatives in (schema.get("oneOf"), schema.get("anyOf")):
        if not isinstance(alternatives, list):
            continue
        option = next(
            (o for o in alternatives if isinstance(o, dict) and o.get("const") == value), None
        )
        if option is not None:
            title = option.get("title")
            return title if isinstance(title, str) and title.strip() else humanise(value)
    listed = schema.get("enum")
    return humanise(value) if isinstance(listed, list) and value in listed else None


def field_label(schema: Any, path: Sequence[str | int]) -> str:
    """Return the label of the field at ``path`` (keys and list indexes) in ``schema``.

    The ``title`` of that field's schema when it has one, else its last key humanised; an
    empty string for the whole object (no key in ``path``).
    """
    node = schema
    for part in path:
        if isinstance(part, int):
            node = node.get("items") if isinstance(node, dict) else None
            continue
        props = node.get("properties") if isinstance(node, dict) else None
        node = props.get(part) if isinstance(props, dict) else None
    names = [part for part in path if not isinstance(part, int)]
    if not names:
        return ""
    title = node.get("title") if isinstance(node, dict) else None
    return title.strip() if isinstance(title, str) and title.strip() else humanise(names[-1])


def field_sentences(field_errors: list[dict[str, Any]], schema: Any = None) -> str | None:
    """Return the schema failures as sentences for a person (stored as the call's error).

    One sentence per field, in the order of first mention, from its first message: the
    field's label (its ``title`` in ``schema``, else its last key in words), then the rule
    (``Text must not be empty.``, ``Note is required.``); a failure of the whole object is
    its message as it is.
    None when there are no field errors.
    """
    if not field_errors:
        return None
    by_label: dict[str, str] = {}
    for error in field_errors:
        label = field_label(schema, error["path"])
        if label in by_label:
            continue
        message = str(error["message"]).strip()
        message = message if message.endswith((".", "?", "!")) else f"{message}."
        if not label:
            by_label[label] = message
        elif message.startswith(("Must ", "Is ")):
            by_label[label] = f"{label} {message[0].lower()}{message[1:]}"
        else:
            by_label[label] = f"{label}: {message}"
    return " ".join(by_label.values())


def args_refused(
    lead: str, schema: Any, errors: Sequence[FieldError], **details: Any
) -> BadRequest:
    """The 422 ``invalid_args`` error for arguments a person gave (an edit, a grant's).

    Args:
        lead: What was refused, ending in a colon: ``"The edit cannot be saved:"``.
        schema: The tool's input schema (field titles).
        errors: The failed rules (not empty).
        **details: More ``details`` entries besides ``errors``.

    Returns:
        A :class:`~interlock.errors.BadRequest` whose message is ``lead`` then
        :func:`field_sentences` ("The edit cannot be saved: Note number must be a whole
        number."), with ``details.errors`` (``[{"path", "message", "rule"}]``) for programs.
    """
    listed = [e.as_dict() for e in errors]
    return BadRequest(
        f"{lead} {field_sentences(listed, schema)}",
        code="invalid_args",
        details={**details, "errors": listed},
    )
