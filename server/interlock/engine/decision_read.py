"""What a decision reads before it writes, in one statement.

A decision needs the call, its conversation, whether the call was decided already, the
decider's name (the call's view names its decider), the owner's "AI actions" switch for the
employee, and whether another call of the same message still waits for its person (then the
decision cannot resume the run). Read one by one they cost a round trip each to PostgreSQL,
and under load every round trip costs the database thread a wait for the GIL; here they are
one ``SELECT`` (prebuilt), at the start of the decision's transaction.

Nothing read here is trusted for the writes that follow: the guarded update of
``tool_calls.decided_at`` decides whether the call can still be decided, and the claim of the
conversation re-checks, after it holds the conversation, that nothing of the message waits
(:mod:`interlock.engine.resumes`). ``others_wait`` only spares a claim that would fail.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, bindparam, exists
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from interlock.engine.records import waiting_for_person
from interlock.permissions.switch import on_from_columns
from interlock.storage import ActionSwitch, Conversation, Decision, ToolCall, User

__all__ = ["CallToDecide", "read_call_to_decide"]

_other_call = aliased(ToolCall)
_other_decision = aliased(Decision)
_OTHERS_WAIT = exists(
    select(_other_call.id)
    .outerjoin(_other_decision, col(_other_decision.tool_call_id) == col(_other_call.id))
    .where(
        col(_other_call.message_id) == col(ToolCall.message_id),
        col(_other_call.id) != col(ToolCall.id),
        waiting_for_person(_other_call, _other_decision),
    )
)
"""Another call of the same message waits for its person (correlated with the call read)."""

_CALL_TO_DECIDE = (
    sa_select(
        ToolCall,
        Conversation,
        col(Decision.id),
        col(User.name),
        col(ActionSwitch.changed_by),
        col(ActionSwitch.on_until),
        _OTHERS_WAIT,
    )
    .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
    .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
    .outerjoin(User, col(User.id) == bindparam("user_id"))
    .outerjoin(
        ActionSwitch,
        and_(
            col(ActionSwitch.user_id) == col(Conversation.owner_id),
            col(ActionSwitch.employee) == col(Conversation.employee),
        ),
    )
    .where(col(ToolCall.id) == bindparam("call_id"))
)


@dataclass(frozen=True)
class CallToDecide:
    """A call as its decision finds it.

    Attributes:
        call: The call (loaded in the session).
        conversation: Its conversation (loaded in the session).
        decided: Whether a decision of the call was stored already.
        decider_name: The deciding person's name (None: no such user row).
        actions_on: The owner's "AI actions" switch for the conversation's employee, now.
        others_wait: Whether another call of the same message waits for its person.
    """

    call: ToolCall
    conversation: Conversation
    decided: bool
    decider_name: str | None
    actions_on: bool
    others_wait: bool


def read_call_to_decide(session: Session, call_id: str, user_id: str) -> CallToDecide | None:
    """Read what deciding ``call_id`` needs, in one statement.

    Args:
        session: The decision's session.
        call_id: The call decided.
        user_id: Who decides.

    Returns:
        What was found, or None when there is no such call.
    """
    row = session.execute(_CALL_TO_DECIDE, {"call_id": call_id, "user_id": user_id}).first()
    if row is None:
        return None
    call, conversation, decision_id, name, changed_by, on_until, others_wait = row
    return CallToDecide(
        call=call,
        conversation=conversation,
        decided=decision_id is not None,
        decider_name=None if name is None else str(name),
        actions_on=on_from_columns(changed_by, on_until),
        others_wait=bool(others_wait),
    )
