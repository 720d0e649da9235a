"""The offline model says calls cancelled alike once: two ``notes.add`` calls closed by
turning AI actions off read "Both requests to add a note were cancelled (...)", where the
same sentence was said twice; calls cancelled for different reasons are each said."""

from __future__ import annotations

from support.offline_model import history_after, offline_model, stream_of

OFF = "Cancelled: Ada's AI actions were turned off by the person."


async def test_two_calls_cancelled_by_switching_actions_off_are_said_once() -> None:
    history = history_after(
        "add a note milk and a note bread",
        [("notes_add", {"text": "milk"}), ("notes_add", {"text": "bread"})],
        [(OFF, "error"), (OFF, "error")],
    )
    _, reply = await stream_of(offline_model(), history)
    assert reply.text == (
        "Both requests to add a note were cancelled (Ada's AI actions were turned off by "
        "you). Nothing was done."
    )


async def test_three_alike_are_said_once_and_a_different_outcome_on_its_own() -> None:
    history = history_after(
        "add three notes and delete note 2",
        [
            ("notes_add", {"text": "a"}),
            ("notes_delete", {"id": 2}),
            ("notes_add", {"text": "b"}),
            ("notes_add", {"text": "c"}),
        ],
        [(OFF, "error"), ("Cancelled: run cancelled.", "error"), (OFF, "error"), (OFF, "error")],
    )
    _, reply = await stream_of(offline_model(), history)
    assert reply.text.split("\n\n") == [
        "All 3 requests to add a note were cancelled (Ada's AI actions were turned off by "
        "you). Nothing was done.",
        "The request to delete the note was cancelled (run cancelled). Nothing was done.",
    ]
