"""Map an ``http_json`` tool's JSON answer to a result: the ``response`` part of its spec.

Two shapes (docs/skills-and-employees.md, "Declarative tools"):

* single ``{summary_path?, data_path?}``: ``data`` is the value at ``data_path`` (the whole
  answer without one), ``text`` the value at ``summary_path`` (compact JSON of ``data``
  without one);
* list ``{collection_path, id_path?, title_paths?, url_path?, content_paths?, max_items?}``:
  ``data`` is ``{"items": [{"id", "title", "url", "content"}]}`` for the first ``max_items``
  (default :data:`DEFAULT_MAX_ITEMS`, at most :data:`MAX_ITEMS`) items of the list at
  ``collection_path``; item paths are relative to each item.

Paths are dotted (``a.b.0.c``: object keys, and list indexes as decimal digits); ``""`` is the
whole answer. A declared path that is missing from the answer is ``invalid_output``, never an
empty success.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from interlock.adapters.http_words import unreadable_answer
from interlock.adapters.templating import text_of
from interlock.tools.base import ToolError, ToolResult

DEFAULT_MAX_ITEMS = 10
MAX_ITEMS = 50
SINGLE_KEYS = frozenset({"summary_path", "data_path"})
LIST_KEYS = frozenset(
    {"collection_path", "id_path", "title_paths", "url_path", "content_paths", "max_items"}
)
MAX_ITEM_CHARS = 500
"""Content characters per list item in the result text (the data keeps it all)."""
MAX_TEXT_CHARS = 8000
"""Longest result text built from a response."""
REDACTED = "[redacted]"
_MIN_SECRET_CHARS = 6

Path_ = tuple[str, ...]
"""A parsed dotted response path (``("a", "b", "0")``); ``()`` is the whole response."""


def parse_path(text: str) -> Path_:
    """Parse a dotted path ``a.b.0.c``; ``""`` is the root. Raises ValueError on ``a..b``."""
    if text == "":
        return ()
    segments = tuple(text.split("."))
    if any(not s for s in segments):
        raise ValueError(f"path {text!r} has an empty segment")
    return segments


@dataclass(frozen=True)
class SingleResponse:
    """``response: {summary_path?, data_path?}``: one object (paths relative to the body)."""

    summary_path: Path_ | None
    data_path: Path_


@dataclass(frozen=True)
class ListResponse:
    """``response: {collection_path, id_path?, title_paths?, url_path?, content_paths?,
    max_items}``: a list of items (item paths relative to each item)."""

    collection_path: Path_
    id_path: Path_ | None
    title_paths: tuple[Path_, ...]
    url_path: Path_ | None
    content_paths: tuple[Path_, ...]
    max_items: int


class ResponseSpecError(ValueError):
    """A ``response`` spec that cannot be used.

    Args:
        message: Why, as an English phrase.
        path: Where, inside the ``response`` mapping (``[]``: the mapping itself).
    """

    def __init__(self, message: str, path: list[str | int]) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def parse_response_spec(raw: Any) -> SingleResponse | ListResponse:
    """Check a ``response`` spec (None: the whole answer, as a single result).

    Raises:
        ResponseSpecError: On an unknown key, a bad path or a bad ``max_items``.
    """
    if raw is None:
        return SingleResponse(summary_path=None, data_path=())
    if not isinstance(raw, dict):
        raise ResponseSpecError(f"response must be a mapping, got {type(raw).__name__}", [])
    allowed, what = (
        (LIST_KEYS, "a list response")
        if "collection_path" in raw
        else (SINGLE_KEYS, "a single response (a list needs collection_path)")
    )
    for key in raw:
        if key not in allowed:
            names = ", ".join(sorted(allowed))
            raise ResponseSpecError(f"unknown key {key!r} ({what} takes: {names})", [key])
    if allowed is SINGLE_KEYS:
        return SingleResponse(
            summary_path=_path(raw, "summary_path"), data_path=_path(raw, "data_path") or ()
        )
    max_items = raw.get("max_items", DEFAULT_MAX_ITEMS)
    if isinstance(max_items, bool) or not isinstance(max_items, int):
        max_items = 0
    if not 1 <= max_items <= MAX_ITEMS:
        raise ResponseSpecError(
            f"max_items must be an integer from 1 to {MAX_ITEMS}", ["max_items"]
        )
    return ListResponse(
        collection_path=_path(raw, "collection_path") or (),
        id_path=_path(raw, "id_path"),
        title_paths=_paths(raw, "title_paths"),
        url_path=_path(raw, "url_path"),
        content_paths=_paths(raw, "content_paths"),
        max_items=max_items,
    )


def _path(raw: dict[str, Any], key: str) -> Path_ | None:
    if key not in raw:
        return None
    value = raw[key]
    if not isinstance(value, str):
        raise ResponseSpecError(f"{key} must be a dotted path string", [key])
    try:
        return parse_path(value)
    except ValueError as exc:
        raise ResponseSpecError(str(exc), [key]) from None


def _paths(raw: dict[str, Any], key: str) -> tuple[Path_, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ResponseSpecError(f"{key} must be a list of dotted path strings", [key])
    try:
        return tuple(parse_path(v) for v in value)
    except ValueError as exc:
        raise ResponseSpecError(str(exc), [key]) from None


class _Missing(Exception):
    pass


def resolve(document: Any, path: Path_) -> Any:
    """Follow ``path`` (object keys; list indexes as decimal digits) into ``document``.

    Raises:
        _Missing: When a segment does not exist.
    """
    node = document
    for segment in path:
        if isinstance(node, dict) and segment in node:
            node = node[segment]
        elif isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
            node = node[int(segment)]
        else:
            raise _Missing(".".join(path))
    return node


def map_response(name: str, mapping: SingleResponse | ListResponse, document: Any) -> ToolResult:
    """Map a JSON answer to a result.

    Single: ``data`` = the value at ``data_path``; ``text`` = the value at ``summary_path`` as
    text, or compact JSON of ``data`` (cut at :data:`MAX_TEXT_CHARS`) without one. List:
    ``data`` = ``{"items": [{"id", "title", "url", "content"}]}`` for the first ``max_items``
    items (title: the first non-null of ``title_paths``; content: the non-null values of
    ``content_paths`` joined by newlines; undeclared fields are null); ``text`` = a numbered
    list of title, URL and content (each content cut at :data:`MAX_ITEM_CHARS`).

    Raises:
        ToolError: ``invalid_output`` when a declared path is missing (for a list of
            alternatives: all of them), or the collection is not a list.
    """

    def missing(what: str) -> ToolError:
        return unreadable_answer(name, f"The answer has no {what}.")

    if isinstance(mapping, SingleResponse):
        try:
            data = resolve(document, mapping.data_path)
        except _Missing:
            raise missing(f"'{'.'.join(mapping.data_path)}' (response.data_path)") from None
        if mapping.summary_path is None:
            return ToolResult(text=_cut(text_of(data) or "(empty)"), data=data)
        try:
            summary = resolve(document, mapping.summary_path)
        except _Missing:
            raise missing(f"'{'.'.join(mapping.summary_path)}' (response.summary_path)") from None
        return ToolResult(text=_cut(text_of(summary)), data=data)
    try:
        collection = resolve(document, mapping.collection_path)
    except _Missing:
        raise missing(f"'{'.'.join(mapping.collection_path)}' (response.collection_path)") from None
    if not isinstance(collection, list):
        raise unreadable_answer(name, "The answer's response.collection_path is no list.")
    items: list[dict[str, Any]] = []
    for index, item in enumerate(collection[: mapping.max_items]):
        try:
            items.append(_map_item(mapping, item))
        except _Missing as exc:
            raise missing(f"'{exc}' in item {index}") from None
    lines = [f"{len(items)} of {len(collection)} results:" if items else "No results."]
    for number, item in enumerate(items, 1):
        lines.append(f"{number}. {item['title'] or '(untitled)'}")
        if item["url"]:
            lines.append(f"   {item['url']}")
        if item["content"]:
            content = " ".join(item["content"].split())
            lines.append("   " + _cut(content, MAX_ITEM_CHARS))
    return ToolResult(text=_cut("\n".join(lines)), data={"items": items})


def _map_item(mapping: ListResponse, item: Any) -> dict[str, Any]:
    def first(paths: tuple[Path_, ...]) -> list[Any]:
        found: list[Any] = []
        for path in paths:
            try:
                found.append(resolve(item, path))
            except _Missing:
                continue
        if paths and not found:
            raise _Missing(" or ".join(".".join(p) for p in paths))
        return [v for v in found if v is not None]

    item_id = resolve(item, mapping.id_path) if mapping.id_path is not None else None
    if isinstance(item_id, dict | list):
        item_id = text_of(item_id)
    titles = first(mapping.title_paths)
    contents = first(mapping.content_paths)
    url = resolve(item, mapping.url_path) if mapping.url_path is not None else None
    return {
        "id": item_id,
        "title": text_of(titles[0]) if titles else None,
        "url": text_of(url) if url is not None else None,
        "content": "\n".join(text_of(c) for c in contents) if contents else None,
    }


def _cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def redact(result: ToolResult, secrets: list[str]) -> ToolResult:
    """Return ``result`` with secrets a server echoed back replaced by :data:`REDACTED`.

    Args:
        result: A mapped result.
        secrets: Connection header and parameter values; each, and each of its
            space-separated words (the token of ``Bearer <token>``), is replaced wherever it
            appears in the text, in data strings and in data keys, when it is at least six
            characters long.
    """
    words = {w for s in secrets for w in [s, *s.split()] if len(w) >= _MIN_SECRET_CHARS}
    if not words:
        return result
    ordered = sorted(words, key=len, reverse=True)

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            for word in ordered:
                value = value.replace(word, REDACTED)
            return value
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {clean(k): clean(v) for k, v in value.items()}
        return value

    return ToolResult(text=clean(result.text), data=clean(result.data))
