"""Digests of tool schemas already proved valid Draft 2020-12 schemas: the built-in tools'.

:func:`~interlock.tools.schema.rules.check_schema_rules` checks every schema against the Draft
2020-12 metaschema, which costs a start about 0.1 s of CPU for the built-in tools alone (issue 7,
benchmark f). A schema whose compact JSON text
(:func:`~interlock.tools.schema.rules.schema_json_text`) has one of these SHA-256 digests passed
that check when the list was made, and the check's answer depends on that text only, so it is
not run again; every other rule is. Tools of developers and admins are checked in full unless
their schema is, to the character, one of these.

``tests/tools/test_tools_known_valid_schemas.py`` proves each built-in schema valid and that this
list is exactly theirs; when a built-in tool's schema changes, that test prints the new list.
"""

KNOWN_VALID_SCHEMAS: frozenset[str] = frozenset(
    {
        "2b0a59160ce772f26c46eccbb3fb5358b100c1cabf31eea35f60082dd443925b",
        "2c8e5ad2d548861515cf69c50272bfa7cef4a0f41268de1911d883d9adb2b386",
        "32062bdb9024160d3b9816f12ba2f337808ee107449f8bf08d55b0026944f51e",
        "3647ef93b3006e5bf93bfeb4ce5b5954fdab83f3ccacc3c6c9cb1f5a4ec0b36d",
        "3ad441397c68d5d2b34e727047f38a0c35e1e30ae7e9d57a13cef0c8fc01fdae",
        "7be6dad37bf9457be28830cddc39a3bfafb9ea9282f4f4a742e5713ad6480c51",
        "7c40c332d1fc83b11e37260a18949a502ca74891b5aba20b89e914d4f961193d",
        "83824c866d0d61f512604d814ecdb4b8bf007c741422ae60502eaa9bc21825b4",
        "8a3d334100457b8f498660d9f8b1798297f423884ec30eff62551e8d705a3838",
        "964a73fd006814cf7ddd637f6f321ab444b09c73c49743ac1d4e1474549ccb81",
        "a95b58fe31f7fcb77b97b57104f545994471c579207a5bc788a2447ad0d70c64",
        "b7f28b0fc93ac6bc6ed2f7694793d685ddb32639df6ae8915cad82a99ecb2479",
        "d101e545f71677c58dc32321f8cd7735e9c22d5595200746562b01d0596c82fd",
        "e4aa9b5f4a9e3c09efe85b90e0cf169c11733195154126eef6239d1c780531de",
        "efa7f272e5577afbe8f8615c85b8333b3b04f980a29b2948f737dceeb6595f22",
    }
)
