import { describe, expect, it } from "vitest";
import { ApiError } from "../api/client";
import type { SlashCommandOut } from "../api/types";
import { lookalikeCommand, messageCommand, refusalBeforeSending, refusalWords } from "./messageChecks";

const cmd = (skill: string, command: string): SlashCommandOut => ({ skill, command, title: `${skill} ${command}`, description: "", tool: `${skill}.x` });
const commands = [cmd("notes", "note"), cmd("memo", "memo"), cmd("tasks", "memo")];

describe("checks before sending (and before asking to cancel waiting decisions)", () => {
  it("reads a command like the server", () => {
    expect(messageCommand("  /note buy milk")).toBe("note");
    expect(messageCommand("/note")).toBe("note");
    // Any case: a phone capitalises the first letter, and the server reads /NOTE as /note.
    expect(messageCommand("/Note x")).toBe("note");
    expect(messageCommand("/NOTE x")).toBe("note");
    expect(messageCommand("/ note")).toBeNull();
    expect(messageCommand("/usr/bin is a path")).toBeNull();
    expect(messageCommand("hello /note")).toBeNull();
  });

  it("refuses blank text and commands the employee does not have, offers the skills of an ambiguous one", () => {
    expect(refusalBeforeSending("  \n ", undefined, commands, true)?.message).toBe("The message is empty: write something to send.");
    // Nothing visible: zero-width spaces, a BOM, bidi marks (the server refuses these too).
    expect(refusalBeforeSending(" \u200b\ufeff\u202e\n\u2060 ", undefined, commands, true)?.message).toBe(
      "The message is empty: write something to send.",
    );
    expect(refusalBeforeSending("ok\u200b", undefined, commands, true)).toBeNull();
    // Said as the server says it (tests/api/test_slash_commands_refused.py), with what to do.
    const unknown = refusalBeforeSending("/nosuch x", undefined, commands, true, "Ada");
    expect(unknown?.code).toBe("slash_command_unavailable");
    expect(unknown?.message).toBe("Ada has no command /nosuch. You can use /memo or /note, or write your request as a message.");
    expect(refusalBeforeSending("/help", undefined, [cmd("notes", "notes")], true, "Ada")?.message).toBe(
      "Ada has no command /help. You can use /notes, or write your request as a message.",
    );
    expect(refusalBeforeSending("/x", undefined, [cmd("a", "a"), cmd("b", "b"), cmd("c", "c")], true, "Ada")?.message).toBe(
      "Ada has no command /x. You can use /a, /b or /c, or write your request as a message.",
    );
    expect(refusalBeforeSending("/NOTE buy milk", undefined, commands, true)).toBeNull();
    expect(refusalBeforeSending("/Notes", undefined, [], true, "Scout")?.message).toBe(
      "Scout has no command /notes; write your request as a message instead.",
    );
    // The employee not known (yet): named as "This employee".
    expect(refusalBeforeSending("/nosuch", undefined, [], true)?.message).toBe(
      "This employee has no command /nosuch; write your request as a message instead.",
    );
    const ambiguous = refusalBeforeSending("/memo x", undefined, commands, true);
    expect(ambiguous?.code).toBe("slash_command_ambiguous");
    expect((ambiguous?.details as { candidates: unknown[] }).candidates).toHaveLength(2);
  });

  it("refuses words that only look like a command, as the server does", () => {
    const notes = [cmd("notes", "notes")];
    const invisible =
      "Ada has no command written like that: it looks like /notes but holds an invisible character. Type /notes in plain letters to run it, or write your request as a message.";
    const lookalike =
      "Ada has no command written like that: it looks like /notes but is written in look-alike characters. Type /notes in plain letters to run it, or write your request as a message.";
    const cases: Record<string, string> = {
      "/notes\u202e x": invisible,
      "/no\u200btes x": invisible,
      "\ufeff/notes x": invisible,
      "/\uff2e\uff2f\uff34\uff25\uff33 fullwidth": lookalike,
      "/note\u017f x": lookalike,
      "/n\u00f6tes x": "Ada has no command /n\u00f6tes. You can use /notes, or write your request as a message.",
      "/N\u00d6TES": "Ada has no command /n\u00f6tes. You can use /notes, or write your request as a message.",
      "/\uff48\uff45\uff4c\uff50 me": "Ada has no command /help. You can use /notes, or write your request as a message.",
    };
    for (const [text, words] of Object.entries(cases)) {
      const refused = refusalBeforeSending(text, undefined, notes, true, "Ada");
      expect(refused?.code, text).toBe("slash_command_unknown");
      expect(refused?.message, text).toBe(words);
    }
    expect(lookalikeCommand("/notes x")).toBeNull();
    expect(lookalikeCommand("/etc/hosts is a file")).toBeNull();
    expect(lookalikeCommand("caf\u00e9 /n\u00f6tes")).toBeNull();
  });

  it("lets through what is fine or what only the server can judge", () => {
    expect(refusalBeforeSending("hello", undefined, commands, true)).toBeNull();
    expect(refusalBeforeSending("/note buy milk", undefined, commands, true)).toBeNull();
    expect(refusalBeforeSending("/memo x", { skill: "memo", command: "memo" }, commands, true)).toBeNull();
    // Commands not read (yet): the server resolves them.
    expect(refusalBeforeSending("/nosuch x", undefined, [], false)).toBeNull();
  });
});

describe("the server's refusal in words", () => {
  it("says the field errors instead of 'The request is not valid.' and that nothing was cancelled", () => {
    const error = new ApiError(422, {
      code: "invalid_request",
      message: "The request is not valid.",
      details: { errors: [{ path: ["body", "content"], message: "The message is empty: write something to send.", rule: "value_error" }] },
    });
    expect(refusalWords(error, 0)).toBe("The message is empty: write something to send.");
    const claim = new ApiError(422, {
      code: "invalid_request",
      message: "The request is not valid.",
      details: { errors: [{ path: ["body", "command", "skill"], message: "Is required.", rule: "missing" }] },
    });
    expect(refusalWords(claim, 0)).toBe("The message was not sent. Is required.");
    const big = new ApiError(422, { code: "message_too_large", message: "The message is too long.", details: null });
    expect(refusalWords(big, 2)).toBe("The message is too long. Nothing was cancelled: the decisions still wait for you.");
    const local = refusalBeforeSending("", undefined, commands, true);
    expect(local && refusalWords(local, 2)).toBe("The message is empty: write something to send."); // nothing was asked
  });
});
