"""Fencing a run's writes: a step writes only while its worker still owns the run.

A worker whose heartbeat came late may have had its runs taken over by another worker (the
old run ended ``server_restarted``, a new run answers the same message). Every step of the
old run that writes (the model's answer, the claim of a tool call) first takes the run's row
with :func:`hold_run` in its own transaction: once the run was ended, or belongs to another
worker, the step writes nothing and the run's task stops (:class:`RunTakenOver`). On
PostgreSQL the row stays locked until the step commits, so a takeover's repair (which takes
the same row first) and a step never interleave.
"""

from __future__ import annotations

from sqlalchemy import bindparam, update
from sqlmodel import Session

from interlock.errors import InterlockError
from interlock.storage import Run, RunStatus
from interlock.storage.write_behind import defer

_runs = Run.__table__  # type: ignore[attr-defined]
_HOLD = (
    update(_runs)
    .where(
        _runs.c.id == bindparam("run_id"),
        _runs.c.status == str(RunStatus.running),
        _runs.c.owner_id == bindparam("owner_id"),
    )
    .values(owner_id=bindparam("owner_id"))
)
"""A no-op write that locks the run's row while it is running and owned by ``owner_id``."""


class RunTakenOver(InterlockError):
    """The run ended elsewhere or belongs to another worker: this step must write nothing."""

    def __init__(self, run_id: str) -> None:
        super().__init__(
            "Another server process took this run over; this one stopped.",
            code="run_taken_over",
        )
        self.run_id = run_id


def hold_run(session: Session, run_id: str, owner_id: str) -> None:
    """Lock ``run_id``'s row in ``session``'s transaction while ``owner_id`` runs it.

    Args:
        session: The step's session (its transaction keeps the row until it ends).
        run_id: The run.
        owner_id: This worker's id (``Engine.worker_id``, the bus's origin).

    On PostgreSQL the lock goes out with the step's next statement (one round trip,
    :func:`~interlock.storage.write_behind.defer`), which is then the one that raises.

    Raises:
        RunTakenOver: The run is no longer running, or another worker owns it (nothing was
            written; the caller's session rolls back), from here or from the step's next
            statement or commit.
    """

    def check(held: int) -> None:
        if held != 1:
            raise RunTakenOver(run_id)

    defer(session, _HOLD, {"run_id": run_id, "owner_id": owner_id}, check)
