"""The built-in tools' schemas skip the start-up metaschema check: here is the proof it passes.

:data:`interlock.tools.schema.known_valid.KNOWN_VALID_SCHEMAS` lists the digests of schemas whose
Draft 2020-12 check :func:`check_schema_rules` leaves out at run time; these tests check every
built-in schema against the metaschema and keep the list exactly theirs.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from interlock.settings import REPO_ROOT, Settings
from interlock.skills import load_catalog
from interlock.tools import ToolRegistry
from interlock.tools.schema import SchemaRuleError, check_schema_rules
from interlock.tools.schema.known_valid import KNOWN_VALID_SCHEMAS
from interlock.tools.schema.rules import schema_digest, schema_json_text


def _builtin_schemas(tmp_path: Any) -> list[Any]:
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path / 'unused.db'}")
    registry = ToolRegistry()
    load_catalog(registry, [REPO_ROOT / "skills"], settings)
    schemas = [t.input_schema for t in registry.tools()]
    schemas += [t.output_schema for t in registry.tools() if t.output_schema is not None]
    return schemas


def test_the_list_is_exactly_the_builtin_tools_schemas_each_a_valid_schema(tmp_path):
    schemas = _builtin_schemas(tmp_path)
    for schema in schemas:
        Draft202012Validator.check_schema(schema)
    digests = sorted({schema_digest(schema_json_text(s)) for s in schemas})
    listing = "".join(f'        "{d}",\n' for d in digests)
    assert set(digests) == KNOWN_VALID_SCHEMAS, (
        "A built-in tool's schema changed: set KNOWN_VALID_SCHEMAS in "
        f"server/interlock/tools/schema/known_valid.py to\nfrozenset(\n    {{\n{listing}    }}\n)"
    )


def _as_tuples(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _as_tuples(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_as_tuples(v) for v in value)
    return value


def test_a_listed_text_as_another_python_value_is_still_checked(tmp_path):
    schema = next(s for s in _builtin_schemas(tmp_path) if s.get("required"))
    check_schema_rules(schema, require_object_root=True)
    # Same JSON text, but tuples are not JSON arrays to the metaschema: refused as before.
    with pytest.raises(SchemaRuleError, match="not a valid Draft 2020-12 schema"):
        check_schema_rules(_as_tuples(schema), require_object_root=True)


def test_an_unlisted_schema_gets_the_full_check():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "1"}}}
    assert schema_digest(schema_json_text(schema)) not in KNOWN_VALID_SCHEMAS
    with pytest.raises(SchemaRuleError, match="not a valid Draft 2020-12 schema at /properties/n"):
        check_schema_rules(schema, require_object_root=True)
