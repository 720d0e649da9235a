"""Engine: a model is bound to a tool set once, and the bound model is what a fresh bind gives."""

from __future__ import annotations

from interlock.api.services import Services
from interlock.engine.binding import MAX_BOUND, BoundModels
from interlock.models import ScriptedChatModel
from interlock.settings import Settings


def test_engine_bound_models_are_reused_per_model_and_tool_set(engine_settings: Settings) -> None:
    services = Services.build(engine_settings)
    try:
        registry = services.registry
        tools = registry.tools()
        model = ScriptedChatModel(responses=["x"])
        cache = BoundModels(registry)

        # No tools: a provider's model as it is; the offline kind still learns every tool's
        # title, to name one it cannot call in words ("Add a note"), and which ones the AI
        # actions switch turns off.
        unbound = cache.bind(model, [])
        assert isinstance(unbound, ScriptedChatModel) and unbound.bound_tools == ()
        assert unbound.tool_titles["notes_add"] == "Add a note"
        assert "notes_add" in unbound.action_tools and "notes_list" not in unbound.action_tools
        assert cache.bind(model, []) is unbound
        first = cache.bind(model, tools[:2])
        assert cache.bind(model, tools[:2]) is first
        assert cache.bind(model, tools[:3]) is not first
        assert cache.bind(ScriptedChatModel(responses=["y"]), tools[:2]) is not first
        # The same specs a fresh bind would send.
        fresh = model.bind_tools(registry.provider_specs(tools[:2]))
        assert isinstance(first, ScriptedChatModel) and isinstance(fresh, ScriptedChatModel)
        assert first.bound_tools == fresh.bound_tools and len(first.bound_tools) == 2

        for n in range(MAX_BOUND + 1):  # bounded: starts over past MAX_BOUND entries
            cache.bind(ScriptedChatModel(responses=[str(n)]), tools[:1])
        assert len(cache._bound) <= MAX_BOUND
    finally:
        services.db.dispose()
