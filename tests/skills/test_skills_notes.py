"""The built-in notes skill: list, add and delete notes through ``ctx.store``, per owner."""

from __future__ import annotations

import pytest

from interlock.tools import Permission, ToolContext, ToolError, ToolResult
from support.notes import stored_notes


@pytest.fixture
def notes(builtin_registry):
    """``(registry, run)`` where ``await run(name, args, ctx)`` validates, then executes."""

    async def run(name, args, ctx):
        tool = builtin_registry.get(name)
        assert builtin_registry.validate_args(tool, args) == []
        return await builtin_registry.execute(tool, args, ctx)

    return builtin_registry, run


def test_the_notes_tools_are_declared_with_their_permissions(builtin_registry):
    listing = builtin_registry.get("notes.list")
    add = builtin_registry.get("notes.add")
    delete = builtin_registry.get("notes.delete")

    assert (listing.permission, listing.write, listing.annotations.read_only) == (
        Permission.ALLOW,
        False,
        True,
    )
    assert (add.permission, add.write, add.annotations.destructive) == (Permission.ASK, True, False)
    assert (delete.permission, delete.write, delete.annotations.destructive) == (
        Permission.ASK,
        True,
        True,
    )
    assert [t.provider_name for t in (listing, add, delete)] == [
        "notes_list",
        "notes_add",
        "notes_delete",
    ]


async def test_listing_with_no_notes_says_so(notes, context_for):
    _, run = notes

    result = await run("notes.list", {}, context_for("user_a"))

    assert result == ToolResult(text="No notes yet.", data={"notes": []})


async def test_added_notes_are_stored_and_listed_one_per_line(notes, context_for, notes_db):
    _, run = notes
    ctx = context_for("user_a")

    first = await run("notes.add", {"text": "buy milk"}, ctx)
    second = await run("notes.add", {"text": "  call Ada\nabout Friday  "}, ctx)
    listing = await run("notes.list", {}, ctx)

    assert first == ToolResult(text="Added note #1: buy milk", data={"id": 1, "text": "buy milk"})
    assert second.text == "Added note #2: call Ada\nabout Friday"
    assert listing.text == "#1: buy milk\n#2: call Ada about Friday"
    assert listing.data == {
        "notes": [{"id": 1, "text": "buy milk"}, {"id": 2, "text": "call Ada\nabout Friday"}]
    }
    assert stored_notes(notes_db, "user_a") == [(1, "buy milk"), (2, "call Ada\nabout Friday")]


async def test_a_person_lists_only_their_own_notes(notes, context_for):
    _, run = notes
    await run("notes.add", {"text": "mine"}, context_for("user_a"))
    await run("notes.add", {"text": "theirs"}, context_for("user_b"))

    listing = await run("notes.list", {}, context_for("user_a"))

    assert listing.text == "#1: mine"


async def test_deleting_a_note_removes_it(notes, context_for):
    _, run = notes
    ctx = context_for("user_a")
    await run("notes.add", {"text": "buy milk"}, ctx)

    result = await run("notes.delete", {"id": 1}, ctx)

    assert result == ToolResult(
        text="Deleted note #1: buy milk", data={"id": 1, "text": "buy milk"}
    )
    assert (await run("notes.list", {}, ctx)).text == "No notes yet."


async def test_deleting_a_missing_note_fails_with_not_found(notes, context_for):
    _, run = notes

    with pytest.raises(ToolError) as caught:
        await run("notes.delete", {"id": 42}, context_for("user_a"))

    assert caught.value.code == "not_found"
    assert caught.value.message == "There is no note #42."
    assert caught.value.hint


async def test_deleting_another_persons_note_fails_with_not_found_and_keeps_it(notes, context_for):
    _, run = notes
    await run("notes.add", {"text": "theirs"}, context_for("user_b"))

    with pytest.raises(ToolError) as caught:
        await run("notes.delete", {"id": 1}, context_for("user_a"))

    assert caught.value.code == "not_found"
    assert (await run("notes.list", {}, context_for("user_b"))).text == "#1: theirs"


async def test_each_persons_notes_are_numbered_from_one_whatever_others_wrote(
    notes, context_for, notes_db
):
    """Tryout: ``local`` added notes #1-#4, then ann's first note was "Added note #5" and
    "delete note 1" from ann answered "There is no note #1" (numbers were shared)."""
    _, run = notes
    for text in ("one", "two", "three", "four"):
        await run("notes.add", {"text": text}, context_for("local"))
    ann = context_for("ann")

    first = await run("notes.add", {"text": "ann's note"}, ann)
    deleted = await run("notes.delete", {"id": 1}, ann)
    again = await run("notes.add", {"text": "ann's next"}, ann)

    assert first.text == "Added note #1: ann's note"
    assert deleted.text == "Deleted note #1: ann's note"
    assert again.text == "Added note #2: ann's next"  # a deleted note's number is not reused
    assert stored_notes(notes_db, "local") == [(1, "one"), (2, "two"), (3, "three"), (4, "four")]
    assert stored_notes(notes_db, "ann") == [(2, "ann's next")]


@pytest.mark.parametrize(
    ("args", "rules"),
    [
        ({"text": ""}, ["minLength", "pattern"]),
        ({"text": "   "}, ["pattern"]),
        ({"text": "x" * 2001}, ["maxLength"]),
        ({"text": 5}, ["type"]),
        ({}, ["required"]),
        ({"text": "ok", "tag": "x"}, ["additionalProperties"]),
    ],
)
def test_add_refuses_bad_text(builtin_registry, args, rules):
    tool = builtin_registry.get("notes.add")

    assert [e.rule for e in builtin_registry.validate_args(tool, args)] == rules


def test_add_accepts_2000_characters(builtin_registry):
    tool = builtin_registry.get("notes.add")

    assert builtin_registry.validate_args(tool, {"text": "x" * 2000}) == []


@pytest.mark.parametrize(
    ("args", "rule"),
    [({"id": 0}, "minimum"), ({"id": "1"}, "type"), ({"id": 1.5}, "type"), ({}, "required")],
)
def test_delete_refuses_bad_ids(builtin_registry, args, rule):
    tool = builtin_registry.get("notes.delete")

    assert [e.rule for e in builtin_registry.validate_args(tool, args)] == [rule]


async def test_a_read_tool_writing_through_the_store_fails_with_permission_denied(notes_db):
    ctx = ToolContext(
        user_id="user_a",
        conversation_id="conv_1",
        tool_call_id="call_1",
        db=notes_db,
        writable=False,
        tool_name="notes.list",
    )

    with pytest.raises(ToolError) as caught:
        ctx.store.put("notes", "1", {"text": "sneaky"})

    assert caught.value.code == "permission_denied"
    assert (
        caught.value.message == "The tool 'notes.list' only reads; it may not change stored data."
    )
    assert stored_notes(notes_db) == []
