"""The tool message texts a closed call leaves the model: failed, rejected, answered instead,
expired, cancelled.

These texts are the contract with the model (see docs/architecture.md): each says what
happened to the call and, where it matters, that the model should not retry it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from interlock.storage import ToolCall, ToolCallStatus
from interlock.tools import ToolError, ToolRegistry, is_question
from interlock.tools.base import DETAIL_MARK

logger = logging.getLogger("interlock.engine.calls")  # where a failed call was always logged


def error_text(code: str, message: str, hint: str | None = None, detail: str | None = None) -> str:
    """Tool message text for a failed call: ``Error [code]: message Detail: detail Hint: hint``.

    ``message`` is the person's sentence; ``detail`` (optional) the admin's technical detail
    (:attr:`interlock.tools.ToolError.detail`), so the model still knows what went wrong.
    """
    text = f"Error [{code}]: {message}"
    if detail:
        text = f"{text}{DETAIL_MARK}{detail}"
    return f"{text} Hint: {hint}" if hint else text


def rejected_text(reason: str | None) -> str:
    """Tool message text for a rejected call; tells the model not to retry."""
    why = reason.strip() if reason and reason.strip() else "no reason given"
    return (
        f"Rejected by the person: {why}. They declined this call; do not retry it unless they ask."
    )


ANSWERED_INSTEAD = "Not run: the person answered instead of running"


def answer_text(registry: ToolRegistry, call: ToolCall, answer: str) -> str:
    """Tool message text of a call answered with ``respond``: the answer for a question tool
    (one with ``check_response``); for any other, ``Not run: the person answered instead of
    running “Add a note”: <answer>``, so the model does not take the words for the result."""
    tool = registry.get(call.name)
    if is_question(tool):
        return answer
    title = tool.title if tool is not None and tool.title else call.name
    return f"{ANSWERED_INSTEAD} “{title}”: {answer.strip()}"


def expired_text(
    timeout_s: float, *, question: bool = False, given: int = 0, required: int = 1
) -> str:
    """Tool message text for a call not decided before its deadline.

    Args:
        timeout_s: How long the call waited.
        question: The call asked the person something (a tool answered with ``respond``).
        given: Approvals that arrived (a rule needing several people's approvals).
        required: Approvals the call needed.
    """
    if question:
        return (
            f"Not answered in time: nobody answered within {describe_duration(timeout_s)}. "
            "Do not ask again unless the person brings it up."
        )
    return (
        f"Not approved in time: {who_decided(given, required)} within "
        f"{describe_duration(timeout_s)}, so the call did not run. Do not retry it unless the "
        "person asks for it again."
    )


def who_decided(given: int, required: int) -> str:
    """What arrived before a call expired: ``nobody decided``, or, when some of the several
    approvals it needed did, ``only 1 of 2 approvals arrived``."""
    if given <= 0:
        return "nobody decided"
    return f"only {given} of {required} approvals arrived"


def describe_duration(seconds: float) -> str:
    """``90`` -> ``1 minute 30 seconds``; ``86400`` -> ``24 hours``; ``2`` -> ``2 seconds``."""
    total = max(0, round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{value} {unit}{'' if value == 1 else 's'}"
        for value, unit in ((hours, "hour"), (minutes, "minute"), (secs, "second"))
        if value
    ]
    return " ".join(parts) or "0 seconds"


def cancelled_text(reason: str) -> str:
    """Tool message text for a cancelled call."""
    return f"Cancelled: {reason}."


STOPPED_HINT = "Check whether it took effect before doing it again."


def stopped_message(reason: str) -> str:
    """The person's sentence for a call closed while its tool was running (``reason``: why,
    e.g. ``the run was cancelled``, ``the server stopped``): its effect may have happened, and
    it is never run again.
    With :data:`STOPPED_HINT` it makes the model's text (:func:`error_text`,
    ``outcome_unknown``)."""
    return f"Stopped while running ({reason}): it may have happened. It was not run again."


def failure(exc: ToolError) -> dict[str, Any]:
    """``close_call`` keyword arguments for a call failed with ``exc``.

    The card shows ``exc.message`` (the person's sentence); the admin's ``exc.detail``, when
    there is one, goes to the server log and the model's tool message.
    """
    if exc.detail:
        logger.warning("Tool call failed [%s]: %s (%s)", exc.code, exc.message, exc.detail)
    return {
        "status": ToolCallStatus.failed,
        "text": error_text(exc.code, exc.message, exc.hint, exc.detail),
        "error_code": exc.code,
        "error_message": exc.message,
    }


@dataclass(frozen=True)
class CloseReason:
    """Why open calls were closed, said for each reader (fragments, lowercase, no stop).

    Attributes:
        model: For the model's tool message (``Cancelled: <model>.``), which keeps its own
            words: ``the person sent a new message before deciding``.
        owner: For the call's owner, who did it, on the card and in the API (the call's
            error message): ``you sent a new message``. It starts with ``you`` and says what
            the owner did, so anyone else reads it with the owner's name instead
            (:func:`as_others_read_it`).
        record: For the audit record, read by the owner and by admins beside who decided:
            ``a new message was sent``.
    """

    model: str
    owner: str
    record: str

    @classmethod
    def same(cls, reason: str) -> CloseReason:
        """One fragment for every reader (``the run was cancelled``)."""
        return cls(reason, reason, reason)


_OWNER_SUBJECT = {
    "cancelled": re.compile(r"^()You (?=\w)"),
    "outcome_unknown": re.compile(r"^(Stopped while running \()you (?=\w)"),
}
"""Where a stored :attr:`CloseReason.owner` says "you", by error code: a cancelled call's
sentence starts with it, a stopped one has it in brackets (:func:`stopped_message`)."""


def as_others_read_it(code: str | None, message: str, owner_name: str) -> str:
    """A closed call's error message, written for its owner, as anyone else reads it.

    An approver who opens a call the owner's own act closed reads who did it:
    ``You turned off AI actions for Ada.`` becomes ``Ann turned off AI actions for Ada.``,
    ``Stopped while running (you cancelled the run): ...`` names Ann the same way.

    Args:
        code: The call's error code (only ``cancelled`` and ``outcome_unknown`` calls carry
            a :class:`CloseReason`'s owner words).
        message: The stored error message.
        owner_name: The conversation owner's name.

    Returns:
        The message for someone else; other messages unchanged.
    """
    subject = _OWNER_SUBJECT.get(code or "")
    if subject is None:
        return message
    return subject.sub(lambda found: f"{found.group(1)}{owner_name} ", message, count=1)


def as_sentence(fragment: str) -> str:
    """``you sent a new message`` -> ``You sent a new message.``"""
    text = fragment.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."


def actions_off_reason(name: str) -> CloseReason:
    """Why the waiting write calls of employee ``name`` closed when the person turned its AI
    actions off."""
    return CloseReason(
        model=f"{name}'s AI actions were turned off by the person",
        owner=f"you turned off AI actions for {name}",
        record=f"AI actions for {name} were turned off",
    )


SERVER_STOPPED = "the server stopped"
"""Why a call caught running by a stopped server closed (:func:`stopped_message`)."""
