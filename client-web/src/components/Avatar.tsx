/** An employee's avatar: an emoji or short text (an http(s) image URL also works); decorative. */
import { safeUrl } from "./safeUrl";

export function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");
}

export function Avatar({ avatar, name, size = "md" }: { avatar: string; name: string; size?: "sm" | "md" | "lg" }) {
  const url = /^https?:/i.test(avatar.trim()) ? safeUrl(avatar) : undefined;
  return (
    <span className={`avatar avatar-${size}`} aria-hidden="true">
      {url ? <img src={url} alt="" /> : avatar.trim() || initials(name) || "?"}
    </span>
  );
}
