/** Requests that get no answer fail with words for the person, not the browser's error text. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, request, requestText, requestWithHeaders } from "./client";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("a server that does not answer", () => {
  it.each([
    ["request", () => request("GET", "/api/health")],
    ["requestWithHeaders", () => requestWithHeaders("/api/conversations")],
    ["requestText", () => requestText("/api/tool-calls/call_1/output")],
  ])("%s fails with status 0, code network and a plain sentence", async (_name, send) => {
    vi.stubGlobal("fetch", () => Promise.reject(new TypeError("Failed to fetch")));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = await send().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: "network", message: "Cannot reach the server. Check your connection, then try again." });
    // The browser's own words go to the console, for a developer.
    expect(warn).toHaveBeenCalledWith(expect.any(String), expect.any(TypeError));
  });
});

describe("a failed answer without the server's error", () => {
  it.each([
    [502, "The server could not answer just now. Try again in a moment."],
    [404, "The server refused this request. Reload the page and try again."],
  ])("HTTP %i reads as a sentence, not its status text", async (status, words) => {
    vi.stubGlobal("fetch", () => Promise.resolve(new Response("<html>Bad Gateway</html>", { status, statusText: "Bad Gateway" })));
    const error = await request("GET", "/api/health").then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ status, code: `http_${status}`, message: words });
  });
});
