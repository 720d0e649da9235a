"""One settings class, read once at start and injected everywhere else.

Every field maps to an environment variable with the ``INTERLOCK_`` prefix, for example
``INTERLOCK_DATABASE_URL`` or ``INTERLOCK_MODEL``. A ``.env`` file in the working directory is
read too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from interlock.text import check_storable, no_control_characters

REPO_ROOT = Path(__file__).resolve().parents[2]

_HEADER_NAME_RE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP field name (RFC 9110, section 5.1: a ``token``)."""


class Connection(BaseModel):
    """Credentials for the declarative ``http_json`` tools that name this connection.

    Connections are the only place credentials live: a tool spec names one
    (``request.connection``), never holds a secret. Values are :class:`SecretStr` (a plain
    string is accepted), so they do not show in logs or ``repr``.

    Attributes:
        headers: Header name -> value, merged into every request (over Interlock's own
            ``Accept`` and ``User-Agent``), e.g. ``{"Authorization": "Bearer ..."}``.
        params: Query parameter name -> value, added to every request's query string (over
            the tool's own parameters of the same name), e.g. ``{"api_key": "..."}``.
        token_file: A file holding a bearer token (``Authorization: Bearer <token>``) for
            remote MCP servers and ``mcp_http`` tools. Read at first use and read again when
            the server rejects the token (HTTP 401), so a token rotated on disk is picked up.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    headers: dict[str, SecretStr] = Field(default_factory=dict)
    params: dict[str, SecretStr] = Field(default_factory=dict)
    token_file: Path | None = None

    @field_validator("headers")
    @classmethod
    def _check_headers(cls, value: dict[str, SecretStr]) -> dict[str, SecretStr]:
        for name, secret in value.items():
            if not _HEADER_NAME_RE.fullmatch(name):
                raise ValueError(f"header name {name!r} is not an HTTP token")
            if name.lower() in {"host", "content-length", "transfer-encoding", "connection"}:
                raise ValueError(f"header {name!r} is set by Interlock, not by a connection")
            if any(c in secret.get_secret_value() for c in "\r\n\0"):
                raise ValueError(f"header {name!r} has a line break or NUL in its value")
        return value

    @field_validator("params")
    @classmethod
    def _check_params(cls, value: dict[str, SecretStr]) -> dict[str, SecretStr]:
        if any(not name for name in value):
            raise ValueError("query parameter names must not be empty")
        return value


MAX_LISTED_TOOLS = 1000
"""Most remote tool names an MCP server's ``permissions`` or ``read_only`` may list."""
MCP_SERVER_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
"""A remote MCP server's name (full match): its tools are named ``mcp.<name>.<tool>``."""


