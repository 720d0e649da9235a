"""Start-up of a real server (no services passed in): the collector and start-up objects.

``interlock serve`` imports and starts with the garbage collector off; the lifespan then
freezes what start-up left (``gc.freeze``) and turns the collector back on, so a server never
runs without it. An app started with the collector on has its garbage collected first.
"""

from __future__ import annotations

import gc
from typing import Any

from interlock.api.app import create_app


async def test_the_lifespan_freezes_start_up_objects_and_turns_collection_back_on(
    make_settings: Any,
) -> None:
    app = create_app(make_settings())
    gc.disable()
    try:
        async with app.router.lifespan_context(app):
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
    finally:
        gc.enable()
        gc.unfreeze()
