"""Bench part (b)'s paired drive (bench/storage_growth.py): a new conversation on a new database
takes its first turns alternately with the long conversation's last ones.

Run in a child process: the bench's modules are imported from ``bench/`` by their plain names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = """
import json, sys, tempfile
from pathlib import Path
from common import run_async
from storage_growth import interlock_growth

order = []
import storage_growth
original = storage_growth._Drive.turn

async def turn(self, k):
    order.append((self.db_path.name, k))
    return await original(self, k)

storage_growth._Drive.turn = turn
with tempfile.TemporaryDirectory() as tmp:
    records, fresh = run_async(interlock_growth(Path(tmp), 5, paired=2))
print(json.dumps({
    "long": [r.turn for r in records],
    "fresh": [r.turn for r in fresh],
    "fresh_wal": [r.wal_bytes for r in fresh],
    "order": order,
}))
"""


def test_the_fresh_conversation_alternates_with_the_long_ones_last_turns() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), str(ROOT / "bench")])}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        cwd=ROOT / "bench",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["long"] == [1, 2, 3, 4, 5]
    assert out["fresh"] == [1, 2]
    assert all(wal > 0 for wal in out["fresh_wal"])  # its own database, measured
    assert [tuple(step) for step in out["order"]] == [
        ("interlock.db", 1),
        ("interlock.db", 2),
        ("interlock.db", 3),
        ("fresh.db", 1),
        ("interlock.db", 4),
        ("fresh.db", 2),
        ("interlock.db", 5),
    ]
