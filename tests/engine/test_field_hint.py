"""The field hint of an invalid_args tool message reads as sentences, one entry per field."""

from __future__ import annotations

from interlock.engine.proposals import field_hint
from interlock.tools.schema import field_sentences


def test_a_fields_messages_follow_its_path_once() -> None:
    errors = [
        {"path": ["text"], "message": "Must not be empty."},
        {"path": ["text"], "message": "Must not be blank."},
        {"path": ["level"], "message": "Must be at most 5"},
        {"path": ["text"], "message": "Must not be empty."},
        {"path": [], "message": "Unexpected field 'x'."},
    ]
    assert field_hint(errors) == (
        "text: Must not be empty. Must not be blank. level: Must be at most 5. "
        "(root): Unexpected field 'x'."
    )


def test_no_errors_no_hint() -> None:
    assert field_hint([]) is None


def test_the_persons_sentences_name_each_field_once_in_words() -> None:
    errors = [
        {"path": ["text"], "message": "Must not be empty."},
        {"path": ["text"], "message": "Must not be blank."},
        {"path": ["due_date"], "message": "Must be a valid date"},
        {"path": ["items", 0, "title"], "message": "Missing required property 'title'."},
        {"path": [], "message": "Unexpected property 'x'."},
    ]
    assert field_sentences(errors) == (
        "Text must not be empty. Due date must be a valid date. "
        "Title: Missing required property 'title'. Unexpected property 'x'."
    )
    assert field_sentences([]) is None


def test_the_persons_sentences_use_the_schema_title_else_the_key_in_words() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "title": "Note number"},
            "rows": {"type": "array", "items": {"properties": {"sku_id": {"type": "string"}}}},
        },
    }
    errors = [
        {"path": ["id"], "message": "Must be at least 1."},
        {"path": ["rows", 0, "sku_id"], "message": "Must not be empty."},
        {"path": ["api_url"], "message": "Not a URL."},
    ]
    assert field_sentences(errors, schema) == (
        "Note number must be at least 1. SKU ID must not be empty. API URL: Not a URL."
    )
    assert field_sentences([{"path": ["id"], "message": "Must be 1."}]) == "ID must be 1."


def test_the_persons_sentences_use_the_fields_titles_as_the_card_does() -> None:
    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "title": "Note"},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"due": {"title": "Due by"}}},
            },
            "level": {"type": "integer"},
        },
    }
    errors = [
        {"path": ["text"], "message": "Must have at most 2000 characters."},
        {"path": ["items", 1, "due"], "message": "Must be a valid date"},
        {"path": ["level"], "message": "Must be at most 5"},
        {"path": ["extra"], "message": "Unexpected property 'extra'."},
    ]
    assert field_sentences(errors, schema) == (
        "Note must have at most 2000 characters. Due by must be a valid date. "
        "Level must be at most 5. Extra: Unexpected property 'extra'."
    )
