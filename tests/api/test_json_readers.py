"""Every reader of untrusted JSON survives what Python's reader raises besides a syntax error:
nesting too deep (RecursionError) and a number of thousands of digits (ValueError)."""

from __future__ import annotations

import base64
import json

import pytest

from interlock.api.conversation_pages import decode_cursor
from interlock.api.routers.agui import _refuse_surrogates
from interlock.errors import BadRequest
from interlock.json_words import json_problem
from interlock.models.offline.skill_answers import _loads

DEEP = "[" * 50_000 + "]" * 50_000
LONG_NUMBER = "1" + "0" * 4_999


@pytest.mark.parametrize("text", [DEEP, LONG_NUMBER])
def test_readers_of_untrusted_json_take_it_as_not_json(text: str) -> None:
    assert _refuse_surrogates(text.encode()) is None  # the strict reader's error stands
    assert _loads(text) is None  # a tool result shown as text
    with pytest.raises(BadRequest):
        decode_cursor(base64.urlsafe_b64encode(text[:380].encode()).decode())


def test_each_reason_is_said_in_words_without_the_parsers_terms() -> None:
    reasons = []
    for text in ('{"a": 1', "{a: 1}", '{"a" 1}', "[1 2]", '"a\\q"', "[1,]", DEEP, LONG_NUMBER):
        try:
            json.loads(text)
        except (ValueError, RecursionError) as exc:
            reasons.append(json_problem(exc))
    reasons.append(json_problem(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid")))

    assert len(set(reasons)) == len(reasons) == 9
    for reason in reasons:
        assert not any(word in reason for word in ("Expecting", "delimiter", "recursion", "char"))
