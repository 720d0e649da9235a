"""Start-up of a real server: what it imports, and the garbage collector.

* Building the app loads no library it may never need: the MCP library (loaded by the first
  ``/mcp`` request or remote server), OpenAI's SDK (an OpenAI model), psycopg (PostgreSQL),
  the AG-UI package (the first AG-UI request), Alembic (a schema to migrate). Together about
  0.8 s of CPU of every start (issue 7, benchmark f). A fresh process is checked.
* ``interlock serve`` imports and starts with the garbage collector off; the lifespan then
  freezes what start-up left (``gc.freeze``) and turns the collector back on, so a server
  never runs without it, collecting its youngest generation every ``GC_YOUNG_THRESHOLD``
  allocations. An app started with the collector on has its garbage collected first.
* The API routes are the app's own, not included routers: FastAPI builds every route of an
  included router a second time at the first request that reaches it.
* Settings check their text with the text rules of ``interlock.text``, which loads no storage.
* LangSmith's REST API models (``langsmith.types``, ~150 pydantic models that LangChain's
  tracers pull in) are built on their first use, not at start-up, and LangSmith tracing still
  sends a run's trace when a person configures it (``LANGSMITH_TRACING``).
* The LangGraph Platform client (``langgraph_sdk/__init__.py``: httpx, websockets), which
  LangGraph pulls in for one ``Protocol``, loads on its first use; httpx loads with the first
  ``http_json`` tool call.
"""

from __future__ import annotations

import gc
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from starlette.routing import Mount, Route

from interlock.api.app import GC_YOUNG_THRESHOLD, create_app
from interlock.api.routers import catalog, events, tool_calls

ON_DEMAND = {
    "mcp",
    "mcp_types",
    "openai",
    "psycopg",
    "ag_ui",
    "alembic",
    "langchain_openai",
    "httpx",
    "websockets",
    "rich",
}


def _after_building_the_app(tmp_path: Path, script: str, *args: str) -> list[str]:
    """Run ``script`` in a fresh process after ``create_app``; return the lines it printed."""
    prefix = (
        "import sys\n"
        "from interlock.api.app import create_app\n"
        "from interlock.settings import Settings\n"
        f"create_app(Settings(_env_file=None, database_url='sqlite:///{tmp_path}/x.db'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", prefix + script, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_building_the_app_loads_no_library_it_may_never_need(tmp_path: Path) -> None:
    printed = _after_building_the_app(
        tmp_path,
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))\n",
        *sorted(ON_DEMAND),
    )
    assert printed == ["[]"]


async def test_the_lifespan_freezes_start_up_objects_and_turns_collection_back_on(
    make_settings: Any,
) -> None:
    app = create_app(make_settings())
    threshold = gc.get_threshold()
    gc.set_threshold(700, *threshold[1:])
    gc.disable()
    try:
        async with app.router.lifespan_context(app):
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
            assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *threshold[1:])
    finally:
        gc.enable()
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_the_api_routes_are_the_apps_own_not_included_routers(make_settings: Any) -> None:
    app = create_app(make_settings())

    assert all(isinstance(route, Route | Mount) for route in app.router.routes)
    for module in (catalog, events, tool_calls):
        assert all(route in app.router.routes for route in module.router.routes)


def test_settings_check_text_without_loading_storage() -> None:
    """The text rules sit below storage and settings (``interlock.text``): checking an MCP
    server's settings loads no database code, and no import is put off to dodge a cycle."""
    script = (
        "import sys\n"
        "from interlock.settings import McpServerSpec\n"
        "try:\n"
        "    McpServerSpec(url='https://example.org/mcp', title='a\\x00b')\n"
        "except ValueError as exc:\n"
        "    print('refused' if 'NUL' in str(exc) else exc)\n"
        "print(sorted(m for m in sys.modules if m.startswith('interlock.storage')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split("\n")[:2] == ["refused", "[]"], done.stdout + done.stderr


def test_langsmiths_api_models_are_built_on_their_first_use(tmp_path: Path) -> None:
    printed = _after_building_the_app(
        tmp_path,
        "print(sorted(m for m in sys.modules if m.startswith('langsmith.types')))\n"
        "import langsmith\n"
        "import langsmith.types as types\n"
        "from langsmith.types import Run\n"
        "print(Run is types.Run is langsmith.types.Run, 'TracerSession' in dir(types))\n"
        "print(hasattr(types, 'NoSuchModel'))\n",
    )
    assert printed == [
        "['langsmith.types', 'langsmith.types.run_select_field']",
        "True True",
        "False",
    ]


def test_the_langgraph_platform_client_loads_on_its_first_use(tmp_path: Path) -> None:
    printed = _after_building_the_app(
        tmp_path,
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph_sdk', 'httpx')))\n"
        "import langgraph_sdk\n"
        "from langgraph_sdk import get_client\n"
        "from langgraph_sdk.client import get_client as direct\n"
        "print(get_client is direct is langgraph_sdk.get_client, 'Auth' in dir(langgraph_sdk))\n"
        "print(bool(langgraph_sdk.__version__), hasattr(langgraph_sdk, 'NoSuchName'))\n",
    )
    assert printed == [
        "['langgraph_sdk', 'langgraph_sdk.auth', 'langgraph_sdk.auth.exceptions', "
        "'langgraph_sdk.auth.types']",
        "True True",
        "True False",
    ]


class _LangSmith(http.server.BaseHTTPRequestHandler):
    """A stand-in LangSmith API: answers everything with ``{}``, keeps the paths posted to."""

    posted: list[str] = []

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.posted.append(self.path)
        self._answer()

    def _answer(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_langsmith_tracing_still_sends_runs_when_configured() -> None:
    script = (
        "import sys\n"
        "import interlock.api.app\n"
        "from langchain_core.runnables import RunnableLambda\n"
        "from langchain_core.tracers.langchain import wait_for_all_tracers\n"
        "print(RunnableLambda(lambda x: x + 1).invoke(1))\n"
        "wait_for_all_tracers()\n"
    )
    _LangSmith.posted = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _LangSmith)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        env = {
            **os.environ,
            "LANGSMITH_TRACING": "true",
            "LANGSMITH_API_KEY": "test-key",
            "LANGSMITH_ENDPOINT": f"http://127.0.0.1:{server.server_port}",
            "LANGSMITH_PROJECT": "interlock-test",
        }
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env=env,
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert done.stdout.strip() == "2", done.stderr
    assert any(path.startswith("/runs") for path in _LangSmith.posted), _LangSmith.posted
