"""A label made from text (a conversation's title from its first message) is one line of at most
its length, cut at a word when there is one in its second half, and says it was cut with "…"."""

from __future__ import annotations

import pytest

from interlock.text import short_label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Book a table", "Book a table"),
        ("exactly twenty chars", "exactly twenty chars"),
        ("one two three four five six", "one two three four…"),
        ("one two three four, five six", "one two three four…"),
        ("word " + "y" * 30, "word " + "y" * 14 + "…"),
        ("a\nb  c\td " * 10, "a b c d a b c d a b…"),
        ("x" * 17 + "👩\u200d👩\u200d👧", "x" * 17 + "👩…"),
    ],
    ids=[
        "short-kept",
        "at-the-limit-kept",
        "cut-at-a-word",
        "no-comma-before-the-ellipsis",
        "no-word-in-the-second-half",
        "one-line",
        "no-dangling-joiner",
    ],
)
def test_a_long_text_is_cut_at_a_word_and_ends_with_an_ellipsis(text: str, label: str) -> None:
    assert short_label(text, 20) == label
    assert len(short_label(text, 20)) <= 20
