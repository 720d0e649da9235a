"""Reading the API's errors in tests."""

from __future__ import annotations

from typing import Any

import httpx


def error_of(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The error of ``response``, which must have ``status`` and error ``code``."""
    assert response.status_code == status, response.text
    error = dict(response.json()["error"])
    assert error["code"] == code, error
    return error
