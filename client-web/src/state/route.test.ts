import { describe, expect, it } from "vitest";
import { parseHash, routeHash, type Route } from "./route";

describe("route", () => {
  it.each<[string, Route]>([
    ["", { kind: "home" }],
    ["#/", { kind: "home" }],
    ["#/admin", { kind: "admin" }],
    ["#/approvals", { kind: "approvals" }],
    ["#/c/conv_1", { kind: "conversation", id: "conv_1" }],
    ["#/c/a%2Fb", { kind: "conversation", id: "a/b" }],
    ["#/c/conv_1/call/call_9", { kind: "conversation", id: "conv_1", call: "call_9" }],
    ["#/new/assistant", { kind: "new", employee: "assistant" }],
    ["#/c/%E0%A4%A", { kind: "home" }],
    ["#/elsewhere", { kind: "home" }],
  ])("reads %j", (hash, route) => {
    expect(parseHash(hash)).toEqual(route);
  });

  it("writes what it reads", () => {
    const routes: Route[] = [
      { kind: "home" },
      { kind: "admin" },
      { kind: "approvals" },
      { kind: "new", employee: "a b" },
      { kind: "conversation", id: "a/b c" },
      { kind: "conversation", id: "a/b", call: "c/d" },
    ];
    for (const route of routes) expect(parseHash(routeHash(route))).toEqual(route);
  });
});
