"""Users and tokens: creation, lookup by token, the implied local user."""

from __future__ import annotations

import hashlib
import threading

import pytest
from sqlmodel import select

import interlock.storage.users as users
from interlock.errors import BadRequest, Conflict, NotFound
from interlock.storage import Database, User
from interlock.storage.users import (
    LOCAL_USER_NAME,
    count_users,
    create_user,
    existing_user_names,
    get_or_create_local_user,
    hash_token,
    list_users,
    new_token,
    user_by_token,
    user_named,
)


def test_create_user_stores_only_the_token_hash(database: Database) -> None:
    user, token = create_user(database, "ann", role="admin")

    assert len(token) >= 43
    assert user.name == "ann"
    assert user.role == "admin"
    with database.session() as session:
        stored = session.exec(select(User).where(User.id == user.id)).one()
    assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest() == hash_token(token)
    assert token not in {stored.id, stored.name, stored.role}


def test_role_defaults_to_member(database: Database) -> None:
    user, _ = create_user(database, "bob")

    assert user.role == "member"


def test_tokens_differ_per_user(database: Database) -> None:
    _, first = create_user(database, "ann")
    _, second = create_user(database, "bob")

    assert first != second


def test_user_by_token(database: Database) -> None:
    ann, ann_token = create_user(database, "ann")
    bob, bob_token = create_user(database, "bob")

    found_ann = user_by_token(database, ann_token)
    found_bob = user_by_token(database, bob_token)

    assert found_ann is not None and found_ann.id == ann.id
    assert found_bob is not None and found_bob.id == bob.id
    assert user_by_token(database, ann_token + "x") is None
    assert user_by_token(database, "") is None
    assert user_by_token(database, hash_token(ann_token)) is None


def test_duplicate_name_is_a_conflict(database: Database) -> None:
    create_user(database, "ann")

    with pytest.raises(Conflict) as caught:
        create_user(database, " ann ")

    assert caught.value.code == "user_exists"
    assert [u.name for u in list_users(database)] == ["ann"]


def test_names_differing_only_in_case_are_one_name_and_found_either_way(
    database: Database,
) -> None:
    ann, _ = create_user(database, "Ann")
    zoe, _ = create_user(database, "Zoë")

    for other in ("ANN", "ann", "ZOË"):
        with pytest.raises(Conflict) as caught:
            create_user(database, other)
        assert caught.value.code == "user_exists" and "taken by" in caught.value.message
    with database.session() as session:
        assert user_named(session, "aNN") == ann and user_named(session, "zoë") == zoe
        assert user_named(session, "bob") is None
    assert existing_user_names(database, {"ANN", "bob"}) == {"ANN"}
    assert [u.name for u in list_users(database)] == ["Ann", "Zoë"]


def test_names_stored_before_the_rule_keep_working(database: Database) -> None:
    """A database may hold "ann" and "ANN" from before: nothing fails, the name written
    exactly finds its user, and another spelling the oldest (which migration 0023 gave the
    folded name; the later one keeps None)."""
    for name, folded in (("ann", "ann"), ("ANN", None)):
        with database.session() as session:
            session.add(User(name=name, folded_name=folded, role="member"))
            session.commit()

    with database.session() as session:
        assert user_named(session, "ANN").name == "ANN"  # type: ignore[union-attr]
        assert user_named(session, "Ann").name == "ann"  # type: ignore[union-attr]
    assert existing_user_names(database, {"Ann", "ANN", "bob"}) == {"Ann", "ANN"}
    with pytest.raises(Conflict) as caught:
        create_user(database, "aNN")
    assert caught.value.details == {"taken_by": "ann"}


def test_the_folded_name_is_stored_and_is_what_a_name_is_found_by(database: Database) -> None:
    user, _ = create_user(database, "Straße")

    with database.session() as session:
        stored = session.get(User, user.id)
        assert stored is not None and stored.folded_name == "strasse"
        found = user_named(session, "STRASSE")
        assert found is not None and found.id == user.id


