"""Suggestions: deterministic options for a request for ideas, shaped to the bound tool.

:func:`suggestion_options` picks 3-4 options and a question ("ideas for a name for my cat" ->
Miso, Pixel, ...); :func:`suggestion_args` fits them to the ``suggestions`` tool's schema.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from interlock.models.offline.wording import clean_text

_SUGGESTION_TOPICS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        r"\bname\b.*\b(?:cat|kitten|kitty)\b|\b(?:cat|kitten|kitty)\b.*\bname",
        ("Miso", "Pixel", "Juniper", "Biscuit"),
        "Which name do you like for your cat?",
    ),
    (
        r"\bname\b.*\b(?:dog|puppy|pup)\b|\b(?:dog|puppy|pup)\b.*\bname",
        ("Maple", "Rocket", "Pepper", "Scout"),
        "Which name do you like for your dog?",
    ),
    (
        r"\bname\b.*\b(?:pet|fish|bird|hamster|rabbit|bunny|turtle|parrot)\b",
        ("Nugget", "Comet", "Pebble", "Olive"),
        "Which name do you like for your pet?",
    ),
    (
        r"\bname\b.*\b(?:project|app|company|startup|product|team|business|band|repo|tool|"
        r"service|shop|brand|podcast|blog)\b",
        ("Northwind", "Lumen", "Keystone", "Tidepool"),
        "Which name do you like best?",
    ),
    (
        r"\bnames?\b",
        ("Aurora", "Quill", "Harbor", "Sprout"),
        "Which name do you like best?",
    ),
    (
        r"\b(?:dinner|lunch|breakfast|meal|cook|recipe|eat|food|supper)\b",
        ("Lemon garlic pasta", "Chickpea curry", "Sheet-pan tacos", "Miso soup with rice"),
        "What sounds good to eat?",
    ),
    (
        r"\b(?:gift|present|birthday)\b",
        ("A good book", "A potted plant", "Concert tickets", "A handwritten letter"),
        "Which gift idea do you like?",
    ),
    (
        r"\b(?:trip|travel|vacation|holiday|weekend|getaway|visit)\b",
        ("Lisbon", "Kyoto", "A quiet coastal town", "A mountain cabin"),
        "Where would you like to go?",
    ),
    (
        r"\b(?:colou?rs?|paint)\b",
        ("Teal", "Terracotta", "Sage green", "Navy blue"),
        "Which colour do you like?",
    ),
    (
        r"\b(?:books?|read|novel)\b",
        ("Piranesi", "Project Hail Mary", "A Wizard of Earthsea", "The Left Hand of Darkness"),
        "Which book would you like to read?",
    ),
    (
        r"\b(?:movies?|films?|watch)\b",
        ("Spirited Away", "Arrival", "Paddington 2", "The Grand Budapest Hotel"),
        "Which one would you like to watch?",
    ),
)

_BETWEEN_RE = re.compile(
    r"(?:\b(?:between|among|(?:choose|pick)\s+from)\b\s*:?|\b(?:choose|pick|decide)\s*:)\s*(.+)$",
    re.IGNORECASE | re.DOTALL,
)
_TOPIC_RE = re.compile(r"\b(?:for|about|on|choose|pick|with)\b\s+(.+)$", re.IGNORECASE)
_LEADING_WORDS_RE = re.compile(r"^(?:(?:a|an|the|my|our|some|me|new|good|few)\s+)+", re.IGNORECASE)


def _listed_options(request: str) -> list[str]:
    """Options the person listed themselves ("help me choose between tea, coffee or juice")."""
    found = _BETWEEN_RE.search(request)
    if not found:
        return []
    pieces = re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+", found.group(1))
    items = [clean_text(piece).strip(" ?!") for piece in pieces]
    items = [item for item in items if item]
    return items[:4] if len(items) >= 2 else []


def suggestion_options(request: str) -> tuple[list[str], str]:
    """Derive 3-4 deterministic options and a question from a request for ideas.

    Args:
        request: The person's message.

    Returns:
        ``(options, question)``, e.g. ``(["Miso", "Pixel", "Juniper", "Biscuit"], "Which...")``
        for "ideas for a name for my cat".
    """
    listed = _listed_options(request)
    if listed:
        return listed, "Which one do you choose?"
    for pattern, options, question in _SUGGESTION_TOPICS:
        if re.search(pattern, request, re.IGNORECASE | re.DOTALL):
            return list(options), question
    topic_match = _TOPIC_RE.search(request)
    topic = topic_match.group(1) if topic_match else ""
    topic = _LEADING_WORDS_RE.sub("", topic.strip(" ?!.")).strip() or "option"
    styles = ["Classic", "Modern", "Budget-friendly", "Bold", "Minimalist", "Playful"]
    start = int(hashlib.sha256(topic.lower().encode()).hexdigest(), 16) % len(styles)
    picked = [styles[(start + k) % len(styles)] for k in range(4)]
    return [f"{style} {topic}" for style in picked], "Which one do you prefer?"


def _first_key(
    props: dict[str, Any], preferred: Sequence[str], json_type: str | None = None
) -> str | None:
    for key in preferred:
        if key in props:
            return key
    if json_type is not None:
        for key, schema in props.items():
            if isinstance(schema, dict) and schema.get("type") == json_type:
                return key
    return None


def suggestion_args(
    options: list[str], question: str, parameters: dict[str, Any]
) -> dict[str, Any]:
    """Shape suggestion options to the bound tool's schema.

    Without a usable schema the arguments are ``{"question": ..., "options": [...]}``. With
    one, the array property (``options``/``choices``/``suggestions`` or the first array) gets the
    options, as strings or as ``{"label": ...}`` objects when its items are objects, and a
    string property (``question``/``prompt``/``title``) gets the question.

    Args:
        options: The option labels.
        question: The question shown above the options.
        parameters: The bound tool's parameters schema, ``{}`` when unknown.

    Returns:
        The arguments object.
    """
    props = parameters.get("properties")
    if not isinstance(props, dict) or not props:
        return {"question": question, "options": options}
    list_key = _first_key(props, ("options", "choices", "suggestions", "items"), "array")
    if list_key is None:
        return {"question": question, "options": options}
    list_schema = props[list_key] if isinstance(props[list_key], dict) else {}
    items_schema = list_schema.get("items")
    max_items = list_schema.get("maxItems")
    if isinstance(max_items, int) and max_items > 0:
        options = options[:max_items]
    values: list[Any] = list(options)
    if isinstance(items_schema, dict) and items_schema.get("type") == "object":
        item_props = items_schema.get("properties")
        label_key = "label"
        if isinstance(item_props, dict) and item_props:
            label_key = (
                _first_key(item_props, ("label", "title", "name", "text", "value"), "string")
                or label_key
            )
        values = [{label_key: option} for option in options]
    args: dict[str, Any] = {list_key: values}
    question_key = _first_key(props, ("question", "prompt", "title", "message", "text"))
    if question_key is not None and question_key != list_key:
        args[question_key] = question
    return args
