"""Reads sent with the transaction's next round trip (PostgreSQL), their rows read later.

A step that reads several independent things (a conversation's facts, then its calls) pays a
round trip for each on PostgreSQL. :func:`read_soon` queues a read like
:func:`~interlock.storage.write_behind.defer` queues a write: it goes out with whatever the
transaction sends next (a statement, a ``send``, another read's :meth:`Soon.result`), the queue
first, in one round trip; plain reads sent while no transaction is open begin none
(:mod:`~interlock.storage.pg_begin`). On SQLite (no round trips) it runs at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable

from interlock.storage.compiled import Compiled
from interlock.storage.statements import (
    Params,
    Sent,
    connection_of,
    prepare,
    run_sqlite,
    sent,
    tell,
)
from interlock.storage.write_behind import queue_of, send_queue

__all__ = ["Soon", "read_soon"]


class Soon:
    """A read queued by :func:`read_soon`; :meth:`result` gives what it returned."""

    def __init__(self, session: Session, then: Callable[[Sent], None] | None) -> None:
        self._session = session
        self._then = then
        self._sent: Sent | None = None

    def _receive(self, form: Compiled, cursor: Any) -> None:
        self._got(sent(form, cursor))

    def _got(self, result: Sent) -> None:
        self._sent = result
        if self._then is not None:
            self._then(result)

    def result(self) -> Sent:
        """What the read returned; sends the queue (one round trip) if nothing took it yet.

        Raises:
            RuntimeError: The transaction was rolled back before the read went out.
            sqlalchemy.exc.DBAPIError: The round trip failed (as in
                :func:`~interlock.storage.write_behind.send`).
        """
        if self._sent is None:
            send_queue(connection_of(self._session))
        if self._sent is None:
            raise RuntimeError("the queued read was dropped (its transaction was rolled back)")
        return self._sent


def read_soon(
    session: Session,
    statement: Executable,
    params: Params = None,
    then: Callable[[Sent], None] | None = None,
) -> Soon:
    """Queue a read to go out with the transaction's next round trip, on PostgreSQL.

    A read still queued at the ``COMMIT`` goes with it (nobody waits for it then).

    Args:
        session: The session whose transaction reads.
        statement: A prebuilt Core ``SELECT``.
        params: Its parameters.
        then: Called with what it returned as soon as its round trip returns (from the
            statement, ``send`` or ``COMMIT`` it went out with).

    Returns:
        A :class:`Soon` whose ``result()`` is what the read returned.
    """
    soon = Soon(session, then)
    connection = connection_of(session)
    form, parameters, many = prepare(connection, statement, params)
    if connection.dialect.name != "postgresql":
        soon._got(run_sqlite(connection, form, parameters, many))
        return soon
    tell(connection, None, form, parameters, many)
    receive = functools.partial(soon._receive, form)
    queue_of(connection).append((form.sql, parameters, many, receive, False))
    return soon
