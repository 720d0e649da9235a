"""A closed call's error message written for its owner ("You turned off AI actions for Ada.")
reads with the owner's name for anyone else (an approver)."""

from __future__ import annotations

import pytest

from interlock.engine.cancels import CANCELLED_PAUSE
from interlock.engine.messages import NEW_MESSAGE_REASON
from interlock.engine.tool_texts import (
    actions_off_reason,
    as_others_read_it,
    as_sentence,
    stopped_message,
)


@pytest.mark.parametrize(
    ("reason", "others"),
    [
        (actions_off_reason("Ada"), "Ann turned off AI actions for Ada."),
        (NEW_MESSAGE_REASON, "Ann sent a new message."),
        (CANCELLED_PAUSE, "Ann cancelled the run."),
    ],
)
def test_every_owner_reason_names_the_owner_for_others(reason, others) -> None:
    assert as_others_read_it("cancelled", as_sentence(reason.owner), "Ann") == others
    stopped = stopped_message(reason.owner)
    assert as_others_read_it("outcome_unknown", stopped, "Ann") == stopped_message(
        others.rstrip(".")
    )


def test_other_messages_are_left_as_they_are() -> None:
    assert as_others_read_it("failed", "You need a key.", "Ann") == "You need a key."
    assert as_others_read_it(None, "You turned off AI actions.", "Ann") == (
        "You turned off AI actions."
    )
    text = stopped_message("the server stopped")
    assert as_others_read_it("outcome_unknown", text, "Ann") == text
