"""Chat models: the configured LangChain model, the built-in offline model and a test aid.

Public API:

* :func:`create_chat_model` / :func:`close_chat_model` / :func:`describe_model` - the model
  contract used by the engine and the API (see ``docs/architecture.md``).
* :class:`OfflineChatModel` - the deterministic built-in model used when no model is set.
* :class:`ScriptedChatModel` and :func:`scripted_message` - replay fixed replies (tests only;
  loaded at first use, not by a server's start).
"""

from typing import TYPE_CHECKING, Any

from interlock.models.factory import (
    INSTALLED_PROVIDERS,
    MODEL_FORMAT,
    check_model_spec,
    close_chat_model,
    create_chat_model,
    describe_model,
    model_kwargs_for,
    parse_model_spec,
    strict_refusals,
)
from interlock.models.offline import (
    OFFLINE_DISPLAY_NAME,
    OFFLINE_MODEL_NAME,
    OfflineChatModel,
    PlannedCall,
    PlannedReply,
    PlannedReplyChatModel,
)

if TYPE_CHECKING:
    from interlock.models.scripted import ScriptedChatModel, ScriptExhaustedError, scripted_message

__all__ = [
    "INSTALLED_PROVIDERS",
    "MODEL_FORMAT",
    "OFFLINE_DISPLAY_NAME",
    "OFFLINE_MODEL_NAME",
    "OfflineChatModel",
    "PlannedCall",
    "PlannedReply",
    "PlannedReplyChatModel",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "check_model_spec",
    "close_chat_model",
    "create_chat_model",
    "describe_model",
    "model_kwargs_for",
    "parse_model_spec",
    "scripted_message",
    "strict_refusals",
]

_SCRIPTED = frozenset({"ScriptExhaustedError", "ScriptedChatModel", "scripted_message"})


def __getattr__(name: str) -> Any:
    """The test aid's names, imported at first use (a server never uses them: about 8,000
    Python calls of every start to build its pydantic model class, issue 7 benchmark f).

    Raises:
        AttributeError: ``name`` is not a name of this package.
    """
    if name in _SCRIPTED:
        from interlock.models import scripted

        return getattr(scripted, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
