"""A decision of the wrong shape is refused in a person's words: no API field name, and every
kind of decision named (was "Only an edit carries changed details (args); approve or reject
without them.", which left out answering)."""

from __future__ import annotations

from typing import Any

import pytest

from interlock.engine.decision_checks import DecisionIn, check_shape
from interlock.errors import BadRequest


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (
            {"type": "respond", "message": "hi", "args": {"text": "x"}},
            "Only an edit can change the details: to approve, reject or answer, leave them as "
            "they are.",
        ),
        ({"type": "edit"}, "An edit needs the changed details: send them with it."),
        (
            {"type": "edit", "args": {"text": "x"}, "message": "why"},
            "Only turning a call down (the reason) or answering it carries a message: approve "
            "or change the details without one.",
        ),
        (
            {"type": "approve", "message": "fine"},
            "Only turning a call down (the reason) or answering it carries a message: approve "
            "or change the details without one.",
        ),
        (
            {"type": "respond", "message": " "},
            "An answer needs a message: write what you want to say.",
        ),
    ],
)
def test_a_decision_of_the_wrong_shape_is_refused_in_words(
    body: dict[str, Any], words: str
) -> None:
    with pytest.raises(BadRequest) as refused:
        check_shape(DecisionIn(**body))
    assert refused.value.message == words
    assert "args" not in refused.value.message and "respond" not in refused.value.message
