"""Chat models bound to the tools a turn offers, built once per model and tool set.

``model.bind_tools(registry.provider_specs(tools))`` copies every tool's JSON Schema, has
LangChain convert the specs again and (for models that bind by copying themselves, like the
offline model) makes a new model whose serialized form LangChain recomputes on its next
stream: work repeated on every model step for the same few tool sets. :class:`BoundModels`
keeps the bound runnable per (model, offered tools) instead.

With strict tool calling on (``INTERLOCK_MODEL_STRICT_TOOLS``), a server that still refuses
the strict request (HTTP 400, e.g. an OpenAI-compatible server without strict mode) gets the
same request again without ``strict``: the strict binding falls back to the plain one
(LangChain's ``with_fallbacks``; the first chunk decides, so nothing streamed is repeated).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from interlock.models import PlannedReplyChatModel, strict_refusals
from interlock.tools import Tool, ToolRegistry

MAX_BOUND = 64


class BoundModels:
    """Cache of ``model.bind_tools(...)`` results, keyed by the model's and the tools' identity.

    Registered tools do not change, so the same tool objects give the same specs. At most
    :data:`MAX_BOUND` entries are kept (the cache starts over past that: tool sets are few).
    Thread-safe.

    Args:
        registry: The registry the tools belong to (it writes their provider specs).
    """

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry
        self._bound: dict[tuple[int, ...], tuple[BaseChatModel, tuple[Tool, ...], Any]] = {}
        self._lock = threading.Lock()

    def bind(self, model: BaseChatModel, tools: Sequence[Tool]) -> Runnable[Any, Any]:
        """Return ``model`` bound to ``tools`` (``model`` itself when there are none).

        Raises:
            ValueError: A tool is not registered in the registry.
        """
        if not tools:
            return model
        key = (id(model), *(id(tool) for tool in tools))
        with self._lock:
            found = self._bound.get(key)
        if found is not None:
            bound: Runnable[Any, Any] = found[2]
            return bound
        specs = self._registry.provider_specs(tools)
        if isinstance(model, PlannedReplyChatModel):
            # The offline model names tools in its replies: give it their titles (a
            # provider's model would send unknown arguments on to its API).
            titles = {tool.provider_name: tool.title for tool in tools}
            bound = model.bind_tools(specs, tool_titles=titles)
        else:
            bound = model.bind_tools(specs)
        if any(spec["function"].get("strict") for spec in specs):
            plain = model.bind_tools(self._registry.provider_specs(tools, strict=False))
            bound = bound.with_fallbacks([plain], exceptions_to_handle=strict_refusals())
        with self._lock:
            if len(self._bound) >= MAX_BOUND:
                self._bound.clear()
            # The model and the tools are kept so their ids cannot be reused while cached.
            self._bound[key] = (model, tuple(tools), bound)
        return bound
