"""``GET /api/skills``: every skill folder, loaded ones with tools and commands, failed ones
with the reason. A broken skill in ``settings.skills_path`` never stops the server."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent
from typing import Any

from interlock.settings import REPO_ROOT, Settings
from support.live import live_server
from support.sse import collect, terminals


def _write(base: Path, folder: str, **files: str) -> Path:
    path = base / folder
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def _by_name(skills: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in skills}


async def test_the_builtin_skills_are_listed_with_their_tools_and_commands(
    api_settings: Settings,
) -> None:
    async with live_server(api_settings) as server:
        response = await server.client.get("/api/skills")
        assert response.status_code == 200, response.text
        skills = response.json()
    assert [s["name"] for s in skills] == ["ask", "browser", "documents", "notes", "suggestions"]
    assert {s["status"] for s in skills} == {"loaded"}
    assert all(s["error"] is None for s in skills)
    by_name = _by_name(skills)
    assert by_name["ask"]["tools"] == ["ask.choice", "ask.confirm", "ask.form"]
    assert by_name["notes"]["tools"] == ["notes.add", "notes.delete", "notes.list"]
    assert by_name["suggestions"]["tools"] == ["suggestions"]
    assert by_name["notes"]["commands"] == [
        {
            "command": "notes",
            "title": "Add a note",
            "description": "Save the rest of the line as a note",
            "tool": "notes.add",
        }
    ]
    assert by_name["ask"]["commands"] == [] and by_name["suggestions"]["commands"] == []
    for skill in skills:
        assert skill["description"]
        assert Path(skill["path"]) == REPO_ROOT / "skills" / skill["name"]
        assert set(skill) == {
            "name",
            "description",
            "version",
            "tags",
            "status",
            "error",
            "tools",
            "commands",
            "path",
        }
    assert by_name["notes"]["version"] == "1.0.0" and by_name["notes"]["tags"] == ["productivity"]


async def test_broken_skill_folders_are_listed_as_failed_and_the_rest_works(
    api_settings: Settings, tmp_path: Path
) -> None:
    extra = tmp_path / "extra-skills"
    _write(
        extra,
        "badmatter",
        **{
            "SKILL.md": """
                ---
                name: badmatter
                description: Broken front matter.
                colour: blue
                ---
                Never loaded.
                """
        },
    )
    _write(
        extra,
        "boom",
        **{
            "SKILL.md": """
                ---
                name: boom
                description: Its tools.py raises on import.
                ---
                Never loaded.
                """,
            "tools.py": """
                from interlock.tools import tool

                raise RuntimeError("kaboom at import")
                """,
        },
    )
    _write(
        extra,
        "greet",
        **{
            "SKILL.md": """
                ---
                name: greet
                description: Says hello.
                tools:
                  - name: greet.hello
                    kind: text_template
                    title: Say hello
                    description: Greets someone.
                    permission: ALLOW
                    input_schema:
                      type: object
                      properties: {name: {type: string}}
                      required: [name]
                      additionalProperties: false
                    template: "Hello {arguments.name}!"
                ---
                Greet people.
                """
        },
    )
    _write(
        extra,
        "badyaml",
        **{"SKILL.md": "---\nname: badyaml\ndescription: [never closed\n---\nBody.\n"},
    )
    _write(
        extra,
        "notes-again",
        **{"SKILL.md": "---\nname: notes\ndescription: A second notes skill.\n---\nBody.\n"},
    )
    settings = api_settings.model_copy(update={"skills_path": [extra]})
    async with live_server(settings) as server:
        health = await server.client.get("/api/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"

        response = await server.client.get("/api/skills")
        assert response.status_code == 200, response.text
        skills = response.json()
        assert [s["name"] for s in skills] == [
            "ask",
            "browser",
            "documents",
            "notes",
            "suggestions",
            "badmatter",
            "badyaml",
            "boom",
            "greet",
            "notes",
        ]
        by_name = _by_name(skills[:-1])

        assert by_name["badyaml"]["status"] == "failed" and by_name["badyaml"]["error"]
        again = skills[-1]
        assert again["status"] == "failed" and Path(again["path"]) == extra / "notes-again"
        assert "already used" in again["error"]

        bad = by_name["badmatter"]
        assert bad["status"] == "failed"
        assert "colour" in bad["error"] and "SKILL.md:4" in bad["error"]  # the colour line
        assert bad["tools"] == [] and Path(bad["path"]) == extra / "badmatter"

        boom = by_name["boom"]
        assert boom["status"] == "failed"
        assert "tools.py" in boom["error"]
        assert "RuntimeError" in boom["error"] and "kaboom at import" in boom["error"]
        assert boom["tools"] == [] and boom["commands"] == []

        assert by_name["greet"]["status"] == "loaded" and by_name["greet"]["error"] is None
        assert by_name["greet"]["tools"] == ["greet.hello"]
        for name in ("ask", "browser", "documents", "notes", "suggestions"):
            assert by_name[name]["status"] == "loaded"

        tools = {t["name"] for t in (await server.client.get("/api/tools")).json()}
        assert "greet.hello" in tools and "notes.add" in tools
        assert not any(t.startswith(("boom.", "badmatter.")) for t in tools)

        # The server still answers conversations with the good skills.
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note still working")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        assert log.of("tool_call.interrupted")[0]["tool_call"]["name"] == "notes.add"
        await server.idle()
