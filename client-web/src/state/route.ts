/**
 * The in-app views, kept in the URL hash: `#/` (pick an employee), `#/new/<employee>` (a new
 * chat, not stored until its first message), `#/c/<id>` (optionally `#/c/<id>/call/<call id>`
 * to bring one tool call into view), `#/approvals`, `#/permissions`, `#/audit`, `#/admin`.
 */
export type Route =
  | { kind: "home" }
  | { kind: "new"; employee: string }
  | { kind: "conversation"; id: string; call?: string }
  | { kind: "approvals" }
  | { kind: "audit" }
  | { kind: "permissions" }
  | { kind: "admin" };

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parseHash(hash: string): Route {
  const withCall = /^#\/c\/([^/]+)\/call\/([^/]+)$/.exec(hash);
  if (withCall) {
    const id = decode(withCall[1]);
    const call = decode(withCall[2]);
    return id && call ? { kind: "conversation", id, call } : { kind: "home" };
  }
  const conversation = /^#\/c\/(.+)$/.exec(hash);
  if (conversation) {
    const id = decode(conversation[1]);
    return id ? { kind: "conversation", id } : { kind: "home" };
  }
  const draft = /^#\/new\/([^/]+)$/.exec(hash);
  if (draft) {
    const employee = decode(draft[1]);
    return employee ? { kind: "new", employee } : { kind: "home" };
  }
  if (hash === "#/admin") return { kind: "admin" };
  if (hash === "#/approvals") return { kind: "approvals" };
  if (hash === "#/audit") return { kind: "audit" };
  if (hash === "#/permissions") return { kind: "permissions" };
  return { kind: "home" };
}

export function routeHash(route: Route): string {
  switch (route.kind) {
    case "conversation":
      return route.call
        ? `#/c/${encodeURIComponent(route.id)}/call/${encodeURIComponent(route.call)}`
        : `#/c/${encodeURIComponent(route.id)}`;
    case "new":
      return `#/new/${encodeURIComponent(route.employee)}`;
    case "approvals":
      return "#/approvals";
    case "audit":
      return "#/audit";
    case "permissions":
      return "#/permissions";
    case "admin":
      return "#/admin";
    case "home":
      return "#/";
  }
}
