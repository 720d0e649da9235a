"""Provider specs: registered tools as a model is sent them, and its arguments read back.

:class:`ProviderSpecs` is the part of :class:`interlock.tools.registry.ToolRegistry` that turns
tools into OpenAI's function format for ``model.bind_tools``, in the strict form of their
schema when strict tool calling is on (:mod:`interlock.tools.schema.strict`), and reads a
model's arguments back as the tool's own schema means them.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable
from typing import Any

from interlock.tools.base import Tool
from interlock.tools.schema.strict import StrictForm, absent_for_nulls, strict_form

__all__ = ["ProviderSpecs"]

logger = logging.getLogger(__name__)


class ProviderSpecs:
    """Specs and strict forms over the registry's tables (a mixin of ToolRegistry)."""

    _tools: dict[str, Tool]
    _strict_forms: dict[str, StrictForm]
    strict_tools: bool

    def provider_specs(
        self, tools: Iterable[Tool], *, strict: bool | None = None
    ) -> list[dict[str, Any]]:
        """Return ``tools`` in OpenAI's function format, for ``model.bind_tools(specs)``.

        Each spec is ``{"type": "function", "function": {"name": <provider_name>,
        "description": ..., "parameters": <input_schema>}}``. ``parameters`` is a copy without
        the root ``$schema`` and ``$id`` (identity keywords some providers reject). With
        ``strict_tools`` on, a tool whose schema has a strict form
        (:func:`interlock.tools.schema.strict.strict_form`) is sent with that form as
        ``parameters`` and ``"strict": true``; any other tool as above, without ``strict``.

        Args:
            tools: Registered tools, in the order the model should see them.
            strict: Override ``strict_tools`` for these specs (False: none is strict).

        Returns:
            One spec per tool.

        Raises:
            ValueError: When a tool is not registered here (it would have no provider name).
        """
        specs: list[dict[str, Any]] = []
        for tool in tools:
            if self._tools.get(tool.name) is not tool:
                raise ValueError(f"tool {tool.name!r} is not registered in this registry")
            function: dict[str, Any] = {
                "name": tool.provider_name,
                "description": tool.description,
            }
            form = self.strict_form(tool) if strict is not False else None
            if form is not None and form.parameters is not None:
                function["parameters"] = copy.deepcopy(form.parameters)
                function["strict"] = True
            else:
                parameters = copy.deepcopy(tool.input_schema)
                parameters.pop("$schema", None)
                parameters.pop("$id", None)
                function["parameters"] = parameters
            specs.append({"type": "function", "function": function})
        return specs

    def strict_form(self, tool: Tool) -> StrictForm | None:
        """Return the strict form of a registered tool's schema; None with ``strict_tools`` off.

        Computed once per tool; a tool without one is logged once with the reason.
        """
        if not self.strict_tools:
            return None
        form = self._strict_forms.get(tool.name)
        if form is None:
            form = strict_form(tool.input_schema)
            if form.reason is not None:
                logger.info("Tool %r is offered without strict: %s.", tool.name, form.reason)
            self._strict_forms[tool.name] = form
        return form

    def model_args(self, tool: Tool, args: Any) -> Any:
        """Read a model's arguments for ``tool`` as its own schema means them.

        With the tool sent strict, a ``null`` the model gave for a property it may leave out
        becomes an absent key (:func:`interlock.tools.schema.strict.absent_for_nulls`);
        otherwise ``args`` is returned as it is.

        Args:
            tool: A registered tool.
            args: The decoded arguments, of any JSON type.

        Returns:
            The arguments to validate against ``tool.input_schema``.
        """
        form = self.strict_form(tool)
        if form is None or form.parameters is None or not isinstance(args, dict):
            return args
        return absent_for_nulls(tool.input_schema, args)
