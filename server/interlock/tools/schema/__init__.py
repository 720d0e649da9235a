"""JSON Schema rules for tool arguments and results: the supported subset and validation.

Tool schemas are sent to model providers as function ``parameters`` and used by Interlock to
validate arguments (from the model, and from a person's ``edit`` decision) and result data.
Providers accept only part of JSON Schema, and differently, so Interlock accepts a documented
subset (:data:`SUPPORTED_SCHEMA_KEYWORDS`), checked once at registration by
:func:`check_schema_rules`. Validation always uses Draft 2020-12 with format checking
(:data:`FORMAT_CHECKER`), whose ``uri`` and ``email`` checks :func:`check_format_checkers`
proves active at start-up.

Modules (everything public is re-exported here, so ``from interlock.tools.schema import ...``
is the import to use):

* :mod:`~interlock.tools.schema.rules` - the supported subset and registration-time checks;
* :mod:`~interlock.tools.schema.inline` - schemas from pydantic models, ``$ref`` inlined;
* :mod:`~interlock.tools.schema.validation` - validators and person-readable field errors;
* :mod:`~interlock.tools.schema.labels` - field labels and field errors as sentences;
* :mod:`~interlock.tools.schema.formats` - the ``format`` checker and its start-up proof.
"""

from interlock.tools.schema.formats import FORMAT_CHECKER, check_format_checkers
from interlock.tools.schema.inline import model_schema
from interlock.tools.schema.labels import args_refused, field_label, field_sentences, humanise
from interlock.tools.schema.rules import (
    DRAFT_2020_12,
    MAX_SCHEMA_CHARS,
    MAX_SCHEMA_DEPTH,
    SUPPORTED_SCHEMA_KEYWORDS,
    SchemaRuleError,
    check_schema_rules,
    schema_json_size,
)
from interlock.tools.schema.validation import (
    MAX_MESSAGE_CHARS,
    control_character_errors,
    field_errors,
    is_finite_number,
    make_validator,
)

__all__ = [
    "DRAFT_2020_12",
    "FORMAT_CHECKER",
    "MAX_MESSAGE_CHARS",
    "MAX_SCHEMA_CHARS",
    "MAX_SCHEMA_DEPTH",
    "SUPPORTED_SCHEMA_KEYWORDS",
    "SchemaRuleError",
    "args_refused",
    "check_format_checkers",
    "check_schema_rules",
    "control_character_errors",
    "field_errors",
    "field_label",
    "field_sentences",
    "humanise",
    "is_finite_number",
    "make_validator",
    "model_schema",
    "schema_json_size",
]