class McpServerSpec(BaseModel):
    """A remote MCP server whose tools Interlock offers (``INTERLOCK_MCP_SERVERS`` or the admin
    API); see :mod:`interlock.mcp_bridge.sources`.

    Attributes:
        url: Streamable HTTP endpoint (``https://host/mcp``; ``http://`` for loopback or
            trusted networks). Exactly one of ``url`` and ``command``.
        connection: Name of a :class:`Connection` whose headers (or ``token_file``) are sent
            with every request to ``url``.
        command: A stdio server: the program and its arguments (``["npx", "some-server"]``).
        env: Extra environment variables for ``command``.
        title: Shown to people instead of the name.
        permissions: Remote tool name (as the server spells it) -> ``ALLOW`` / ``ASK`` /
            ``DENY``; every other remote tool is ``ASK`` (remote annotations are hints only).
        read_only: Remote tool names to treat as read tools (``write=False``); every other
            remote tool counts as changing data. At most 1,000 names here and in
            ``permissions``.
        offer_tools: False to offer none of its tools (the server then only serves
            declarative ``mcp_http`` tools that name it as ``connector``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # also a request body

    url: str | None = Field(default=None, max_length=2000)
    connection: str | None = None
    command: list[str] | None = None
    env: dict[str, str] = Field(default_factory=dict)
    title: str | None = Field(default=None, max_length=200)
    permissions: dict[str, Literal["ALLOW", "ASK", "DENY"]] = Field(
        default_factory=dict, max_length=MAX_LISTED_TOOLS
    )
    read_only: list[str] = Field(default_factory=list, max_length=MAX_LISTED_TOOLS)
    offer_tools: bool = True

    @field_validator(
        "url", "connection", "command", "env", "title", "permissions", "read_only", mode="before"
    )
    @classmethod
    def _storable_text(cls, value: Any, info: ValidationInfo) -> Any:
        """Refuse what the database cannot hold (NUL, a lone surrogate: PostgreSQL refuses a
        NUL in JSON) and control characters such as Escape, as for every text people send.

        Raises:
            ValueError: Naming the field and the character.
        """
        check_storable(value)
        return no_control_characters(value, info)

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        if (self.url is None) == (self.command is None):
            raise ValueError("give either url (Streamable HTTP) or command (stdio), not both")
        if self.url is not None and not re.match(r"https?://[^/?#\s]+", self.url):
            raise ValueError("The url must start with https:// or http:// and name a host.")
        if self.command is not None and (not self.command or not self.command[0].strip()):
            raise ValueError("command must name a program")
        if self.connection is not None and self.url is None:
            raise ValueError("connection is for url servers (a stdio server takes env)")
        if self.env and self.command is None:
            raise ValueError("env is for command servers (a url server takes a connection)")
        return self


DATABASE_DRIVERS = ("sqlite", "sqlite+pysqlite", "postgresql", "postgres", "postgresql+psycopg")
"""The database URL schemes Interlock works with (``postgresql://`` is read as
``postgresql+psycopg://``, see :class:`~interlock.storage.db.Database`)."""

_DATABASE_EXAMPLES = "sqlite:///./var/interlock.db or postgresql+psycopg://user@host/db"


def safe_database_url(url: str) -> str:
    """``url`` with its password hidden, for printing (``***``); a text that is no URL as is."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def database_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be Interlock's database URL, in words, or None when it can.

    Args:
        url: A SQLAlchemy URL, as given (``INTERLOCK_DATABASE_URL``, ``--database-url``).

    Returns:
        ``"is not a database URL (for example ...)"``, ``"names the database kind 'mysql'
        ..."``, or None.
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        return f"is not a database URL (for example {_DATABASE_EXAMPLES})"
    if parsed.drivername not in DATABASE_DRIVERS:
        return (
            f"names the database kind {parsed.drivername!r}; Interlock works with SQLite or "
            f"PostgreSQL (for example {_DATABASE_EXAMPLES})"
        )
    return None


class Settings(BaseSettings):
    """Interlock's settings.

    Attributes:
        database_url: SQLAlchemy URL. SQLite (default, ``./var/interlock.db``) or PostgreSQL
            (``postgresql+psycopg://user@host/db``; needed for several workers).
        db_lock_timeout_s: Longest wait for a database lock or connection, in seconds; a
            request waiting longer fails with 503 ``database_busy`` and writes nothing
            (SQLite's busy timeout, PostgreSQL's ``lock_timeout``).
        db_statement_timeout_s: PostgreSQL's ``statement_timeout``, in seconds.
        run_lease_s: A run belongs to the server process holding its lease; a process that
            stops renewing it (killed, cut off) has its runs taken over by another after
            this many seconds.
        model: ``provider:model`` for any LangChain chat model (``openai:gpt-4o-mini``,
            ``anthropic:claude-sonnet-4-5``, ``ollama:llama3.1``). Unset: the built-in offline model.
        model_base_url: Base URL of an OpenAI-compatible server (vLLM, llama.cpp, LM Studio).
        model_api_key: API key passed to the provider; unset means the provider's own variable.
        openai_api_key: ``OPENAI_API_KEY`` (no ``INTERLOCK_`` prefix: OpenAI's own variable),
            the key of ``openai:`` models when ``model_api_key`` is unset; with neither, an
            OpenAI-compatible server at ``model_base_url`` is sent a placeholder key.
        model_strict_tools: Ask OpenAI and OpenAI-compatible servers for strict tool calling:
            each tool goes with ``"strict": true`` and a strict-valid form of its schema, or
            without ``strict`` when its schema has none (see
            :mod:`interlock.tools.schema.strict`); arguments are still validated against the
            tool's own schema.
        host: Interface ``interlock serve`` binds to.
        port: TCP port ``interlock serve`` binds to (1 to 65535).
        max_steps_per_turn: Model calls allowed in one run before it fails with ``step_limit``.
        max_message_bytes: Largest user message, in UTF-8 bytes (32 kB).
        max_request_bytes: Largest HTTP request body, in bytes (1 MiB); refused before it
            is read into memory.
        request_body_timeout_s: Seconds a request body may take to arrive whole (408
            ``request_timeout`` past it).
        tool_timeout_s: Default tool timeout in seconds when a tool declares none.
        max_tool_result_chars: Tool results longer than this are cut with a note (60,000).
        max_client_result_bytes: Largest result a browser may post for a frontend tool call
            (``POST /api/tool-calls/{id}/result``), in bytes (256 KiB); 413 above.
        ping_interval_s: Seconds between SSE keep-alive comments.
        delta_window_s: Streamed tokens arriving within this many seconds share one
            ``message.delta`` event (fewer writes); 0 sends one event per token.
        offline_token_delay_s: Pause between offline-model tokens (a test setting; 0 in use).
        offline_first_token_delay_s: Pause before the offline model's first token (a test setting).
        skills_path: Extra skill folders, besides the built-in ``skills/``.
        client_dist: Built web client served at ``/``; ``client-web/dist`` by default.
        connections: Named credentials for declarative ``http_json`` tools
            (:class:`Connection`), read from ``INTERLOCK_CONNECTIONS`` as JSON, e.g.
            ``{"weather": {"headers": {"Authorization": "Bearer ..."}, "params": {}}}``.
        http_allowed_hosts: TEST-ONLY. Host names (exact, case-insensitive) that
            ``http_json`` tools may reach even when they resolve to loopback, private or other
            non-global addresses (``INTERLOCK_HTTP_ALLOWED_HOSTS='["localhost"]'``). Empty, and
            so off, by default: leave it empty in production (it opens an SSRF hole).
        approval_timeout_s: Seconds a call waits for a decision before the server closes it as
            ``expired`` (24 h), unless its tool or employee says otherwise.
        approval_sweep_interval_s: Longest pause between two looks for expired calls, in
            seconds; the sweeper also wakes at the next known deadline.
        actions_grant_days: How long turning an employee's "AI actions" switch on lasts, in
            days (7); use never extends it, and when it lapses the switch is off.
        grant_days: Default length of a "don't ask again" grant, in days (7; at most 30).
        mcp_servers: Remote MCP servers whose tools are offered as ``mcp.<name>.<tool>``
            (:class:`McpServerSpec` by name), read from ``INTERLOCK_MCP_SERVERS`` as JSON, e.g.
            ``{"docs": {"url": "https://docs.example/mcp", "connection": "docs"}}``.
        mcp_call_timeout_s: Seconds a call to a remote MCP tool (or listing its tools) may take.
        mcp_retry_max_s: Longest pause between two tries to reach an MCP server that is down
            (the pause doubles from half a second up to this).
        mcp_approval_timeout_s: Longest wait of an MCP ``tools/call`` for a person's decision,
            in seconds (50, under the usual 60 s client timeout); the call then closes as
            ``expired`` (a shorter rule of the tool or employee wins).
        mcp_approval_channel: Where an MCP call that needs a decision is put to the person:
            ``web`` (the web client's Approvals view), ``elicitation`` (the MCP client asks,
            when it supports elicitation; otherwise the web client) or ``both`` (the first
            answer wins).
        mcp_allowed_hosts: Host names (``Host`` header, port ignored) ``/mcp`` answers besides
            loopback ones, e.g. the public name behind a reverse proxy; ``["*"]`` allows any.
        mcp_allowed_origins: Browser origins (``Origin`` header) allowed on ``/mcp`` besides
            loopback ones; requests without ``Origin`` (desktop clients) are not affected.
        mcp_page_size: Tools per page of an MCP ``tools/list`` answer (50; 1 to 1000).
        mcp_repeat_window_s: How long, in seconds, the loop guard refuses an MCP client's
            call identical to one the person rejected in the same MCP session (600; 0 turns
            the guard off for MCP calls). See :mod:`interlock.engine.loop_guard`.
        shutdown_grace_s: Longest wait of ``interlock serve``, on SIGTERM or Ctrl-C, for open
            connections (event streams, MCP calls waiting for a decision, slow uploads) before
            it cancels them and shuts down (uvicorn's ``timeout_graceful_shutdown``; 10 s,
            1 to 3600).
        http_ca_bundle: TEST-ONLY. A PEM file of CA certificates that ``http_json`` tools
            trust instead of the default bundle (``certifi``), for a test server's throwaway
            certificate. None (the default) uses the default bundle.
    """

    model_config = SettingsConfigDict(env_prefix="INTERLOCK_", env_file=".env", extra="ignore")

    database_url: str = "sqlite:///./var/interlock.db"
    db_lock_timeout_s: float = Field(default=5.0, gt=0, le=600)
    db_statement_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    run_lease_s: float = Field(default=10.0, ge=1, le=3600)
    model: str | None = None
    model_base_url: str | None = None
    model_api_key: SecretStr | None = None
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("openai_api_key", "OPENAI_API_KEY")
    )
    model_strict_tools: bool = False
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    max_steps_per_turn: int = Field(default=12, ge=1, le=100)
    max_message_bytes: int = 32 * 1024
    max_request_bytes: int = Field(default=1024 * 1024, ge=64 * 1024)
    request_body_timeout_s: float = Field(default=30.0, gt=0)
    shutdown_grace_s: int = Field(default=10, ge=1, le=3600)
    tool_timeout_s: float = Field(default=30.0, gt=0)
    max_tool_result_chars: int = 60_000
    max_client_result_bytes: int = Field(default=256 * 1024, ge=1024)
    ping_interval_s: float = Field(default=15.0, gt=0)
    delta_window_s: float = Field(default=0.02, ge=0, le=1)
    offline_token_delay_s: float = Field(default=0.0, ge=0)
    offline_first_token_delay_s: float = Field(default=0.0, ge=0)
    builtin_skills_dir: Path = REPO_ROOT / "skills"
    skills_path: list[Path] = Field(default_factory=list)
    client_dist: Path = REPO_ROOT / "client-web" / "dist"
    connections: dict[str, Connection] = Field(default_factory=dict)
    http_allowed_hosts: list[str] = Field(default_factory=list)
    http_ca_bundle: Path | None = None
    mcp_servers: dict[str, McpServerSpec] = Field(default_factory=dict)
    mcp_call_timeout_s: float = Field(default=30.0, gt=0, le=600)
    mcp_retry_max_s: float = Field(default=60.0, ge=1, le=3600)
    approval_timeout_s: float = Field(default=24 * 3600.0, gt=0, le=30 * 24 * 3600.0)
    approval_sweep_interval_s: float = Field(default=5.0, gt=0, le=3600)
    actions_grant_days: int = Field(default=7, ge=1, le=365)
    grant_days: int = Field(default=7, ge=1, le=30)
    mcp_approval_timeout_s: float = Field(default=50.0, gt=0, le=3600)
    mcp_approval_channel: Literal["web", "elicitation", "both"] = "both"
    mcp_allowed_hosts: list[str] = Field(default_factory=list)
    mcp_allowed_origins: list[str] = Field(default_factory=list)
    mcp_page_size: int = Field(default=50, ge=1, le=1000)
    mcp_repeat_window_s: float = Field(default=600.0, ge=0, le=86_400)

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        """Refuse a URL that is not one or names a database Interlock does not work with
        (MySQL once failed at start-up with ``ModuleNotFoundError: MySQLdb``)."""
        problem = database_url_problem(value)
        if problem is not None:
            raise ValueError(f"{safe_database_url(value)} {problem}")
        return value

    @model_validator(mode="after")
    def _check_mcp_servers(self) -> Self:
        for name, spec in self.mcp_servers.items():
            if not MCP_SERVER_NAME_RE.fullmatch(name):
                raise ValueError(
                    f"MCP server name {name!r}: use 1 to 32 lowercase letters, digits, '_', '-'"
                )
            if spec.connection is not None and spec.connection not in self.connections:
                raise ValueError(
                    f"MCP server {name!r} names connection {spec.connection!r}, "
                    "which INTERLOCK_CONNECTIONS does not define"
                )
        return self

    @property
    def is_offline_model(self) -> bool:
        """True when no model is configured and the built-in offline model answers."""
        return not self.model
