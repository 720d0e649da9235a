"""The placeholder language of declarative tools: parsing, whole values, text rendering."""

from __future__ import annotations

import pytest

from interlock.adapters.templating import (
    MISSING,
    Placeholder,
    TemplateSyntaxError,
    parse_template,
    parse_value,
    text_of,
)


def test_parts_merge_literals_and_read_placeholders():
    template = parse_template("a{{b}}c {arguments.x.y} {query}")

    assert template.parts == ("a{b}c ", Placeholder("x.y"), " ", Placeholder("query"))
    assert template.whole is None


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("{", "never closed"),
        ("}", "single '}'"),
        ("{}", "unknown placeholder {}"),
        ("{arguments.}", "unknown placeholder"),
        ("{args.x}", "unknown placeholder {args.x}"),
        ("{arguments.{x}}", "inside a placeholder"),
    ],
)
def test_bad_templates_are_refused(source, words):
    with pytest.raises(TemplateSyntaxError) as caught:
        parse_template(source)

    assert words in caught.value.message


def test_a_whole_value_placeholder_keeps_the_json_type():
    template = parse_template("{arguments.n}")

    assert template.whole == Placeholder("n")
    assert template.value({"n": [1, 2]}) == [1, 2]
    assert template.value({"n": None}) is None
    assert template.value({}) is MISSING
    assert parse_template(" {arguments.n}").value({"n": 3}) == " 3"


def test_text_rendering():
    assert [text_of(v) for v in ("é", 3, 2.5, True, None, MISSING, {"a": [1]})] == [
        "é",
        "3",
        "2.5",
        "true",
        "",
        "",
        '{"a":[1]}',
    ]


def test_values_drop_missing_members_and_keep_null():
    value = parse_value({"a": "{arguments.a}", "b": ["{arguments.b}", None, 1], "c": "x"}, [])

    assert value.render({"b": None}) == {"b": [None, None, 1], "c": "x"}
    assert [(path, p.key) for path, p in value.placeholders()] == [(["a"], "a"), (["b", 0], "b")]


@pytest.mark.parametrize(
    ("value", "path"),
    [({"a": float("nan")}, ["a"]), ({"a": [1, "{x}"]}, ["a", 1]), ({"a": {2: 1}}, ["a"])],
)
def test_value_errors_carry_their_path(value, path):
    with pytest.raises(TemplateSyntaxError) as caught:
        parse_value(value, [])

    assert caught.value.path == path
