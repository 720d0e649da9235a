"""Images in untrusted markdown never load by themselves, in Chromium.

Model and tool output is untrusted: an image in it (``![i](https://host/x.png?secret)``) would
make the browser send a request with no click, a channel a prompt injection can use to leak
data. The web client shows such an image as a plain link instead; nothing is fetched until
the person clicks it. The test drives the real app (built ``client-web/dist`` + API + offline
model + SQLite, see ``conftest.py``) and watches every request the page makes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, Request, expect

from support.live import LiveServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

PIXEL_PATH = "/exfil-pixel.png"


async def test_an_image_in_the_reply_is_a_link_and_nothing_is_fetched_until_clicked(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    pixel = f"{app.url}{PIXEL_PATH}?secret=launch-codes"
    # The offline model quotes the note's text in its reply, so the image markdown lands in
    # an assistant message that the client renders as markdown.
    payload = f"see ![the chart]({pixel}) and ![]({pixel}&n=2)"
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, f"add a note {payload}")
    await app.idle()
    pending = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [c["name"] for c in pending] == ["notes.add"]
    decided = await app.decide(pending[0]["id"], type="approve")
    assert decided.status_code == 200, decided.text
    await app.idle()

    requested: list[str] = []

    def record(request: Request) -> None:
        if PIXEL_PATH in request.url:
            requested.append(request.url)

    page.context.on("request", record)
    await page.goto(f"/#/c/{conversation_id}")
    await expect(page.get_by_test_id("conversation")).to_have_attribute(
        "data-conversation-id", conversation_id
    )
    reply = page.locator('[data-testid="message"][data-role="assistant"]').last
    await expect(reply).to_contain_text("Done — I added note #")

    links = reply.locator('a[data-markdown-image="true"]')
    await expect(links).to_have_count(2)
    first = links.first
    await expect(first).to_have_text("the chart")
    await expect(first).to_have_attribute("href", pixel)
    await expect(first).to_have_attribute("target", "_blank")
    await expect(first).to_have_attribute("rel", "noopener noreferrer nofollow")
    await expect(links.nth(1)).to_have_text("image")
    assert await page.locator(".message img").count() == 0

    # A request issued after two frames and answered: an image the page had started to
    # load would have shown up in `requested` before it.
    await page.evaluate(
        "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )
    assert await page.evaluate("() => fetch('/api/health').then((r) => r.status)") == 200
    assert requested == []
    await page.screenshot(path=tmp_path / "markdown-images.png", full_page=True)

    # Only the person's click fetches it (in a new tab).
    async with page.context.expect_page() as opened:
        await first.click()
    tab = await opened.value
    await tab.wait_for_load_state()
    assert requested and requested[0] == pixel
    await tab.close()