def test_names_differing_only_in_case_created_at_once_leave_one_user(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every creation passes the check before any inserts (as concurrent ones can): the
    unique index on the folded name is what refuses all but one, with ``user_exists``."""
    monkeypatch.setattr(users, "user_named", lambda session, name: None)
    names = ["ann", "ANN", "Ann", "aNN"]
    created: list[str] = []
    refused: list[Conflict] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(names))

    def create(name: str) -> None:
        try:
            barrier.wait()
            created.append(create_user(database, name)[0].name)
        except Conflict as exc:
            refused.append(exc)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=create, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(created) == 1 and len(refused) == 3
    assert {exc.code for exc in refused} == {"user_exists"}
    assert [u.name for u in list_users(database)] == created


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        "x" * 201,
        "ev\x1b[31mil",  # a terminal escape: `users list` would run it
        "ann\nsmith",
        "ann\tsmith",
        "ann  smith",
        "\u202e",
        "ann\u200b",
        "group:admins",
    ],
)
def test_bad_name_is_rejected(database: Database, name: str) -> None:
    with pytest.raises(BadRequest):
        create_user(database, name)
    assert list_users(database) == []


@pytest.mark.parametrize("name", ["Ana María", "李雷", "ann.smith@example.com", "👩‍💻 dev"])
def test_names_of_visible_characters_are_kept_as_given(database: Database, name: str) -> None:
    user, _ = create_user(database, name)

    assert user.name == name


def test_unknown_role_is_rejected(database: Database) -> None:
    with pytest.raises(BadRequest):
        create_user(database, "ann", role="owner")


def test_list_users_oldest_first(database: Database) -> None:
    for name in ["carol", "ann", "bob"]:
        create_user(database, name)

    assert [u.name for u in list_users(database)] == ["carol", "ann", "bob"]


def test_local_user_is_an_admin_without_token_and_is_not_counted(database: Database) -> None:
    assert count_users(database) == 0

    local = get_or_create_local_user(database)
    again = get_or_create_local_user(database)

    assert local.name == LOCAL_USER_NAME
    assert local.role == "admin"
    assert local.token_hash is None
    assert again.id == local.id
    assert count_users(database) == 0
    assert [u.name for u in list_users(database)] == [LOCAL_USER_NAME]

    create_user(database, "ann")

    assert count_users(database) == 1


def test_concurrent_first_local_user_calls_agree(database: Database) -> None:
    ids: list[str] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def call() -> None:
        try:
            barrier.wait()
            ids.append(get_or_create_local_user(database).id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(ids) == 4 and len(set(ids)) == 1
    assert len(list_users(database)) == 1


def test_functions_work_inside_a_caller_session(database: Database) -> None:
    with database.session() as session:
        user, token = create_user(session, "ann")
        local = get_or_create_local_user(session)
        with pytest.raises(Conflict):
            create_user(session, "ann")
        # The name was checked before inserting: the session is still usable.
        assert count_users(session) == 1
        found = user_by_token(session, token)
        assert found is not None and found.id == user.id
        session.commit()

    assert {u.name for u in list_users(database)} == {"ann", local.name}


def test_caller_session_decides_the_commit(database: Database) -> None:
    with database.session() as session:
        create_user(session, "ann")
        session.rollback()

    assert list_users(database) == []


def test_new_token_replaces_the_old_one(database: Database) -> None:
    user, old = create_user(database, "ann")

    same, new = new_token(database, " ann ")

    assert same.id == user.id and new != old
    assert user_by_token(database, old) is None
    found = user_by_token(database, new)
    assert found is not None and found.id == user.id


def test_new_token_lets_the_implied_local_user_sign_in(database: Database) -> None:
    local = get_or_create_local_user(database)

    _, token = new_token(database, LOCAL_USER_NAME)

    found = user_by_token(database, token)
    assert found is not None and found.id == local.id and found.role == "admin"
    assert count_users(database) == 1


def test_new_token_for_an_unknown_user_is_not_found(database: Database) -> None:
    with pytest.raises(NotFound, match="no user named 'nobody'"):
        new_token(database, "nobody")
