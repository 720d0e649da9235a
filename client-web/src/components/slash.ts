/**
 * Slash commands in the composer: which commands the menu lists for what is typed, the
 * text a pick completes to, and the claim sent with the message. The server re-resolves
 * every command; the claim only says which skill's command the person picked.
 */
import type { CommandClaim, SlashCandidate, SlashCommandOut } from "../api/types";

/** The command word being typed ("/no" → "no"), or null once there is a space or no leading "/". */
export function typedCommand(text: string): string | null {
  const m = /^\/(\S*)$/.exec(text);
  return m ? m[1] : null;
}

/**
 * Commands matching the typed word: commands starting with it first, then commands
 * containing it, then ones whose title or skill mention it; alphabetical within each.
 */
export function filterCommands(commands: readonly SlashCommandOut[], typed: string): SlashCommandOut[] {
  const q = typed.toLowerCase();
  const rank = (c: SlashCommandOut): number => {
    const command = c.command.toLowerCase();
    if (command.startsWith(q)) return 0;
    if (command.includes(q)) return 1;
    if (c.title.toLowerCase().includes(q) || c.skill.toLowerCase().includes(q)) return 2;
    return -1;
  };
  return commands
    .map((c) => ({ c, r: rank(c) }))
    .filter(({ r }) => r >= 0)
    .sort((a, b) => a.r - b.r || a.c.command.localeCompare(b.c.command) || a.c.skill.localeCompare(b.c.skill))
    .map(({ c }) => c);
}

/** The composer text after picking a command. */
export function completion(command: Pick<SlashCommandOut, "command">): string {
  return `/${command.command} `;
}

/** The `/word` a message starts with, lowercase (like the server: surrounding whitespace and
 * the word's case ignored). */
export function commandWord(text: string): string | null {
  const m = /^\/([^\s/]+)(?:\s|$)/.exec(text.trim());
  return m ? m[1].toLowerCase() : null;
}

/** The claim to send: the picked command, while the text still starts with it. */
export function claimFor(text: string, picked: Pick<SlashCommandOut, "skill" | "command"> | null): CommandClaim | undefined {
  if (!picked || commandWord(text) !== picked.command) return undefined;
  return { skill: picked.skill, command: picked.command };
}

/** The next active menu item, wrapping around. */
export function moveActive(active: number, delta: number, count: number): number {
  if (count <= 0) return 0;
  return (((active + delta) % count) + count) % count;
}

/** `details.candidates` of a 422 `slash_command_ambiguous` (malformed entries dropped). */
export function candidatesFrom(details: unknown): SlashCandidate[] {
  const list = (details as { candidates?: unknown } | null | undefined)?.candidates;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (c): c is SlashCandidate =>
      !!c && typeof c === "object" && typeof c.skill === "string" && typeof c.command === "string",
  ).map((c) => ({ skill: c.skill, command: c.command, title: typeof c.title === "string" ? c.title : "" }));
}
