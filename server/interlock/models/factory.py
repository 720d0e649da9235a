"""Build the chat model Interlock talks to, from :class:`~interlock.settings.Settings`."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.language_models import BaseChatModel

from interlock.models.offline import OFFLINE_DISPLAY_NAME, OfflineChatModel
from interlock.settings import Settings

MODEL_FORMAT = "provider:model"
"""The form ``INTERLOCK_MODEL`` must take."""

_MODEL_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(\S.*?)\s*$")

# Providers whose LangChain class has a ``streaming`` field (the flag makes ``invoke`` stream
# too; ``astream`` always streams). Other providers are not given it, because some classes
# forward unknown keyword arguments to the provider API.
_STREAMING_FLAG_PROVIDERS = frozenset({"openai", "azure_openai", "anthropic"})
_OPENAI_PROVIDERS = frozenset({"openai", "azure_openai"})
# Placeholder key for OpenAI-compatible servers that need none (llama.cpp, LM Studio).
_NO_KEY = "not-needed"


def strict_refusals() -> tuple[type[Exception], ...]:
    """Errors a model server answers a strict tool request with when it refuses it (HTTP 400):
    the request is then sent again without ``strict`` (see :mod:`interlock.engine.binding`).

    A function so that ``openai`` (about a quarter of a second of imports) loads only when a
    strict binding is made, not at every start (the offline model never needs it).
    """
    import openai

    return (openai.BadRequestError,)


def parse_model_spec(
    spec: str,
    *,
    name: str = "INTERLOCK_MODEL",
    otherwise: str = "Leave it unset to use the built-in offline model.",
) -> tuple[str, str]:
    """Split ``provider:model`` into its parts.

    The provider is lower-cased with ``-`` mapped to ``_``; the model keeps any further colons
    (``ollama:llama3.1:8b`` → ``("ollama", "llama3.1:8b")``).

    Args:
        spec: The configured model, e.g. ``openai:gpt-4o-mini``.
        name: What the error calls the value (the setting, or an employee's model).
        otherwise: The error's last sentence: what to do instead.

    Returns:
        ``(provider, model)``.

    Raises:
        ValueError: If ``spec`` is not of the form ``provider:model``.
    """
    found = _MODEL_RE.match(spec)
    if not found:
        raise ValueError(
            f"{name} must have the form '{MODEL_FORMAT}' (for example "
            "'openai:gpt-4o-mini', 'anthropic:claude-sonnet-4-5' or 'ollama:llama3.1'); "
            f"got {spec!r}. {otherwise}"
        )
    return found.group(1).lower().replace("-", "_"), found.group(2)


INSTALLED_PROVIDERS = frozenset({"openai", "azure_openai", "anthropic", "ollama"})
"""Providers whose LangChain packages Interlock pins (``langchain-openai``, ``-anthropic``,
``-ollama``); others need their package installed first."""


def check_model_spec(
    spec: str,
    *,
    name: str = "INTERLOCK_MODEL",
    otherwise: str = "Leave it unset to use the built-in offline model.",
) -> tuple[str, str]:
    """Like :func:`parse_model_spec` (same arguments), and the provider must be installed.

    Raises:
        ValueError: Bad form, or a provider outside :data:`INSTALLED_PROVIDERS`.
    """
    provider, model = parse_model_spec(spec, name=name, otherwise=otherwise)
    if provider not in INSTALLED_PROVIDERS:
        raise ValueError(
            f"model provider {provider!r} is not installed; use one of "
            + ", ".join(sorted(INSTALLED_PROVIDERS))
        )
    return provider, model


def model_kwargs_for(settings: Settings, provider: str) -> dict[str, Any]:
    """Keyword arguments passed to ``init_chat_model`` for a provider.

    Args:
        settings: Interlock settings (``model_base_url``, ``model_api_key``,
            ``openai_api_key``).
        provider: Normalised provider name.

    Returns:
        ``base_url``/``api_key`` when set, the streaming flags where the provider has them.
    """
    kwargs: dict[str, Any] = {}
    api_key = settings.model_api_key.get_secret_value() if settings.model_api_key else None
    openai_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    if api_key is None and provider == "openai":
        api_key = openai_key  # (None: the provider's "Missing credentials" error)
    if settings.model_base_url:
        kwargs["base_url"] = settings.model_base_url
    if provider in _STREAMING_FLAG_PROVIDERS:
        kwargs["streaming"] = True
    if provider in _OPENAI_PROVIDERS:
        if settings.model_base_url:
            # A custom server (vLLM, llama.cpp...) may need no key and may not support
            # ``stream_options``; leave usage streaming at the library default (off).
            if api_key is None and not openai_key:
                api_key = _NO_KEY
        else:
            kwargs["stream_usage"] = True
    if api_key is not None:
        if provider == "ollama":
            kwargs["client_kwargs"] = {"headers": {"Authorization": f"Bearer {api_key}"}}
        else:
            kwargs["api_key"] = api_key
    return kwargs


def create_chat_model(settings: Settings) -> BaseChatModel:
    """Return the chat model configured in ``settings``.

    Unset ``settings.model`` gives the built-in :class:`OfflineChatModel`; otherwise
    ``init_chat_model`` builds the provider's LangChain model with streaming enabled, the base
    URL and API key from the settings when set.

    Args:
        settings: Interlock settings.

    Returns:
        A LangChain chat model; call ``bind_tools(specs)`` and ``astream(messages)`` on it.

    Raises:
        ValueError: If ``settings.model`` is not ``provider:model`` or the provider is unknown.
        ImportError: If the provider's LangChain package is not installed.
    """
    if not settings.model:
        return OfflineChatModel(
            token_delay_s=settings.offline_token_delay_s,
            first_token_delay_s=settings.offline_first_token_delay_s,
        )
    # Imported here: ``langchain.chat_models`` pulls in provider SDKs the offline model
    # never needs, and start-up time counts (issue 7, benchmark f).
    from langchain.chat_models import init_chat_model

    provider, model = parse_model_spec(settings.model)
    kwargs = model_kwargs_for(settings, provider)
    if provider in _OPENAI_PROVIDERS:
        # A connection pool of the model's own, closed by close_chat_model. Left to
        # itself, langchain-openai shares one pool per base URL across the whole process,
        # so a second server in the process (tests, an embedding app) would reuse sockets
        # bound to the first one's event loop and fail with "Event loop is closed".
        import openai

        kwargs["http_async_client"] = openai.DefaultAsyncHttpxClient()
    try:
        chat_model: BaseChatModel = init_chat_model(model, model_provider=provider, **kwargs)
    except ValueError as exc:
        raise ValueError(f"cannot create chat model {settings.model!r}: {exc}") from exc
    return chat_model


async def close_chat_model(chat_model: BaseChatModel) -> None:
    """Close the connection pool :func:`create_chat_model` gave the model, if it has one.

    Safe for any model: those without a pool of their own (the offline model, scripted
    models, providers that manage their own) are left as they are.

    Args:
        chat_model: A model from :func:`create_chat_model`, or any LangChain chat model.
    """
    client = getattr(chat_model, "http_async_client", None)
    if client is not None and callable(getattr(client, "aclose", None)):
        await client.aclose()


def describe_model(settings: Settings) -> dict[str, Any]:
    """Describe the configured model for people and clients.

    Args:
        settings: Interlock settings.

    Returns:
        ``{"name": "interlock-offline (built-in, no API key)", "offline": True}`` for the
        built-in model, else ``{"name": settings.model, "offline": False}``.
    """
    if not settings.model:
        return {"name": OFFLINE_DISPLAY_NAME, "offline": True}
    return {"name": settings.model.strip(), "offline": False}
