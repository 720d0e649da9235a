"""The base of every request body the API and its bridges (AG-UI, MCP) validate.

Request bodies are JSON, so their scalars arrive with their real types: a boolean is
``true``/``false``, never ``"yes"``, ``"on"`` or ``1``, and a number is never a string such
as ``"3"``. Pydantic's default (lax) mode would coerce those; :class:`RequestBody` turns on
strict mode for every field and refuses unknown fields, so a wrong type answers 422
``invalid_request`` with the field's error in words ("Input should be a valid boolean").

A field whose JSON form is text (a time) opts out with ``Strict(False)`` on its type, see
:data:`interlock.storage.times.UtcTime`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RequestBody(BaseModel):
    """A request body: strict scalars (no strings as booleans or numbers), no unknown fields."""

    model_config = ConfigDict(extra="forbid", strict=True)
