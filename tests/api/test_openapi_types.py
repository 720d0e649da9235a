"""The web client's generated API types match the server.

``client-web/src/api/openapi.json`` (``interlock openapi``) and ``schema.d.ts``
(openapi-typescript) are committed so the client builds without Python. A server change
that alters the API must come with ``cd client-web && npm run gen:api``; these tests fail
until it does.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from interlock.api.app import create_app
from interlock.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "client-web"
API_DIR = CLIENT / "src" / "api"
COMMITTED_JSON = API_DIR / "openapi.json"
COMMITTED_SCHEMA = API_DIR / "schema.d.ts"
OPENAPI_TYPESCRIPT = CLIENT / "node_modules" / ".bin" / "openapi-typescript"

REGENERATE = "run `cd client-web && npm run gen:api` and commit the result"


def _serialize(document: dict[str, Any]) -> str:
    """Serialize like ``interlock openapi --out``."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _diff(expected: str, actual: str, expected_name: str, actual_name: str) -> str:
    lines = list(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=expected_name,
            tofile=actual_name,
        )
    )
    shown = "".join(lines[:80])
    more = f"\n... {len(lines) - 80} more diff lines" if len(lines) > 80 else ""
    return shown + more


@pytest.fixture(scope="module")
def live_document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The OpenAPI document of ``create_app()``, built in-process (no database is opened)."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, client_dist=tmp_path_factory.mktemp("no-client")
    )
    return create_app(settings).openapi()


def test_committed_openapi_json_is_current(live_document: dict[str, Any]) -> None:
    committed = json.loads(COMMITTED_JSON.read_text(encoding="utf-8"))
    if committed != live_document:
        diff = _diff(
            _serialize(committed),
            _serialize(live_document),
            "client-web/src/api/openapi.json (committed)",
            "create_app().openapi() (server now)",
        )
        pytest.fail(
            f"The server's OpenAPI document differs from {COMMITTED_JSON.relative_to(ROOT)}: "
            f"{REGENERATE}.\n{diff}",
            pytrace=False,
        )


def test_committed_schema_d_ts_is_current(live_document: dict[str, Any], tmp_path: Path) -> None:
    if not OPENAPI_TYPESCRIPT.exists():
        pytest.skip(
            "client-web/node_modules is not installed (run `npm ci` in client-web/), so "
            "schema.d.ts cannot be regenerated; openapi.json was still checked"
        )
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not on PATH, so schema.d.ts cannot be regenerated")
    source = tmp_path / "openapi.json"
    source.write_text(_serialize(live_document), encoding="utf-8")
    target = tmp_path / "schema.d.ts"
    result = subprocess.run(
        [npx, "--no-install", "openapi-typescript", str(source), "-o", str(target)],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, f"openapi-typescript failed:\n{result.stdout}{result.stderr}"
    committed = COMMITTED_SCHEMA.read_text(encoding="utf-8")
    generated = target.read_text(encoding="utf-8")
    if committed != generated:
        diff = _diff(
            committed,
            generated,
            "client-web/src/api/schema.d.ts (committed)",
            "openapi-typescript (server now)",
        )
        pytest.fail(
            f"{COMMITTED_SCHEMA.relative_to(ROOT)} is not what openapi-typescript generates "
            f"from the server's OpenAPI document: {REGENERATE}.\n{diff}",
            pytrace=False,
        )
