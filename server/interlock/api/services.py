"""The long-lived parts of a running server, built once from the settings."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from interlock.employees import EmployeeDirectory, load_builtin
from interlock.engine import Engine
from interlock.mcp_bridge.sources import McpSources
from interlock.models import create_chat_model
from interlock.settings import Settings
from interlock.skills import SkillCatalog, load_catalog
from interlock.storage import Database, User
from interlock.streaming import EventBus
from interlock.tools import ToolRegistry, is_question


@dataclass
class Services:
    """Settings, storage, event bus, tool registry, engine and remote MCP servers of one
    server process."""

    settings: Settings
    db: Database
    bus: EventBus
    registry: ToolRegistry
    catalog: SkillCatalog
    employees: EmployeeDirectory
    engine: Engine
    mcp_sources: McpSources
    local_user: User | None = None  # the implied local user, once created
    token_users_exist: bool = False  # see api.deps: implied local user only without users
    users_checked_at: float = float("-inf")

    @classmethod
    def build(cls, settings: Settings, *, model: BaseChatModel | None = None) -> Services:
        """Create every service; skills load here (a broken skill is reported, not fatal).

        Args:
            settings: Server settings.
            model: A chat model to use instead of the one the settings name (tests, scripts).
        """
        db = Database(
            settings.database_url,
            lock_timeout_s=settings.db_lock_timeout_s,
            statement_timeout_s=max(settings.db_statement_timeout_s, settings.db_lock_timeout_s),
        )
        bus = EventBus(db)
        registry = ToolRegistry(
            max_result_chars=settings.max_tool_result_chars,
            default_timeout_s=settings.tool_timeout_s,
            strict_tools=settings.model_strict_tools,
        )
        catalog = load_catalog(
            registry, [settings.builtin_skills_dir, *settings.skills_path], settings
        )
        employees = EmployeeDirectory(
            db,
            load_builtin(),
            known_skills=lambda: catalog.skills.keys(),
            known_tools=lambda: {t.name: t.title for t in registry.tools()},
            question_tools=lambda: {
                t.name: t.display_name for t in registry.tools() if is_question(t)
            },
        )
        engine = Engine(
            settings, db, bus, registry, catalog, employees, model or create_chat_model(settings)
        )
        mcp_sources = McpSources(settings, registry, db)
        mcp_sources.bind_declarative()
        return cls(
            settings=settings,
            db=db,
            bus=bus,
            registry=registry,
            catalog=catalog,
            employees=employees,
            engine=engine,
            mcp_sources=mcp_sources,
        )
