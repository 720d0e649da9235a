"""build_declarative_tool: spec checks with paths, defaults, and text_template tools."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from interlock.adapters.declarative import (
    HTTP_TIMEOUT_GRACE_S,
    DeclarativeToolError,
    build_declarative_tool,
)
from interlock.tools import Permission, ToolAnnotations, ToolRegistry
from support.https_server import make_settings

SETTINGS = make_settings(connections={"weather": {"headers": {"X-Key": "k-123456"}}})

TEXT: dict[str, Any] = {
    "name": "greet.hello",
    "kind": "text_template",
    "title": "Say hello",
    "description": "Greets someone.",
    "permission": "ALLOW",
    "input_schema": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "query": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": False,
    },
    "template": "Hello {arguments.name}! ({query}) {{literal}}",
}

HTTP: dict[str, Any] = {
    "name": "weather.current",
    "kind": "http_json",
    "title": "Current weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "id": {"type": "string"}},
        "required": ["city"],
    },
    "request": {
        "method": "GET",
        "url": "https://api.example.com/v1/{arguments.id}/current",
        "connection": "weather",
        "params": {"q": "{arguments.city}", "units": "metric"},
    },
    "response": {"summary_path": "current.summary", "data_path": "current"},
}


def build(spec: dict[str, Any], skill: str | None = None, **settings: Any) -> Any:
    skill = skill or ("greet" if spec.get("kind") == "text_template" else "weather")
    chosen = make_settings(**settings) if settings else SETTINGS
    return build_declarative_tool(spec, skill=skill, settings=chosen)


def error_of(spec: dict[str, Any], **settings: Any) -> DeclarativeToolError:
    with pytest.raises(DeclarativeToolError) as caught:
        build(spec, **settings)
    return caught.value


def changed(base: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    """A deep copy of ``base`` with the value at ``path`` replaced (``...`` deletes it)."""
    spec = copy.deepcopy(base)
    node = spec
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return spec


async def test_a_text_template_fills_arguments_query_and_escaped_braces():
    tool = build(TEXT)

    result = await tool.handler({"name": "Ada", "query": "hi"}, None)

    assert result.text == "Hello Ada! (hi) {literal}"
    assert (await tool.handler({"name": 7}, None)).text == "Hello 7! () {literal}"
    assert tool.permission is Permission.ALLOW
    assert tool.write is False
    assert tool.annotations == ToolAnnotations(read_only=True, idempotent=True)


def test_http_json_defaults_and_registration():
    tool = build(HTTP)

    assert tool.permission is Permission.ASK
    assert tool.write is False
    assert tool.annotations == ToolAnnotations(read_only=True, idempotent=True, open_world=True)
    assert tool.timeout_s == SETTINGS.tool_timeout_s + HTTP_TIMEOUT_GRACE_S
    ToolRegistry().register(tool)
    assert tool.provider_name == "weather_current"


def test_a_post_defaults_to_write_and_not_read_only():
    spec = changed(HTTP, ["request", "method"], "POST")
    spec["request"]["body"] = {"city": "{arguments.city}", "tags": ["x", "{arguments.id}"]}

    tool = build(spec)

    assert tool.write is True
    assert tool.annotations == ToolAnnotations(read_only=False, idempotent=False, open_world=True)
    assert tool.hints().destructive is True


@pytest.mark.parametrize(
    ("path", "value", "where", "words"),
    [
        (["colour"], "red", ["colour"], "unknown key 'colour'"),
        (["request", "headers"], {}, ["request", "headers"], "unknown key 'headers'"),
        (["response", "items_path"], "x", ["response", "items_path"], "unknown key"),
        (["annotations"], {"readonly": True}, ["annotations", "readonly"], "unknown key"),
        (["kind"], "python", ["kind"], "kind must be one of http_json, mcp_http, text_template"),
        (["kind"], ..., [], "kind must be one of"),
        (["name"], ..., [], "missing required key 'name'"),
        (["name"], "other.current", ["name"], "must be 'weather' or start with 'weather.'"),
        (["title"], "", ["title"], "title must be a non-empty string"),
        (["permission"], "NEVER", ["permission"], "permission must be ALLOW, ASK or DENY"),
        (["card"], "fancy", ["card"], "card must be one of"),
        (["timeout_s"], 0, ["timeout_s"], "timeout_s must be a number"),
        (["timeout_s"], True, ["timeout_s"], "timeout_s must be a number"),
        (["write"], "yes", ["write"], "write must be true or false"),
        (["input_schema"], ..., [], "missing required key 'input_schema'"),
        (["input_schema"], {"type": "array"}, ["input_schema"], '"type": "object"'),
        (["output_schema"], {"if": {}}, ["output_schema"], "unsupported keyword 'if'"),
        (["request"], ..., [], "missing required key 'request'"),
        (["request", "method"], "PUT", ["request", "method"], "method must be GET or POST"),
        (["request", "connection"], "nope", ["request", "connection"], "'nope' is not configured"),
        (["request", "url"], "http://api.example.com/x", ["request", "url"], "https://"),
        (["request", "url"], "ftp://api.example.com", ["request", "url"], "https://"),
        (["request", "url"], "https://{arguments.city}/x", ["request", "url"], "literal host"),
        (["request", "url"], "https://u:p@example.com/", ["request", "url"], "literal host"),
        (["request", "url"], "https://example.com/x?a=1", ["request", "url"], "query"),
        (["request", "url"], "https://example.com/a/../b", ["request", "url"], "'..'"),
        (["request", "url"], "https://example.com/{arguments.nope}", ["request", "url"], "'nope'"),
        (["request", "params", "q"], "{arguments.town}", ["request", "params", "q"], "'town'"),
        (["request", "params", "q"], ["a", "{city}"], ["request", "params", "q", 1], "placeholder"),
        (["request", "params", "q"], {"a": 1}, ["request", "params", "q"], "object"),
        (["request", "params", "q"], "{query}", ["request", "params", "q"], "{query} names"),
        (["request", "params", "q"], "a } b", ["request", "params", "q"], "single '}'"),
        (["request", "body"], {"a": 1}, ["request", "body"], "only a POST request has a body"),
        (["response", "data_path"], "a..b", ["response", "data_path"], "empty segment"),
        (["response", "data_path"], 3, ["response", "data_path"], "dotted path"),
        (["annotations"], {"read_only": 1}, ["annotations", "read_only"], "true or false"),
    ],
)
def test_a_bad_http_spec_is_refused_with_a_path(path, value, where, words):
    error = error_of(changed(HTTP, path, value))

    assert error.path == where
    assert words in error.message
    assert str(error).startswith(".".join(map(str, where)))


@pytest.mark.parametrize(
    ("response", "where", "words"),
    [
        ({"collection_path": "items", "max_items": 51}, ["response", "max_items"], "1 to 50"),
        ({"collection_path": "items", "max_items": 0}, ["response", "max_items"], "1 to 50"),
        ({"collection_path": "items", "summary_path": "x"}, ["response", "summary_path"], "list"),
        ({"collection_path": "items", "title_paths": "t"}, ["response", "title_paths"], "list"),
        ("items", ["response"], "response must be a mapping"),
    ],
)
def test_a_bad_list_response_is_refused_with_a_path(response, where, words):
    error = error_of(changed(HTTP, ["response"], response))

    assert (error.path, words in error.message) == (where, True)


@pytest.mark.parametrize(
    ("path", "value", "where", "words"),
    [
        (["template"], "Hi {arguments.nick}", ["template"], "'nick'"),
        (["template"], "Hi {name}", ["template"], "unknown placeholder {name}"),
        (["template"], "Hi {arguments.name", ["template"], "never closed"),
        (["template"], ..., [], "missing required key 'template'"),
        (["request"], {}, ["request"], "unknown key 'request'"),
        (["output_schema"], {"type": "object"}, ["output_schema"], "returns no data"),
        (["write"], True, ["write"], "changes nothing"),
    ],
)
def test_a_bad_text_template_spec_is_refused_with_a_path(path, value, where, words):
    error = error_of(changed(TEXT, path, value))

    assert error.path == where
    assert words in error.message


def test_query_must_be_declared_like_any_argument():
    spec = changed(TEXT, ["input_schema", "properties", "query"], ...)

    error = error_of(spec)

    assert error.path == ["template"]
    assert "placeholder {query} names argument 'query'" in error.message


def test_a_spec_that_is_not_a_mapping_is_refused():
    with pytest.raises(DeclarativeToolError) as caught:
        build_declarative_tool(["x"], skill="x", settings=SETTINGS)  # type: ignore[arg-type]

    assert caught.value.path == []


def test_a_query_parameter_named_by_the_connection_is_refused():
    settings = {"connections": {"weather": {"params": {"q": "secret-key"}}}}

    error = error_of(HTTP, **settings)

    assert error.path == ["request", "params", "q"]
    assert "set by connection 'weather'" in error.message
    assert "secret-key" not in str(error)


def test_a_missing_connection_lists_configured_names_only():
    error = error_of(HTTP, connections={"other": {"headers": {"X-Key": "top-secret"}}})

    assert error.path == ["request", "connection"]
    assert "INTERLOCK_CONNECTIONS has: other" in error.message
    assert "top-secret" not in str(error)


def test_the_spec_is_not_changed_and_schemas_are_copied():
    spec = copy.deepcopy(HTTP)

    tool = build(spec)

    assert spec == HTTP
    assert tool.input_schema == HTTP["input_schema"]
    assert tool.input_schema is not spec["input_schema"]
