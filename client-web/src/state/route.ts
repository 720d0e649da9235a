/** The in-app views, kept in the URL hash: `#/` (pick an employee), `#/c/<id>`, `#/admin`. */
export type Route = { kind: "home" } | { kind: "conversation"; id: string } | { kind: "admin" };

export function parseHash(hash: string): Route {
  const conversation = /^#\/c\/(.+)$/.exec(hash);
  if (conversation) {
    try {
      return { kind: "conversation", id: decodeURIComponent(conversation[1]) };
    } catch {
      return { kind: "home" };
    }
  }
  if (hash === "#/admin") return { kind: "admin" };
  return { kind: "home" };
}

export function routeHash(route: Route): string {
  switch (route.kind) {
    case "conversation":
      return `#/c/${encodeURIComponent(route.id)}`;
    case "admin":
      return "#/admin";
    case "home":
      return "#/";
  }
}
