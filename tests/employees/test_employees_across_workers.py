"""Several workers on one PostgreSQL database: an employee an admin creates, changes, disables
or deletes through one worker holds on the other too (``NOTIFY interlock_control``), though
each worker caches the employees."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.settings import Settings
from support.listeners import listening_down
from support.live import LiveServer, two_workers
from support.waits import wait_until


def _slugs(worker: LiveServer) -> list[str]:
    return [e.slug for e in worker.services.employees.list(include_disabled=True)]


async def test_an_employee_changed_on_one_worker_is_changed_on_the_other(
    make_settings: Callable[..., Settings],
) -> None:
    async with two_workers(make_settings()) as (first, second):
        assert "desk" not in _slugs(second)  # the second worker has read (and cached) them

        made = await first.client.post(
            "/api/employees", json={"slug": "desk", "name": "Hal", "pinned_skills": ["notes"]}
        )
        assert made.status_code == 201, made.text
        await wait_until(lambda: "desk" in _slugs(second), timeout_s=30, what="created")
        started = await second.client.post("/api/conversations", json={"employee": "desk"})
        assert started.status_code == 201, started.text

        denied = await first.client.patch(
            "/api/employees/desk", json={"tool_overrides": {"notes.add": "DENY"}}
        )
        assert denied.status_code == 200, denied.text
        directory = second.services.employees
        await wait_until(
            lambda: directory.require("desk").tool_overrides == {"notes.add": "DENY"},
            timeout_s=30,
            what="changed",
        )

        disabled = await first.client.patch("/api/employees/assistant", json={"disabled": True})
        assert disabled.status_code == 200, disabled.text
        await wait_until(
            lambda: directory.require("assistant").disabled, timeout_s=30, what="disabled"
        )

        assert (await first.client.delete("/api/employees/desk")).status_code == 204
        await wait_until(lambda: "desk" not in _slugs(second), timeout_s=30, what="deleted")
        assert (await second.client.get("/api/employees/desk")).status_code == 404


async def test_an_employee_changed_while_a_worker_was_not_listening_is_changed_there_after(
    make_settings: Callable[..., Settings], db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with two_workers(make_settings()) as (first, second):
        directory = second.services.employees
        assert not directory.require("assistant").disabled  # read (and cached) there
        async with listening_down(db_url, monkeypatch, second):
            disabled = await first.client.patch("/api/employees/assistant", json={"disabled": True})
            assert disabled.status_code == 200, disabled.text
            made = await first.client.post(
                "/api/employees", json={"slug": "desk", "name": "Hal", "pinned_skills": ["notes"]}
            )
            assert made.status_code == 201, made.text
        # Listening again: the notices sent meanwhile are lost, the cache is not kept.
        assert directory.require("assistant").disabled
        assert "desk" in _slugs(second)
