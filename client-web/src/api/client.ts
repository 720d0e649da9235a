/**
 * The HTTP client: one `request()` that adds the bearer token, parses JSON and turns
 * every non-2xx answer into an `ApiError`. A 401 also tells the auth listeners, so the
 * app can ask for a token.
 */
import type {
  ActionsOut,
  ApiErrorBody,
  AuditPage,
  AuditQuery,
  ApprovalOut,
  ConversationPatch,
  CancelResult,
  CommandClaim,
  ConversationDetail,
  ConversationSummary,
  DecisionIn,
  EmployeeCreate,
  EmployeeOut,
  EmployeePatch,
  GrantIn,
  GrantOut,
  HealthOut,
  McpServerOut,
  McpTokenCreated,
  McpTokenIn,
  McpTokenOut,
  MeOut,
  MessageAccepted,
  MessageCreate,
  SkillOut,
  SlashCommandOut,
  ToolCallOut,
  ToolOut,
  ToolMetricsReport,
  ToolResultIn,
} from "./types";
import { noteServerDate } from "../state/serverClock";

const TOKEN_KEY = "interlock.token";

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/**
 * True when `token` can be sent as it is: visible ASCII only (what the server's tokens are
 * made of). Anything else (a letter with an accent, an invisible or direction mark pasted
 * along) cannot be the server's token, and the browser refuses to send some of it at all.
 */
export function tokenLooksValid(token: string): boolean {
  return /^[\x21-\x7e]+$/.test(token);
}

/** A token that cannot be sent: answered as the server answers a wrong one (401). */
function refusedToken(): ApiError {
  notifyUnauthorized();
  return new ApiError(401, { code: "unauthorized", message: "The token was not accepted." });
}

/**
 * The `Authorization` header of the saved token (none without one).
 *
 * @throws ApiError 401 (after telling the `onUnauthorized` listeners) when the saved token
 * cannot be the server's (see `tokenLooksValid`), so the person is asked for another one.
 */
export function authHeaders(): Record<string, string> {
  const token = getToken();
  if (token && !tokenLooksValid(token)) throw refusedToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called whenever the server answers 401 (HTTP or the event stream). */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function notifyUnauthorized(): void {
  unauthorizedListeners.forEach((l) => l());
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, body: ApiErrorBody) {
    super(body.message);
    this.name = "ApiError";
    this.status = status;
    this.code = body.code;
    this.details = body.details;
  }
}

/** A request that never reached the server: the person reads what to do, the browser's own
 * error (`TypeError: Failed to fetch`) goes to the console. */
function networkError(e: unknown): ApiError {
  console.warn("Request failed before reaching the server:", e);
  return new ApiError(0, { code: "network", message: "Cannot reach the server. Check your connection, then try again." });
}

/**
 * The field errors of a 422 `invalid_request` as sentences ("The title must have at most 200
 * characters."), instead of its "The request is not valid."; null when it has none.
 */
export function fieldErrorWords(error: ApiError): string | null {
  if (error.code !== "invalid_request") return null;
  const fields = (error.details as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(fields)) return null;
  const said = fields
    .map((f: { message?: unknown }) => (typeof f?.message === "string" ? sentence(f.message.replace(/^Value error, /, "")) : ""))
    .filter(Boolean);
  return said.length ? said.join(" ") : null;
}

/** As the server's `errors._sentence`: a capital and a full stop; a first word holding `_` or
 * `.` is a name as written and keeps its case. */
