"""axe-core checks of a page in Chromium (serious and critical violations only).

axe-core is pinned in ``client-web/package.json`` (devDependency); its ``axe.min.js`` comes
from ``client-web/node_modules``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Page

from interlock.settings import REPO_ROOT

AXE = REPO_ROOT / "client-web" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = {"serious", "critical"}


async def axe_violations(page: Page, include: str | None = None) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations on the page as it is now (only inside the
    elements matching the CSS selector ``include``, when given)."""
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `make client` (npm ci)", pytrace=False)
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: the app's CSP (script-src 'self') rightly
        # refuses an injected <script> tag.
        await page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    found: list[dict[str, Any]] = await page.evaluate(
        """async (include) => {
            const context = include ? { include: [include] } : document;
            const result = await window.axe.run(context, { resultTypes: ["violations"] });
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
            }));
        }""",
        include,
    )
    return [v for v in found if v["impact"] in BLOCKING]


def report(violations: list[dict[str, Any]]) -> str:
    return json.dumps(violations, indent=2, ensure_ascii=False)
