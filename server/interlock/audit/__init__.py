"""The audit log: one chained record per decision or automatic outcome on a tool call, and per
access token created or revoked (``record_token_event``).

``record_outcome(session, call=..., decider=..., channel=..., outcome=..., reason=...,
proposed_args=..., executed_args=...)`` is called by whoever writes an outcome, on the same
session, before committing (see :mod:`interlock.audit.chain`).
"""

from interlock.audit.chain import (
    ALLOW_DECIDER,
    CLI_DECIDER,
    GENESIS_HASH,
    REPEAT_DECIDER,
    SYSTEM_DECIDER,
    TIMEOUT_DECIDER,
    ChainReport,
    Channel,
    Kind,
    Outcome,
    TokenOutcome,
    record_allowed,
    record_hash,
    record_outcome,
    record_payload,
    record_token_event,
    verify_chain,
)
from interlock.audit.picks import is_pick

__all__ = [
    "ALLOW_DECIDER",
    "CLI_DECIDER",
    "GENESIS_HASH",
    "REPEAT_DECIDER",
    "SYSTEM_DECIDER",
    "TIMEOUT_DECIDER",
    "ChainReport",
    "Channel",
    "Kind",
    "Outcome",
    "TokenOutcome",
    "is_pick",
    "record_allowed",
    "record_hash",
    "record_outcome",
    "record_payload",
    "record_token_event",
    "verify_chain",
]
