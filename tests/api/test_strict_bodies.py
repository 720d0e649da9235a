"""Request bodies are read strictly: JSON scalars keep their types, nothing is coerced.

``{"on": "yes"}`` is not ``true`` and ``{"days": "3"}`` is not ``3``: both answer 422
``invalid_request`` with the field's error in words. Every body model of every route (and the
models nested in them) is strict, so a new route cannot bring lenient coercion back.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.routing import BaseRoute

from interlock.api.app import create_app
from interlock.settings import Settings
from support.live import LiveServer


def _models(annotation: Any) -> set[type[BaseModel]]:
    """The pydantic models in ``annotation`` (unions, lists and dicts opened up)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {annotation}
    found: set[type[BaseModel]] = set()
    if typing.get_origin(annotation) is not None or isinstance(annotation, types.UnionType):
        for arg in typing.get_args(annotation):
            found |= _models(arg)
    return found


def _api_routes(routes: Iterable[BaseRoute]) -> Iterator[APIRoute]:
    """Every API route, those of included routers too."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # FastAPI's included router
        if included is not None:
            yield from _api_routes(included.routes)


def _body_models(tmp_path: Path) -> set[type[BaseModel]]:
    settings = Settings(_env_file=None, client_dist=tmp_path)  # type: ignore[call-arg]
    pending: list[type[BaseModel]] = []
    for route in _api_routes(create_app(settings).routes):
        for param in route.dependant.body_params:
            pending += _models(param.field_info.annotation)
    seen: set[type[BaseModel]] = set()
    while pending:
        model = pending.pop()
        if model not in seen:
            seen.add(model)
            for field in model.model_fields.values():
                pending += _models(field.annotation)
    return seen


def test_every_request_body_model_is_strict_and_closed(tmp_path: Path) -> None:
    models = _body_models(tmp_path)
    names = {m.__name__ for m in models}
    assert {"ActionsIn", "GrantIn", "DecisionIn", "RememberIn", "MessageCreate"} <= names
    lenient = sorted(
        m.__name__
        for m in models
        if m.model_config.get("strict") is not True or m.model_config.get("extra") != "forbid"
    )
    assert lenient == []


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("put", "/api/actions/assistant", {"on": "yes"}, "on"),
        ("put", "/api/actions/assistant", {"on": 1}, "on"),
        ("put", "/api/actions/assistant", {"on": "true"}, "on"),
        (
            "post",
            "/api/grants",
            {"tool": "notes.add", "scope": "employee", "employee": "assistant", "days": "3"},
            "days",
        ),
        (
            "post",
            "/api/grants",
            {"tool": "notes.add", "scope": "employee", "employee": "assistant", "days": 3.0},
            "days",
        ),
        ("post", "/api/tokens", {"name": 5}, "name"),
    ],
)
async def test_scalars_of_the_wrong_type_are_refused_in_words(
    server: LiveServer, method: str, path: str, body: dict[str, Any], field: str
) -> None:
    response: httpx.Response = await server.client.request(method, path, json=body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    [field_error] = error["details"]["errors"]
    assert field_error["path"] == ["body", field]
    assert field_error["message"] in {
        "Must be true or false.",
        "Must be a whole number.",
        "Must be text.",
    }


async def test_proper_types_and_iso_times_are_still_read(server: LiveServer) -> None:
    response = await server.client.put("/api/actions/assistant", json={"on": True})
    assert response.status_code == 200, response.text
    assert response.json()["on"] is True
    grant = {"tool": "notes.add", "scope": "employee", "employee": "assistant"}
    response = await server.client.post("/api/grants", json={**grant, "days": 3})
    assert response.status_code in (200, 201), response.text
    response = await server.client.post(
        "/api/grants", json={**grant, "expires_at": "2099-01-01T00:00:00Z"}
    )
    assert response.status_code == 422, response.text  # more than 30 days ahead: a rule,
    assert "expires_at" in response.text or "30" in response.text  # not a type error
