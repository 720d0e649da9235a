"""The audit chain's head, kept outside the database: what a hash chain alone cannot show.

Each record's hash covers the one before, so :func:`~interlock.audit.chain.verify_chain` shows a
record edited, inserted or removed anywhere before the last one; removing the *last* records
leaves a shorter chain that is still intact. ``interlock audit verify`` therefore prints the
head (``<records>:<hash of the last record>``); a person keeps it elsewhere (``--head-file``,
or a note) and a later ``--expect-head`` compares: the saved head's record must still be
there, unchanged (records added since are fine).
"""

from __future__ import annotations

from sqlmodel import Session, select

from interlock.audit.chain import GENESIS_HASH, ChainReport
from interlock.storage import AuditRecord


def parse_head(text: str) -> tuple[int, str]:
    """Read a head written by :attr:`ChainReport.head` (``<records>:<hash>``).

    Raises:
        ValueError: It is not of that form, in words.
    """
    count, _, digest = text.strip().partition(":")
    if not count.isdigit() or len(digest) != len(GENESIS_HASH) or not _is_hex(digest):
        raise ValueError(
            f"'{text.strip()}' is not a head: expected <records>:<64 hex digits>, as "
            "'interlock audit verify' prints it"
        )
    return int(count), digest.lower()


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


def check_head(session: Session, report: ChainReport, expected: tuple[int, str]) -> str | None:
    """Compare a verified chain with a head saved earlier.

    A hash chain shows a record edited, inserted or removed anywhere before its last record,
    but not its last records removed; a head kept outside the database does.

    Args:
        session: Open session.
        report: What :func:`verify_chain` found (``ok``).
        expected: The saved head (``(records, hash)``, see :func:`parse_head`).

    Returns:
        None when the chain still holds the saved head's record unchanged (records added
        since are fine), else what is wrong, in words.
    """
    count, digest = expected
    if report.records < count:
        return (
            f"the log ends at record {report.records}, but a head saved earlier had record "
            f"{count}: its last {count - report.records} record(s) were removed"
        )
    found = GENESIS_HASH if count == 0 else _hash_of(session, count)
    if found != digest:
        return f"record {count} is not the one of the saved head: the log was rewritten"
    return None


def _hash_of(session: Session, seq: int) -> str | None:
    return session.exec(select(AuditRecord.hash).where(AuditRecord.seq == seq)).first()
