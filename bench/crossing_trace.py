"""Where the time of (d)'s decision → event on the other worker goes, part by part.

    python bench/crossing_trace.py [--active 20] [--idle 20] [--duration 15]

Two server processes on a fresh PostgreSQL database, as in (d): conversation *k* holds its
stream on worker *k* % 2 and posts to the other. Each server runs with trace hooks (this
script's ``--serve`` mode: the app is built as ``bench/server.py`` builds it, then a few
functions are wrapped) that stamp, with ``time.perf_counter()`` (``CLOCK_MONOTONIC``, one
clock for every process of the machine), each decision on its way:

deciding worker: the decision POST enters the app (``asgi``), its route runs (``route``),
its transaction starts on a database thread (``thread``), commits (``commit``), its
``NOTIFY`` starts and returns (``notify``, ``notified``), the route has its result back on
the event loop (``returned``), the answer's headers go out (``answered``);
stream's worker: the listening thread takes the notification (``taken``), has read the rows
(``read``), the event loop delivers them (``delivered``), the frame is handed to the
server (``written``); client: the POST sent (``sent``), its answer (``answer``), the
frame parsed (``arrived``).

Also per decision transaction: its thread's CPU time against its wall time (the rest is
waiting: round trips, locks, the GIL). Prints each step's p50 / p95 over the decisions made
in the window, and the load average. A tool for reading where the time goes, not part of
``make bench``; wall times on a shared machine are noisy (compare parts within one run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import server as server_module
from common import ASK_PROMPT, percentile, run_async
from load_client import LoadClient
from server import ServerProcess, postgres_database

STEPS = [
    ("sent", "asgi"),
    ("asgi", "route"),
    ("route", "thread"),
    ("thread", "commit"),
    ("commit", "notify"),
    ("notify", "notified"),
    ("notified", "taken"),
    ("commit", "taken"),
    ("taken", "read"),
    ("read", "delivered"),
    ("delivered", "written"),
    ("written", "arrived"),
    ("sent", "arrived"),
    ("commit", "returned"),
    ("returned", "answered"),
    ("sent", "answer"),
]
_DECIDED = re.compile(rb"id: (\d+)\r\nevent: tool_call\.decided")


# -- the server side (--serve) ----------------------------------------------------------------
def serve(database_url: str, port: int, out: Path) -> None:
    """Run one traced server until SIGINT; write its stamps to ``out`` (JSON lines)."""
    import uvicorn
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    import interlock.api.routers.tool_calls as routes
    import interlock.engine.decisions as decisions
    import interlock.streaming.listener as listener
    from interlock.api.app import create_app
    from interlock.storage.pg_notify import Notifier
    from server import bench_settings

    stamps: list[tuple[str, str, float]] = []
    local = threading.local()
    now = time.perf_counter

    def stamp(step: str, key: str) -> None:
        stamps.append((step, key, now()))

    route_decide = routes.decide

    async def traced_decide(engine: Any, user_id: str, call_id: str, *args: Any) -> Any:
        stamp("route", call_id)
        out = await route_decide(engine, user_id, call_id, *args)
        stamp("returned", call_id)
        return out

    routes.decide = traced_decide  # type: ignore[assignment]
    record = decisions._record

    def traced_record(engine: Any, user_id: str, call_id: str, *args: Any) -> Any:
        stamp("thread", call_id)
        local.call, cpu, wall = call_id, time.thread_time(), now()
        try:
            return record(engine, user_id, call_id, *args)
        finally:
            local.call = None
            stamps.append(("cpu", call_id, time.thread_time() - cpu))
            stamps.append(("wall", call_id, now() - wall))

    decisions._record = traced_record  # type: ignore[assignment]

    @event.listens_for(Session, "after_commit")
    def _committed(_session: Any) -> None:
        call = getattr(local, "call", None)
        if call is not None:
            stamp("commit", call)

    send = Notifier.send

    def traced_send(self: Notifier, channel: str, payloads: list[str]) -> bool:
        call = getattr(local, "call", None)
        if call is not None:
            stamp("notify", call)
        try:
            return send(self, channel, payloads)
        finally:
            if call is not None:
                stamp("notified", call)

    Notifier.send = traced_send  # type: ignore[method-assign]
    handle = listener.EventListener._handle

    def traced_handle(self: Any, connection: Any, batch: list[tuple[str, str]]) -> None:
        taken = now()
        keys = []
        for channel, payload in batch:
            parts = payload.split("\n", 1)[0].split(" ")
            if channel == listener.EVENTS_CHANNEL and len(parts) == 4:
                keys += [f"{parts[1]}:{s}" for s in range(int(parts[2]), int(parts[3]) + 1)]
        handle(self, connection, batch)
        read = now()
        stamps.extend(("taken", key, taken) for key in keys)
        stamps.extend(("read", key, read) for key in keys)

    listener.EventListener._handle = traced_handle  # type: ignore[method-assign]
    deliver = listener.EventListener._deliver

    def traced_deliver(self: Any, events: dict[str, list[Any]], controls: Any) -> None:
        at = now()
        stamps.extend(("delivered", f"{c}:{e.seq}", at) for c, rows in events.items() for e in rows)
        deliver(self, events, controls)

    listener.EventListener._deliver = traced_deliver  # type: ignore[method-assign]
    app = create_app(bench_settings(database_url, port))

    async def traced_app(scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.endswith("/decision") and scope["method"] == "POST":
            call_id = path.split("/")[-2]
            stamp("asgi", call_id)

            async def send_answer(message: Any) -> None:
                if message["type"] == "http.response.start":
                    stamp("answered", call_id)
                await send(message)

            await app(scope, receive, send_answer)
        elif path.endswith("/events"):
            conversation_id = path.split("/")[-2]

            async def send_frames(message: Any) -> None:
                if message["type"] == "http.response.body":
                    for match in _DECIDED.finditer(message.get("body", b"")):
                        stamp("written", f"{conversation_id}:{int(match.group(1))}")
                await send(message)

            await app(scope, receive, send_frames)
        else:
            await app(scope, receive, send)

    config = uvicorn.Config(traced_app, host="127.0.0.1", port=port, log_level="warning")
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass
    finally:
        out.write_text("\n".join(json.dumps(s) for s in stamps))


# -- the load side ------------------------------------------------------------------------------
async def drive(urls: list[str], active: int, idle: int, duration_s: float) -> list[dict[str, Any]]:
    """Cycle ``active`` conversations across the two workers; return each decision's client
    stamps with its call id and ``conversation:seq`` of its ``tool_call.decided``."""
    clients = [LoadClient(url, max_connections=2 * active + 16) for url in urls]
    rows: list[dict[str, Any]] = []
    stop = time.perf_counter() + duration_s
    streams = []
    for j in range(idle):
        stream = clients[j % 2].events(await clients[j % 2].new_conversation())
        await stream.__aenter__()
        streams.append(stream)

    async def worker(k: int) -> None:
        reader, poster = clients[k % 2], clients[(k + 1) % 2]
        conversation_id = await poster.new_conversation()
        async with reader.events(conversation_id) as stream:
            i = 0
            while time.perf_counter() < stop:
                i += 1
                await poster.say(conversation_id, ASK_PROMPT.format(name=f"t{k}-{i}"))
                paused = (await stream.until("run.paused"))[-1]
                call_id = paused.data["pending"][0]
                row: dict[str, Any] = {"call": call_id, "warm": i <= 2}
                row["sent"] = time.perf_counter()

                async def approve(call_id: str = call_id, row: dict[str, Any] = row) -> None:
                    await poster.approve(call_id)
                    row["answer"] = time.perf_counter()

                task = asyncio.create_task(approve())
                while True:
                    frame = await stream.next()
                    if frame.type == "tool_call.decided":
                        row["arrived"], row["key"] = frame.at, f"{conversation_id}:{frame.seq}"
                    if frame.type == "run.completed":
                        break
                await task
                rows.append(row)

    try:
        await asyncio.gather(*(worker(k) for k in range(active)))
    finally:
        for stream in streams:
            await stream.__aexit__(None, None, None)
        for client in clients:
            await client.aclose()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--active", type=int, default=20)
    parser.add_argument("--idle", type=int, default=20)
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument(
        "--server-path", default=None, help="serve the interlock package found here (a server/)"
    )
    parser.add_argument("--serve", nargs=3, metavar=("URL", "PORT", "OUT"))
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), Path(args.serve[2]))
        return
    server_module.START_TIMEOUT_S = 180.0  # a start on a machine shared by busy neighbours
    with postgres_database("interlock_trace") as url, tempfile.TemporaryDirectory() as tmp:
        servers, outs = [], []
        for n in range(2):
            env = {"PYTHONPATH": args.server_path} if args.server_path else None
            server = ServerProcess(url, env=env)
            outs.append(Path(tmp) / f"trace{n}.jsonl")
            server.command = [sys.executable, __file__, "--serve", url, str(server.port)]
            server.command.append(str(outs[-1]))
            servers.append(server)
        load = os.getloadavg()[0]
        try:
            for server in servers:
                server.start()
            rows = run_async(drive([s.url for s in servers], args.active, args.idle, args.duration))
        finally:
            for server in servers:
                server.stop()
        report(rows, outs, load, os.getloadavg()[0])


def report(
    rows: list[dict[str, Any]], outs: list[Path], load_start: float, load_end: float
) -> None:
    by_call: dict[str, dict[str, float]] = {}
    by_key: dict[str, dict[str, float]] = {}
    for out in outs:
        for line in out.read_text().splitlines():
            step, key, at = json.loads(line)
            (by_key if ":" in key else by_call).setdefault(key, {}).setdefault(step, at)
    timed = []
    for row in rows:
        if row["warm"] or "key" not in row:
            continue
        timed.append({**row, **by_call.get(row["call"], {}), **by_key.get(row["key"], {})})
    print(f"{len(timed)} decisions; load average {load_start:.1f} -> {load_end:.1f}")
    for start, end in STEPS:
        spans = [(t[end] - t[start]) * 1e3 for t in timed if start in t and end in t]
        print(
            f"  {start:>9} -> {end:<9} p50 {percentile(spans, 50):7.1f}  "
            f"p95 {percentile(spans, 95):7.1f} ms  (n={len(spans)})"
        )
    cpu = [t["cpu"] * 1e3 for t in timed if "cpu" in t]
    wall = [t["wall"] * 1e3 for t in timed if "wall" in t]
    print(
        f"  decision transaction: thread CPU p50 {percentile(cpu, 50):.1f} ms, "
        f"wall p50 {percentile(wall, 50):.1f} p95 {percentile(wall, 95):.1f} ms"
    )


if __name__ == "__main__":
    main()
