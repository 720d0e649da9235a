"""The sweep for runs whose worker is gone reads only the running runs (migration 0018).

``ix_runs_running`` is a partial index (``status = 'running'``) on both backends; the plans of
:data:`~interlock.engine.recovery._RUNNING_RUNS` use it instead of scanning every run.
"""

from __future__ import annotations

import sqlalchemy as sa

from interlock.engine.recovery import _RUNNING_RUNS


def test_the_stale_run_sweep_reads_the_running_runs_index(db_url: str, backend: str) -> None:
    engine = sa.create_engine(db_url)
    try:
        sql = str(_RUNNING_RUNS.compile(dialect=engine.dialect))
        with engine.connect() as connection:
            if backend == "postgresql":
                # An empty table is cheapest read whole; forbid that to see the index is usable.
                connection.exec_driver_sql("SET enable_seqscan = off")
                rows = connection.exec_driver_sql(f"EXPLAIN {sql}").all()
            else:
                rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}").all()
    finally:
        engine.dispose()
    plan = " | ".join(str(row[-1]) for row in rows)
    assert "ix_runs_running" in plan, plan


def test_the_sweep_has_no_parameter_the_partial_index_would_depend_on() -> None:
    compiled = _RUNNING_RUNS.compile()
    assert compiled.params == {}
    assert "runs.status = 'running'" in str(compiled)


def test_runs_have_no_index_of_every_runs_owner(db_url: str) -> None:
    # Migration 0020: runs are read by owner only among the running ones (ix_runs_running); an
    # index of every run's owner was written on each step's hold of the run and grew with runs.
    engine = sa.create_engine(db_url)
    try:
        indexes = sa.inspect(engine).get_indexes("runs")
    finally:
        engine.dispose()
    on_owner = sorted(i["name"] or "" for i in indexes if "owner_id" in i["column_names"])
    assert on_owner == ["ix_runs_running"]
