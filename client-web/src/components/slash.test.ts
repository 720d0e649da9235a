import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { SlashCommandOut } from "../api/types";
import {
  candidatesFrom,
  claimFor,
  commandWord,
  completion,
  filterCommands,
  moveActive,
  typedCommand,
} from "./slash";
import { SlashMenu } from "./SlashMenu";

const cmd = (command: string, skill: string, title = ""): SlashCommandOut => ({
  command,
  skill,
  title,
  description: "",
  tool: `${skill}.x`,
});

const commands = [cmd("notes", "notes", "Add a note"), cmd("weather", "weather", "Current weather"), cmd("notes", "memo", "Memo"), cmd("todo", "tasks", "Add a to-do note")];

describe("typedCommand", () => {
  it("reads the command word while it is being typed", () => {
    expect(typedCommand("/")).toBe("");
    expect(typedCommand("/no")).toBe("no");
    expect(typedCommand("/notes ")).toBeNull();
    expect(typedCommand("/notes buy")).toBeNull();
    expect(typedCommand("hello /no")).toBeNull();
    expect(typedCommand(" /no")).toBeNull();
    expect(typedCommand("")).toBeNull();
  });
});

describe("filterCommands", () => {
  it("lists everything for a bare slash, alphabetically", () => {
    expect(filterCommands(commands, "").map((c) => `${c.skill}/${c.command}`)).toEqual([
      "memo/notes",
      "notes/notes",
      "tasks/todo",
      "weather/weather",
    ]);
  });

  it("ranks prefix matches, then substrings, then title or skill matches; case-insensitive", () => {
    expect(filterCommands(commands, "NO").map((c) => c.command)).toEqual(["notes", "notes", "todo"]);
    expect(filterCommands(commands, "ath").map((c) => c.command)).toEqual(["weather"]);
    expect(filterCommands(commands, "note").map((c) => `${c.skill}/${c.command}`)).toEqual(["memo/notes", "notes/notes", "tasks/todo"]);
    expect(filterCommands(commands, "zzz")).toEqual([]);
  });
});

describe("claims", () => {
  const picked = commands[2]; // memo's /notes

  it("completes a pick to '/command '", () => {
    expect(completion(picked)).toBe("/notes ");
  });

  it("reads the command word like the server (trimmed, then /word)", () => {
    expect(commandWord("/notes buy milk")).toBe("notes");
    expect(commandWord("  /notes")).toBe("notes");
    expect(commandWord("/notes\nmore")).toBe("notes");
    expect(commandWord("notes")).toBeNull();
    expect(commandWord("/")).toBeNull();
    expect(commandWord("/Notes buy milk")).toBe("notes");
  });

  it("claims the picked command while the text starts with it", () => {
    expect(claimFor("/notes buy milk", picked)).toEqual({ skill: "memo", command: "notes" });
    expect(claimFor("/notes", picked)).toEqual({ skill: "memo", command: "notes" });
    expect(claimFor("/Notes buy milk", picked)).toEqual({ skill: "memo", command: "notes" });
  });

  it("sends no claim for typed commands or once the text no longer starts with the pick", () => {
    expect(claimFor("/notes buy milk", null)).toBeUndefined();
    expect(claimFor("/notesx buy", picked)).toBeUndefined();
    expect(claimFor("/weather x", picked)).toBeUndefined();
    expect(claimFor("buy milk", picked)).toBeUndefined();
  });

  it("moves the active item with wrap-around", () => {
    expect(moveActive(0, 1, 3)).toBe(1);
    expect(moveActive(2, 1, 3)).toBe(0);
    expect(moveActive(0, -1, 3)).toBe(2);
    expect(moveActive(0, 1, 0)).toBe(0);
  });

  it("reads the candidates of slash_command_ambiguous", () => {
    expect(
      candidatesFrom({
        candidates: [
          { skill: "notes", command: "notes", title: "Add a note" },
          { skill: "memo", command: "notes" },
          { skill: 3, command: "x" },
          null,
        ],
      }),
    ).toEqual([
      { skill: "notes", command: "notes", title: "Add a note" },
      { skill: "memo", command: "notes", title: "" },
    ]);
    expect(candidatesFrom(undefined)).toEqual([]);
    expect(candidatesFrom({ candidates: "no" })).toEqual([]);
  });
});

describe("SlashMenu", () => {
  it("renders a listbox with one option per command and the active one selected", () => {
    const out = renderToStaticMarkup(
      createElement(SlashMenu, { id: "m", commands: commands.slice(0, 2), active: 1, onPick: () => {}, onHover: () => {} }),
    );
    expect(out).toContain('role="listbox"');
    expect(out).toContain('data-testid="slash-menu"');
    expect(out.match(/data-testid="slash-item"/g)).toHaveLength(2);
    expect(out).toMatch(/id="m-option-1" role="option" aria-selected="true"[^>]*data-command="weather"/);
    expect(out).toContain('<code class="slash-command">/notes</code>');
  });
});
