"""The offline model tells the person what happened to a call, not what the model was told.

Found in QA: a call nobody approved in time was answered "Sorry — I could not add the note:
Not approved in time: nobody decided within 2 seconds, so the call did not run. Do not retry
it unless the person asks for it again." The tool message's instruction to the model was
said back to the person, about "the person". Every engine text that ends in such an
instruction (expired calls and questions, the loop guard, a rejection) is said without it.
"""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from interlock.engine.cancels import CANCEL_REASON
from interlock.engine.loop_guard import repeat_text
from interlock.engine.messages import NEW_MESSAGE_REASON
from interlock.engine.tool_texts import cancelled_text, error_text, expired_text, rejected_text
from interlock.models.offline.results import describe_result
from interlock.tools import Permission, tool


@tool(name="notes.add", title="Add a note", description="Add a note.", permission=Permission.ASK)
def _add(args: dict[str, object], ctx: object) -> str:
    return "added"


def _said(text: str, status: str = "error") -> str:
    message = ToolMessage(content=text, tool_call_id="call_1", status=status)  # type: ignore[arg-type]
    return describe_result("notes_add", {"text": "milk"}, message, "“Add a note”")


def test_no_reply_repeats_an_instruction_meant_for_the_model() -> None:
    cases = {
        expired_text(2): "Nobody decided within 2 seconds, so the call did not run.",
        expired_text(60, question=True): "Nobody answered within 1 minute.",
        repeat_text(_add): "You already declined this exact call",
        error_text("repeated", repeat_text(_add)): "earlier in this conversation.",
        rejected_text(None): "Nothing was done.",
    }
    for text, kept in cases.items():
        assert "Do not" in text or "do not" in text  # the engine's text does instruct the model
        reply = _said(text)
        assert "do not" not in reply.casefold(), reply
        assert "tell them" not in reply, reply
        assert kept in reply, reply
        assert reply.endswith("."), reply


def test_a_cancelled_call_is_told_to_the_person_as_you() -> None:
    for reason, said in [
        (NEW_MESSAGE_REASON.model, "(you sent a new message before deciding)"),
        (CANCEL_REASON, "(cancelled by you)"),
        (
            "Ada's AI actions were turned off by the person",
            "(Ada's AI actions were turned off by you)",
        ),
    ]:
        reply = _said(cancelled_text(reason))
        assert reply == f"The request to add the note was cancelled {said}. Nothing was done."


def test_a_failure_reads_as_sentences_for_every_kind() -> None:
    """Found in a tryout: "Sorry — I could not add the note: Not approved in time: nobody
    decided…" (two colons, the engine text's label said back). Each kind is two sentences."""
    cases = {
        expired_text(2): (
            "Sorry — I could not add the note. Nobody decided within 2 seconds, so the call "
            "did not run."
        ),
        expired_text(60, question=True): (
            "Sorry — I could not add the note. Nobody answered within 1 minute."
        ),
        repeat_text(_add): (
            "Sorry — I could not add the note. You already declined this exact call (“Add a "
            "note” with the same arguments) earlier in this conversation."
        ),
        error_text("repeated", repeat_text(_add)): (
            "Sorry — I could not add the note. You already declined this exact call (“Add a "
            "note” with the same arguments) earlier in this conversation."
        ),
        error_text("not_found", "There is no note #9.", hint="Call notes.list."): (
            "Sorry — I could not add the note. There is no note #9."
        ),
        "the disk is full": "Sorry — I could not add the note. The disk is full.",
    }
    for text, said in cases.items():
        reply = _said(text)
        assert reply == said, reply
        assert reply.count(":") == 0, reply
