"""Per-connection listing options: query parameters, tag filters and the read-only switch."""

from __future__ import annotations

import pytest
from starlette.datastructures import QueryParams

from interlock.errors import BadRequest
from interlock.mcp_bridge.exposition import Exposition
from interlock.mcp_bridge.options import ListingOptions, parse_listing_options
from interlock.tools import ToolAnnotations, ToolRegistry


def names(registry: ToolRegistry, query: str) -> list[str]:
    options = parse_listing_options(QueryParams(query))
    return [d.name for d in Exposition(registry.tools(), options).definitions()]


def test_no_parameters_mean_a_flat_unfiltered_listing():
    assert parse_listing_options(QueryParams("")) == ListingOptions()
    assert parse_listing_options({}) == ListingOptions(exposition="flat", read_only=False)


def test_parameters_are_read_into_typed_options():
    options = parse_listing_options(
        QueryParams(
            "exposition=grouped&tags=Productivity, writing&any_tags=a&any_tags=b,&"
            "exclude_tags=browser&read_only=TRUE&employee=general"
        )
    )

    assert options == ListingOptions(
        exposition="grouped",
        tags=frozenset({"productivity", "writing"}),
        any_tags=frozenset({"a", "b"}),
        exclude_tags=frozenset({"browser"}),
        read_only=True,
    )


@pytest.mark.parametrize(
    ("query", "parameter", "words"),
    [
        ("exposition=nested", "exposition", "not one of: flat"),
        ("read_only=maybe", "read_only", "true or false"),
        ("read_only=", "read_only", "true or false"),
        ("tags=a b", "tags", "'a b' is not a tag"),
        ("any_tags=x,%C3%A9t%C3%A9", "any_tags", "'été' is not a tag"),
        ("exclude_tags=" + "x" * 41, "exclude_tags", "is not a tag"),
        ("exposition=flat&exposition=grouped", "exposition", "given twice"),
        ("tags=notes&exclude_tags=notes", "exclude_tags", "both wanted (tags) and excluded"),
        ("any_tags=a,b&exclude_tags=b", "exclude_tags", "both wanted (any_tags)"),
    ],
)
def test_a_bad_value_is_refused_with_a_stable_code_naming_the_parameter(query, parameter, words):
    with pytest.raises(BadRequest) as caught:
        parse_listing_options(QueryParams(query))

    error = caught.value
    assert error.code == "invalid_mcp_option"
    assert error.status == 422
    assert error.details["parameter"] == parameter
    assert words in error.message


def test_a_repeated_parameter_with_the_same_value_is_fine():
    options = parse_listing_options([("read_only", "true"), ("read_only", "true")])

    assert options.read_only is True


def test_tags_filter_all_of_any_of_and_exclude(builtin: ToolRegistry):
    # notes: [productivity]; documents: [productivity, writing]; browser: [browser, context];
    # ask: [conversation, input]; suggestions: [conversation]; load_skill: none.
    assert names(builtin, "tags=productivity,writing") == [
        "documents_list",
        "documents_read",
        "documents_write",
    ]
    assert names(builtin, "any_tags=writing,browser") == [
        "browser_selection",
        "browser_time_zone",
        "documents_list",
        "documents_read",
        "documents_write",
    ]
    assert names(builtin, "tags=productivity&exclude_tags=writing") == [
        "notes_add",
        "notes_delete",
        "notes_list",
    ]
    assert "load_skill" in names(builtin, "exclude_tags=productivity,conversation,browser")
    assert names(builtin, "tags=nothing-has-this") == []


def test_a_tools_own_tags_count_alongside_its_skills(registry, make_tool):
    make_tool("ops.restart", tags=("danger",), write=True)
    make_tool("ops.status", annotations=ToolAnnotations(read_only=True))

    assert names(registry, "exclude_tags=danger") == ["ops_status"]
    assert names(registry, "tags=danger") == ["ops_restart"]


def test_read_only_lists_only_read_tools_in_flat_and_grouped(builtin: ToolRegistry):
    flat = names(builtin, "read_only=true")
    exposition = Exposition(
        builtin.tools(), parse_listing_options({"read_only": "1", "exposition": "grouped"})
    )

    assert "notes_list" in flat and "documents_read" in flat and "browser_time_zone" in flat
    assert not {"notes_add", "notes_delete", "documents_write", "load_skill"} & set(flat)
    notes = exposition.get("notes")
    assert notes is not None
    assert notes.definition.input_schema["properties"]["action"]["enum"] == ["list"]
    assert notes.definition.annotations is not None
    assert notes.definition.annotations.read_only_hint is True


def test_a_filtered_out_tool_cannot_be_called_through_the_connection(builtin: ToolRegistry):
    exposition = Exposition(builtin.tools(), parse_listing_options({"read_only": "true"}))

    with pytest.raises(BadRequest) as caught:
        exposition.resolve("notes_delete", {"id": 1})

    assert caught.value.code == "unknown_tool"
