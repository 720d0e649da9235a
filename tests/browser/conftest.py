"""Browser fixtures: the real app (built web client + API) on loopback, driven by Chromium.

* ``app``: a live uvicorn server (``support.live``) serving ``client-web/dist`` and the API,
  with the offline model and a migrated SQLite file database in the test's tmp folder.
* ``browser``: one headless Chromium (Debian's ``/usr/bin/chromium``) for the session.
* ``page``: a fresh browser context and page per test; uncaught page errors are collected
  in ``page_errors`` and fail the test at teardown; a failing test leaves a screenshot.

Everything runs on the session's event loop (Playwright objects belong to the loop that made
them), so browser test modules carry ``pytestmark = pytest.mark.asyncio(loop_scope="session")``.
Every wait is a Playwright ``expect`` with the bounded timeout set here; there are no sleeps.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright, expect

from interlock.settings import REPO_ROOT, Settings
from support.live import LiveServer, live_server

CLIENT_DIST = Path(
    os.environ.get("INTERLOCK_TEST_CLIENT_DIST") or REPO_ROOT / "client-web" / "dist"
)
"""The build under test: ``client-web/dist``, or ``INTERLOCK_TEST_CLIENT_DIST`` (another build)."""
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EXPECT_TIMEOUT_MS = 30_000
"""Bound of every ``expect`` wait (runs with the offline model finish in well under a second;
a loaded 2-core CI machine running Chromium and the server can take many times that)."""
ACTION_TIMEOUT_MS = 30_000
"""Bound of every page action (click, fill, goto)."""

expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.fixture
def backend() -> str:
    """Browser tests run on SQLite only (the API suite covers PostgreSQL)."""
    return "sqlite"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    """Keep each phase's report on the item, so ``page`` can screenshot a failed test."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def client_dist() -> Path:
    """The built web client; fails clearly when it has not been built."""
    if not (CLIENT_DIST / "index.html").is_file():
        pytest.fail(
            f"{CLIENT_DIST / 'index.html'} is missing: build the web client first "
            "(`cd client-web && npm run build`, or `make test`, which builds it)",
            pytrace=False,
        )
    return CLIENT_DIST


@pytest.fixture
def app_overrides() -> dict[str, Any]:
    """Extra settings of the served app; a test parametrizes it to change them."""
    return {}


@pytest.fixture
def app_settings(make_settings: Any, client_dist: Path, app_overrides: dict[str, Any]) -> Settings:
    """Settings of the served app: migrated SQLite file DB, offline model, the built client."""
    settings: Settings = make_settings(client_dist=client_dist, **app_overrides)
    assert settings.is_offline_model
    assert settings.database_url.startswith("sqlite:///")
    return settings


@pytest_asyncio.fixture(loop_scope="session")
async def app(app_settings: Settings) -> AsyncIterator[LiveServer]:
    """The whole app (web client + API) served by uvicorn on 127.0.0.1."""
    async with live_server(app_settings) as live:
        yield live


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def playwright() -> AsyncIterator[Playwright]:
    """The Playwright driver for the session."""
    async with async_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's Chromium (never a downloaded one); fails clearly when it is not installed."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing (`make chromium` installs it)", pytrace=False)
    return CHROMIUM


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser(playwright: Playwright, chromium_path: Path) -> AsyncIterator[Browser]:
    """One headless Chromium for the session."""
    chromium = await playwright.chromium.launch(
        executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS
    )
    yield chromium
    await chromium.close()


@pytest.fixture
def page_errors() -> list[str]:
    """Uncaught errors the page threw during the test (filled by ``page``)."""
    return []


@pytest_asyncio.fixture(loop_scope="session")
async def context(browser: Browser, app: LiveServer) -> AsyncIterator[BrowserContext]:
    """A fresh browser context (no cookies, no local storage) bound to the app's URL."""
    ctx = await browser.new_context(base_url=app.url, viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(ACTION_TIMEOUT_MS)
    ctx.set_default_navigation_timeout(ACTION_TIMEOUT_MS)
    yield ctx
    await ctx.close()


@pytest_asyncio.fixture(loop_scope="session")
async def page(
    context: BrowserContext,
    page_errors: list[str],
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> AsyncIterator[Page]:
    """A page of the app's context; fails the test on uncaught page errors."""
    tab = await context.new_page()
    tab.on("pageerror", lambda error: page_errors.append(str(error)))
    yield tab
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        await tab.screenshot(path=tmp_path / "failure.png", full_page=True)
    assert not page_errors, f"uncaught errors in the page: {page_errors}"
