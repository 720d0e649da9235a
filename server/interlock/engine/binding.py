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
Once the plain request has been answered after a refusal, the endpoint (the model's class,
base URL and model name) is remembered as refusing strict for the life of this
:class:`BoundModels` (one per engine, so per process): later steps send the plain request
only, one request per step instead of two.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable, RunnableGenerator

from interlock.models import PlannedReplyChatModel, strict_refusals
from interlock.permissions import is_action
from interlock.tools import Tool, ToolRegistry

logger = logging.getLogger(__name__)

MAX_BOUND = 64

Endpoint = tuple[str, str, str]
"""A model endpoint: the chat model's class, its base URL (``""``: the provider's own) and the
model name."""


def endpoint_of(model: BaseChatModel) -> Endpoint:
    """The endpoint ``model`` sends its requests to (see :data:`Endpoint`)."""
    base = getattr(model, "openai_api_base", None) or getattr(model, "base_url", None) or ""
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or ""
    return (type(model).__name__, str(base), str(name))


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
        self.strict_refused: set[Endpoint] = set()
        """Endpoints that refused a strict request and answered the plain one."""

    def bind(self, model: BaseChatModel, tools: Sequence[Tool]) -> Runnable[Any, Any]:
        """Return ``model`` bound to ``tools`` (``model`` itself when there are none).

        Raises:
            ValueError: A tool is not registered in the registry.
        """
        offline = isinstance(model, PlannedReplyChatModel)
        if not tools and not offline:
            return model
        endpoint = endpoint_of(model)
        with self._lock:
            strict = endpoint not in self.strict_refused
        key = (id(model), int(strict), *(id(tool) for tool in tools))
        with self._lock:
            found = self._bound.get(key)
        if found is not None:
            bound: Runnable[Any, Any] = found[2]
            return bound
        specs = self._registry.provider_specs(tools, strict=None if strict else False)
        if offline:
            # The offline model names tools in its replies: give it their titles, of tools
            # not offered too (a provider's model would send unknown arguments on to its
            # API), and which ones the "AI actions" switch turns off, to say why one is not.
            everything = self._registry.tools()
            titles = {tool.provider_name: tool.title for tool in everything}
            actions = [tool.provider_name for tool in everything if is_action(tool)]
            bound = model.bind_tools(specs, tool_titles=titles, action_tools=actions)
        else:
            bound = model.bind_tools(specs)
        if any(spec["function"].get("strict") for spec in specs):
            plain = model.bind_tools(self._registry.provider_specs(tools, strict=False))
            answered = RunnableGenerator(*_on_first_chunk(lambda: self._refused(endpoint)))
            bound = bound.with_fallbacks([plain | answered], exceptions_to_handle=strict_refusals())
        with self._lock:
            if len(self._bound) >= MAX_BOUND:
                self._bound.clear()
            # The model and the tools are kept so their ids cannot be reused while cached.
            self._bound[key] = (model, tuple(tools), bound)
        return bound

    def _refused(self, endpoint: Endpoint) -> None:
        with self._lock:
            if endpoint in self.strict_refused:
                return
            self.strict_refused.add(endpoint)
        logger.warning(
            "The model server %s (%s) refused strict tool calling (HTTP 400) and answered "
            "without it; later requests to it go without strict",
            endpoint[1] or endpoint[0],
            endpoint[2],
        )


def _on_first_chunk(
    note: Callable[[], None],
) -> tuple[
    Callable[[Iterator[Any]], Iterator[Any]], Callable[[AsyncIterator[Any]], AsyncIterator[Any]]
]:
    """A pass-through stream step (sync and async) that calls ``note`` once its first chunk
    has arrived, so a request that failed both ways is not remembered."""

    def transform(chunks: Iterator[Any]) -> Iterator[Any]:
        for n, chunk in enumerate(chunks):
            if n == 0:
                note()
            yield chunk

    async def atransform(chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        first = True
        async for chunk in chunks:
            if first:
                note()
                first = False
            yield chunk

    return transform, atransform
