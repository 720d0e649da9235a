/** Requests that get no answer fail with words for the person, not the browser's error text. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, onUnauthorized, request, requestText, requestWithHeaders, tokenLooksValid } from "./client";

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

describe("a saved token the browser cannot send", () => {
  const stored = (token: string) => {
    const items = new Map([["interlock.token", token]]);
    vi.stubGlobal("localStorage", {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => items.set(k, v),
      removeItem: (k: string) => items.delete(k),
    });
  };

  // The tryout's tokens: a direction mark (U+202E) and a zero-width space (U+200B) pasted
  // along, which fetch refuses to send at all ("Cannot reach the server" before this).
  it.each(["tokén-\u202e", "abc\u200bdef", "two words", "tab\there"])(
    "%j is refused as the server refuses a wrong token: 401, sign-in asked, nothing sent",
    async (token) => {
      stored(token);
      const sent = vi.fn(() => Promise.resolve(new Response("{}")));
      vi.stubGlobal("fetch", sent);
      const asked = vi.fn();
      const stop = onUnauthorized(asked);
      try {
        for (const send of [() => request("GET", "/api/me"), () => requestWithHeaders("/api/conversations"), () => requestText("/x")]) {
          const error = await send().then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(ApiError);
          expect(error).toMatchObject({ status: 401 });
        }
      } finally {
        stop();
      }
      expect(asked).toHaveBeenCalledTimes(3);
      expect(sent).not.toHaveBeenCalled();
    },
  );

  it("sends a token of visible ASCII as it is", async () => {
    stored("ilk_AbC-123_xyz.~");
    expect(tokenLooksValid("ilk_AbC-123_xyz.~")).toBe(true);
    const sent = vi.fn((_url: string, _init: RequestInit) => Promise.resolve(new Response("{}", { status: 200 })));
    vi.stubGlobal("fetch", sent);
    await request("GET", "/api/me");
    expect((sent.mock.calls[0][1].headers as Record<string, string>).Authorization).toBe("Bearer ilk_AbC-123_xyz.~");
  });
});
