import json, re
import pytest
from playwright.async_api import Page, expect
from support.live import LiveServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

async def test_explore_multi(app: LiveServer, page: Page) -> None:
    await page.goto("/")
    await page.locator('[data-testid="employee-option"][data-slug="scout"] [data-testid="employee-choose"]').click()
    box = page.get_by_test_id("composer-input")
    await box.fill("ask me to choose one or more of tea, coffee and juice")
    await page.get_by_test_id("send").click()
    await expect(page.get_by_test_id("conversation")).to_have_attribute("data-status", "paused")
    row = page.locator('[data-testid="tool-call"]')
    await row.get_by_test_id("choice-option").filter(has_text="tea").click()
    await row.get_by_test_id("choice-option").filter(has_text="juice").click()
    await row.get_by_test_id("choice-submit").click()
    await expect(page.get_by_test_id("conversation")).to_have_attribute("data-status", "idle")
    print("DECISION", await row.get_by_test_id("decision").inner_text())
    print("REPLY", await page.locator('[data-testid="message"][data-role="assistant"]').last.inner_text())
    print("CHOSEN", await row.locator('[data-chosen="true"]').all_inner_texts())
    await page.reload()
    await expect(row.get_by_test_id("decision")).to_be_visible()
    print("CHOSEN after reload", await row.locator('[data-chosen="true"]').all_inner_texts())
    print("checkboxes checked", await row.locator('input:checked').count())

async def test_explore_admin_back_to_default(app: LiveServer, page: Page) -> None:
    r = await app.client.patch("/api/employees/assistant", json={"tool_overrides": {"notes.add": "ALLOW"}})
    print("PATCH1", r.status_code, r.json()["tool_overrides"])
    await page.goto("/#/admin")
    await page.locator('[data-testid="admin-employee"][data-slug="assistant"]').click()
    sw = page.locator('[data-testid="tool-permission"][data-tool="notes.add"]')
    await expect(sw).to_have_attribute("data-value", "ALLOW")
    async with page.expect_request(lambda r: r.method == "PATCH") as req:
        await sw.locator('label[data-value="default"]').click()
        await page.get_by_test_id("employee-save").click()
    print("BODY", (await req.value).post_data)
    await expect(page.get_by_test_id("admin-saved")).to_be_visible()
    print("AFTER", (await app.client.get("/api/employees/assistant")).json()["tool_overrides"])
    await expect(sw).to_have_attribute("data-value", "default")
    # ask.form ALLOW for scout
    r = await app.client.patch("/api/employees/scout", json={"tool_overrides": {"ask.form": "ALLOW", "notes.add": "DENY", "notes.delete": "DENY", "notes.list": "DENY"}})
    print("PATCH scout", r.status_code)
    cid = await app.new_conversation()
    r = await app.client.patch(f"/api/conversations/{cid}", json={"employee": "scout"})
    print("conv patch", r.status_code)
