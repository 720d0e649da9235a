import { describe, expect, it } from "vitest";
import { parseHash, routeHash, type Route } from "./route";

describe("route", () => {
  it.each<[string, Route]>([
    ["", { kind: "home" }],
    ["#/", { kind: "home" }],
    ["#/admin", { kind: "admin" }],
    ["#/c/conv_1", { kind: "conversation", id: "conv_1" }],
    ["#/c/a%2Fb", { kind: "conversation", id: "a/b" }],
    ["#/c/%E0%A4%A", { kind: "home" }],
    ["#/elsewhere", { kind: "home" }],
  ])("reads %j", (hash, route) => {
    expect(parseHash(hash)).toEqual(route);
  });

  it("writes what it reads", () => {
    for (const route of [{ kind: "home" }, { kind: "admin" }, { kind: "conversation", id: "a/b c" }] as Route[]) {
      expect(parseHash(routeHash(route))).toEqual(route);
    }
  });
});
