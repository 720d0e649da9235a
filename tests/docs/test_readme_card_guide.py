"""README "Write your own card": its code blocks are the files the client builds and tests."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BLOCK_RE = re.compile(r"^```(\w+) title=(\S+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_the_card_guide_blocks_are_the_files_in_the_repository() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Write your own card\n")
    end = text.index("\n## ", start + 1)
    blocks = {m.group(2): m.group(3) for m in BLOCK_RE.finditer(text[start:end])}
    assert set(blocks) == {
        "client-web/src/custom/weatherAlert.tsx",
        "client-web/src/custom/index.ts",
        "client-web/src/custom/weatherAlert.test.tsx",
    }
    for title, body in blocks.items():
        assert (REPO / title).read_text(encoding="utf-8") == body, f"README block {title} differs"
