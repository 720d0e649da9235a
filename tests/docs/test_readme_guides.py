"""The README's guides, run word for word: files written, skills checked, served, used.

Each guide section's fenced blocks carry a ``title``: a file path (written under a temporary
folder), ``shell`` (the commands: the ``skills check`` line runs as written, the ``serve`` line
gives the settings the live server starts with) or ``chat`` (the message sent).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from interlock.settings import Settings
from interlock.skills.loader import MODULE_PREFIX
from interlock.skills.manifest import parse_tools_yaml
from support.live import live_server
from support.sse import collect, terminals

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
BLOCK_RE = re.compile(r"^```(\w+) title=(\S+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def guide(heading: str) -> dict[str, str]:
    """Return ``{title: text}`` of the titled blocks in the README section ``heading``."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else None]
    return {m.group(2): m.group(3) for m in BLOCK_RE.finditer(section)}


@pytest.fixture
def _fresh_skill_modules() -> Iterator[None]:
    yield
    for name in [m for m in sys.modules if m.startswith(MODULE_PREFIX)]:
        if name not in (
            f"{MODULE_PREFIX}notes",
            f"{MODULE_PREFIX}suggestions",
            f"{MODULE_PREFIX}ask",
        ):
            sys.modules.pop(name, None)


def write_files(blocks: dict[str, str], root: Path) -> None:
    for title, body in blocks.items():
        if "/" in title:
            path = root / title
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")


def run_check_line(blocks: dict[str, str], root: Path) -> subprocess.CompletedProcess[str]:
    """Run the guide's ``skills check`` line as written, from ``root``."""
    line = next(x for x in blocks["shell"].splitlines() if " skills check " in x)
    # The guide runs Interlock's command from the folder holding the repository.
    command = Path(shlex.split(line)[0])
    assert command.parts[-3:] == (".venv", "bin", "interlock"), command
    assert not command.is_absolute(), command
    venv = root / command.parent.parent
    venv.parent.mkdir(parents=True, exist_ok=True)
    venv.symlink_to(Path(sys.executable).parents[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERLOCK_")}
    return subprocess.run(
        shlex.split(line), cwd=root, env=env, capture_output=True, text=True, timeout=120
    )


def serve_settings(blocks: dict[str, str], root: Path, db_url: str) -> Settings:
    """Settings from the guide's ``serve`` line (its ``INTERLOCK_SKILLS_PATH``)."""
    line = next(x for x in blocks["shell"].splitlines() if x.rstrip().endswith("interlock serve"))
    assignment = shlex.split(line)[0]
    name, _, value = assignment.partition("=")
    assert name == "INTERLOCK_SKILLS_PATH"
    paths = [root / p for p in json.loads(value)]
    return Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=db_url, skills_path=paths, client_dist=root / "no-client"
    )


async def run_guide(title: str, root: Path, db_url: str) -> tuple[dict[str, Any], str]:
    """Follow the guide ``title`` as written, from ``root``: write its files, run its
    ``skills check`` line (which must pass), serve its skills, send its chat line and approve
    the first call. Returns the call as stored after it ran, and what the check printed."""
    blocks = guide(title)
    write_files(blocks, root)
    checked = run_check_line(blocks, root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    async with live_server(serve_settings(blocks, root, db_url)) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, blocks["chat"].strip())
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    stored = [c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]]
    return stored[0], checked.stdout


@pytest.mark.usefixtures("_fresh_skill_modules")
async def test_add_a_tool_in_five_minutes_works_as_written(tmp_path: Path, db_url: str) -> None:
    call, checked = await run_guide("Add a tool in five minutes", tmp_path, db_url)
    assert "1 skill" in checked
    assert call["name"] == "weather.alert"
    assert call["status"] == "succeeded"
    assert call["result_text"] == "Alert level 2 sent for Oslo."


@pytest.mark.usefixtures("_fresh_skill_modules")
async def test_use_a_langchain_tool_works_as_written(tmp_path: Path, db_url: str) -> None:
    call, checked = await run_guide("Use a LangChain tool", tmp_path, db_url)
    assert "1 skill" in checked
    assert call["name"] == "forecast.daily"
    assert call["proposed_args"] == {"city": "Oslo", "days": 2}
    assert call["status"] == "succeeded"
    assert call["result_text"] == "Oslo: sunny for the next 2 days."


def test_a_langchain_tool_without_write_is_caught_by_skills_check(tmp_path: Path) -> None:
    blocks = guide("Use a LangChain tool")
    path = "my-skills/forecast/tools.py"
    blocks[path] = blocks[path].replace(", write=False)", ")")
    write_files(blocks, tmp_path)
    checked = run_check_line(blocks, tmp_path)
    assert checked.returncode != 0
    assert re.search(
        r"tools\.py:\d+: .*write=True .* or write=False", checked.stdout + checked.stderr
    )


@pytest.mark.usefixtures("_fresh_skill_modules")
async def test_write_a_skill_works_as_written(tmp_path: Path, db_url: str) -> None:
    call, _checked = await run_guide("Write a skill", tmp_path, db_url)
    assert call["name"] == "greeter.hello"
    assert call["proposed_args"] == {"name": "Ada"}
    assert call["result_text"] == "Hello Ada, welcome aboard!"


def test_a_broken_guide_file_is_caught_by_skills_check(tmp_path: Path) -> None:
    blocks = guide("Write a skill")
    blocks["my-skills/greeter/SKILL.md"] = blocks["my-skills/greeter/SKILL.md"].replace(
        "version: 1.0.0", "version: 1.0.0\nflavour: sweet"
    )
    write_files(blocks, tmp_path)
    checked = run_check_line(blocks, tmp_path)
    assert checked.returncode != 0
    assert re.search(r"SKILL\.md:\d+: .*flavour", checked.stdout + checked.stderr)


def test_the_declarative_tools_examples_are_whole_tools_yaml_files(tmp_path: Path) -> None:
    """The tryout: the examples started with ``tools:``, which a tools.yaml may not."""
    text = README.read_text(encoding="utf-8")
    start = text.index("\n### Declarative tools\n")
    section = text[start : text.index("\n## ", start)]
    examples = re.findall(r"^```yaml\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert len(examples) >= 2
    for number, example in enumerate(examples):
        path = tmp_path / f"tools-{number}.yaml"
        path.write_text(example, encoding="utf-8")
        specs, _source, problems = parse_tools_yaml(path)
        assert problems == [] and specs, (example, problems)

    wrapped = tmp_path / "tools.yaml"
    wrapped.write_text("tools:\n" + "".join(f"  {line}\n" for line in examples[0].splitlines()))
    _specs, _source, [problem] = parse_tools_yaml(wrapped)
    assert "remove the 'tools:' line" in problem.reason
