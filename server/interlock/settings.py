"""One settings class, read once at start and injected everywhere else.

Every field maps to an environment variable with the ``INTERLOCK_`` prefix, for example
``INTERLOCK_DATABASE_URL`` or ``INTERLOCK_MODEL``. A ``.env`` file in the working directory is
read too.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]


class Settings(BaseSettings):
    """Interlock's settings.

    Attributes:
        database_url: SQLAlchemy URL. SQLite (default, ``./var/interlock.db``) or PostgreSQL
            (``postgresql+psycopg://user@host/db``).
        model: ``provider:model`` for any LangChain chat model (``openai:gpt-4o-mini``,
            ``anthropic:claude-sonnet-4-5``, ``ollama:llama3.1``). Unset: the built-in offline model.
        model_base_url: Base URL of an OpenAI-compatible server (vLLM, llama.cpp, LM Studio).
        model_api_key: API key passed to the provider; unset means the provider's own variable.
        host: Interface ``interlock serve`` binds to.
        port: TCP port ``interlock serve`` binds to.
        max_steps_per_turn: Model calls allowed in one run before it fails with ``step_limit``.
        max_message_bytes: Largest user message, in UTF-8 bytes (32 kB).
        tool_timeout_s: Default tool timeout in seconds when a tool declares none.
        max_tool_result_chars: Tool results longer than this are cut with a note (60,000).
        ping_interval_s: Seconds between SSE keep-alive comments.
        offline_token_delay_s: Pause between offline-model tokens (a test setting; 0 in use).
        offline_first_token_delay_s: Pause before the offline model's first token (a test setting).
        skills_path: Extra skill folders, besides the built-in ``skills/``.
        client_dist: Built web client served at ``/``; ``client-web/dist`` by default.
    """

    model_config = SettingsConfigDict(env_prefix="INTERLOCK_", env_file=".env", extra="ignore")

    database_url: str = "sqlite:///./var/interlock.db"
    model: str | None = None
    model_base_url: str | None = None
    model_api_key: SecretStr | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    max_steps_per_turn: int = Field(default=12, ge=1, le=100)
    max_message_bytes: int = 32 * 1024
    tool_timeout_s: float = Field(default=30.0, gt=0)
    max_tool_result_chars: int = 60_000
    ping_interval_s: float = Field(default=15.0, gt=0)
    offline_token_delay_s: float = Field(default=0.0, ge=0)
    offline_first_token_delay_s: float = Field(default=0.0, ge=0)
    builtin_skills_dir: Path = REPO_ROOT / "skills"
    skills_path: list[Path] = Field(default_factory=list)
    client_dist: Path = REPO_ROOT / "client-web" / "dist"

    @property
    def is_offline_model(self) -> bool:
        """True when no model is configured and the built-in offline model answers."""
        return not self.model