function sentence(text: string): string {
  const t = text.trim();
  if (!t) return "";
  const first = t.split(/\s/, 1)[0].replace(/[.!?…,:;]+$/, "");
  const capital = /[_.]/.test(first) ? t : t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** Any thrown value as an ApiError (status 0 when it did not come from the server). */
export function asApiError(e: unknown): ApiError {
  return e instanceof ApiError ? e : new ApiError(0, { code: "error", message: String(e) });
}

/** What the person reads for a failed answer that carries no error of the server's. */
export function withoutBody(status: number): string {
  if (status >= 500) return "The server could not answer just now. Try again in a moment.";
  return "The server refused this request. Reload the page and try again.";
}

/** Reads `{"error": {...}}` from a failed response; falls back to `withoutBody`. */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  // No error body (a proxy's page, a crash): a sentence, not "Bad Gateway" or "HTTP 502".
  let body: ApiErrorBody = { code: `http_${res.status}`, message: withoutBody(res.status) };
  try {
    const json: unknown = await res.json();
    const err = (json as { error?: ApiErrorBody } | null)?.error;
    if (err && typeof err.message === "string") body = err;
  } catch {
    /* not JSON */
  }
  return new ApiError(res.status, body);
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  // The server names the channel ("web") in the audit log from this header.
  const headers: Record<string, string> = {
    Accept: "application/json",
    "X-Interlock-Client": "web",
    ...authHeaders(),
  };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw networkError(e);
  }
  noteServerDate(res.headers.get("Date"));
  if (res.status === 401) notifyUnauthorized();
  if (!res.ok) throw await errorFromResponse(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** GET a JSON answer with its response headers (errors as for `request`). */
export async function requestWithHeaders<T>(path: string): Promise<[T, Headers]> {
  const auth = authHeaders(); // outside the try: a refused token is a 401, not a network error
  let res: Response;
  try {
    res = await fetch(path, { headers: { Accept: "application/json", "X-Interlock-Client": "web", ...auth } });
  } catch (e) {
    throw networkError(e);
  }
  noteServerDate(res.headers.get("Date"));
  if (res.status === 401) notifyUnauthorized();
  if (!res.ok) throw await errorFromResponse(res);
  return [(await res.json()) as T, res.headers];
}

/** GET a text/plain answer (errors as for `request`). */
export async function requestText(path: string): Promise<string> {
  const auth = authHeaders();
  let res: Response;
  try {
    res = await fetch(path, { headers: { Accept: "text/plain", ...auth } });
  } catch (e) {
    throw networkError(e);
  }
  if (res.status === 401) notifyUnauthorized();
  if (!res.ok) throw await errorFromResponse(res);
  return res.text();
}

const enc = encodeURIComponent;

/** `?a=1&b=2` from the non-empty fields of `params` ("" when none). */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Downloads a GET answer as a file (the bearer token cannot ride on a plain link). */
export async function download(path: string, fallbackName: string): Promise<void> {
  const auth = authHeaders();
  let res: Response;
  try {
    res = await fetch(path, { headers: { ...auth } });
  } catch (e) {
    throw networkError(e);
  }
  if (res.status === 401) notifyUnauthorized();
  if (!res.ok) throw await errorFromResponse(res);
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

export const api = {
  health: () => request<HealthOut>("GET", "/api/health"),
  me: () => request<MeOut>("GET", "/api/me"),
  employees: (includeDisabled = false) =>
    request<EmployeeOut[]>("GET", includeDisabled ? "/api/employees?include_disabled=true" : "/api/employees"),
  /** One employee (a disabled one for admins only: 404 for others). */
  employee: (slug: string) => request<EmployeeOut>("GET", `/api/employees/${enc(slug)}`),
  createEmployee: (body: EmployeeCreate) => request<EmployeeOut>("POST", "/api/employees", body),
  updateEmployee: (slug: string, changes: EmployeePatch) =>
    request<EmployeeOut>("PATCH", `/api/employees/${enc(slug)}`, changes),
  deleteEmployee: (slug: string) => request<void>("DELETE", `/api/employees/${enc(slug)}`),
  resetEmployee: (slug: string) => request<EmployeeOut>("POST", `/api/employees/${enc(slug)}/reset`),
  commands: (slug: string) => request<SlashCommandOut[]>("GET", `/api/employees/${enc(slug)}/commands`),
  skills: () => request<SkillOut[]>("GET", "/api/skills"),
  /** Remote MCP servers (admins only). */
  mcpServers: () => request<McpServerOut[]>("GET", "/api/mcp-servers"),
  /** Lists a remote MCP server's tools again now (waits up to 15 s for the answer). */
  refreshMcpServer: (name: string) => request<McpServerOut>("POST", `/api/mcp-servers/${enc(name)}/refresh`),
  tools: () => request<ToolOut[]>("GET", "/api/tools"),
  conversations: () => request<ConversationSummary[]>("GET", "/api/conversations"),
  /** One page of the caller's conversations (latest activity first) and the next page's cursor. */
  conversationsPage: (cursor?: string | null, limit = 50) =>
    requestWithHeaders<ConversationSummary[]>(`/api/conversations${queryString({ limit, cursor })}`).then(
      ([items, headers]) => ({ items, next: headers.get("Next-Cursor") }),
    ),
  createConversation: (employee?: string) =>
    request<ConversationSummary>("POST", "/api/conversations", employee ? { employee } : {}),
  conversation: (id: string) => request<ConversationDetail>("GET", `/api/conversations/${enc(id)}`),
  renameConversation: (id: string, title: string) =>
    request<ConversationSummary>("PATCH", `/api/conversations/${enc(id)}`, { title } satisfies ConversationPatch),
  /** The conversation's calls waiting for the caller, their cards read as things are now. */
  pending: (id: string) => request<ToolCallOut[]>("GET", `/api/conversations/${enc(id)}/pending`),
  /** Every call waiting for the caller across their conversations, newest first. */
  approvals: () => request<ApprovalOut[]>("GET", "/api/approvals"),
  deleteConversation: (id: string) => request<void>("DELETE", `/api/conversations/${enc(id)}`),
  /** `command`: the slash command picked from the menu (the server re-resolves it). */
  postMessage: (id: string, content: string, command?: CommandClaim) =>
    request<MessageAccepted>("POST", `/api/conversations/${enc(id)}/messages`, {
      content,
      ...(command ? { command } : {}),
    } satisfies MessageCreate),
  cancel: (id: string) => request<CancelResult>("POST", `/api/conversations/${enc(id)}/cancel`),
  decide: (toolCallId: string, body: DecisionIn) =>
    request<ToolCallOut>("POST", `/api/tool-calls/${enc(toolCallId)}/decision`, body),
  /** A frontend tool's result (issue 6); 409 when already posted or not waiting. */
  postResult: (toolCallId: string, body: ToolResultIn) =>
    request<ToolCallOut>("POST", `/api/tool-calls/${enc(toolCallId)}/result`, body),
  /** The tool's whole text output (the call's result_text may be cut). */
  toolOutput: (toolCallId: string) => requestText(`/api/tool-calls/${enc(toolCallId)}/output`),
  /** Puts back what a write call changed (409: a later call changed the same data, named). */
  undo: (toolCallId: string) => request<ToolCallOut>("POST", `/api/tool-calls/${enc(toolCallId)}/undo`),
  redo: (toolCallId: string) => request<ToolCallOut>("POST", `/api/tool-calls/${enc(toolCallId)}/redo`),
  audit: (query: AuditQuery, before?: number, limit = 50) =>
    request<AuditPage>("GET", `/api/audit${queryString({ ...query, before, limit })}`),
  auditExportUrl: (query: AuditQuery) => `/api/audit/export${queryString({ ...query })}`,
  toolMetrics: (since?: string, until?: string) =>
    request<ToolMetricsReport>("GET", `/api/metrics/tools${queryString({ since, until })}`),
  /** The caller's live "don't ask again" grants, newest first. */
  grants: () => request<GrantOut[]>("GET", "/api/grants"),
  createGrant: (body: GrantIn) => request<GrantOut>("POST", "/api/grants", body),
  revokeGrant: (id: string) => request<void>("DELETE", `/api/grants/${enc(id)}`),
  /** The caller's MCP tokens, newest first, revoked ones included. */
  mcpTokens: () => request<McpTokenOut[]>("GET", "/api/tokens"),
  /** A new MCP token; the answer's `token` is the only time it is shown. */
  createMcpToken: (name: string) =>
    request<McpTokenCreated>("POST", "/api/tokens", { name, scope: "mcp" } satisfies McpTokenIn),
  revokeMcpToken: (id: string) => request<McpTokenOut>("POST", `/api/tokens/${enc(id)}/revoke`),
  /** The caller's "AI actions" switch for every employee. */
  actions: () => request<ActionsOut[]>("GET", "/api/actions"),
  setActions: (employee: string, on: boolean) =>
    request<ActionsOut>("PUT", `/api/actions/${enc(employee)}`, { on }),
  eventsUrl: (id: string) => `/api/conversations/${enc(id)}/events`,
};
