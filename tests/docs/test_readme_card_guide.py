"""README "Write your own card": its code blocks are the files the client builds and tests."""

from __future__ import annotations

import re
from pathlib import Path

from interlock.settings import Settings
from interlock.skills.check import check_skills, format_problem

REPO = Path(__file__).resolve().parents[2]
BLOCK_RE = re.compile(r"^```(\w+) title=(\S+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SERVER_BLOCK = "append:my-skills/weather/tools.py"


def _blocks(heading: str) -> dict[str, str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.index("\n## ", start + 1)
    return {m.group(2): m.group(3) for m in BLOCK_RE.finditer(text[start:end])}


def test_the_card_guide_blocks_are_the_files_in_the_repository() -> None:
    blocks = _blocks("Write your own card")
    blocks.pop(SERVER_BLOCK)
    assert set(blocks) == {
        "client-web/src/custom/weatherAlert.tsx",
        "client-web/src/custom/index.ts",
        "client-web/src/custom/weatherAlert.test.tsx",
    }
    for title, body in blocks.items():
        assert (REPO / title).read_text(encoding="utf-8") == body, f"README block {title} differs"


def test_the_server_side_of_the_frontend_tool_loads_with_the_weather_skill(
    tmp_path: Path,
) -> None:
    """The tryout: the guide never showed how ``weather.units`` is declared on the server."""
    skill = tmp_path / "my-skills" / "weather"
    skill.mkdir(parents=True)
    five = _blocks("Add a tool in five minutes")
    (skill / "SKILL.md").write_text(five["my-skills/weather/SKILL.md"], encoding="utf-8")
    tools = (
        five["my-skills/weather/tools.py"] + "\n\n" + _blocks("Write your own card")[SERVER_BLOCK]
    )
    (skill / "tools.py").write_text(tools, encoding="utf-8")

    report = check_skills([tmp_path / "my-skills"], Settings(_env_file=None))  # type: ignore[call-arg]

    assert report.ok, [format_problem(p) for p in report.problems]
    units = report.registry.get("weather.units")
    assert units is not None and units.execution == "frontend"
    assert units.output_schema is not None
    assert units.output_schema["properties"]["units"]["enum"] == ["metric", "imperial"]
    # What the shipped invoke returns fits it.
    assert "{ text: `The person uses ${units} units.`, data: { units } }" in (
        REPO / "client-web/src/custom/weatherAlert.tsx"
    ).read_text(encoding="utf-8")
