/**
 * The shell: sidebar with conversations, then one view from the URL hash (see state/route):
 * the employee picker, an open conversation, or the admin page. Also the auth prompt.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { AdminPage } from "./admin/AdminPage";
import { api, asApiError, getToken, onUnauthorized, setToken } from "./api/client";
import type { ConversationSummary, EmployeeOut, HealthOut, MeOut, ToolOut } from "./api/types";
import { ConversationView } from "./components/ConversationView";
import { EmployeePicker } from "./components/EmployeePicker";
import { Sidebar } from "./components/Sidebar";
import { TokenPrompt } from "./components/TokenPrompt";
import { AppDataContext, indexBy, type AppData } from "./state/appData";
import { parseHash, routeHash, type Route } from "./state/route";

export function App() {
  const [route, setRoute] = useState<Route>(() => parseHash(window.location.hash));
  const [conversations, setConversations] = useState<ConversationSummary[]>([]);
  const [health, setHealth] = useState<HealthOut | null>(null);
  const [me, setMe] = useState<MeOut | null>(null);
  const [tools, setTools] = useState<ToolOut[]>([]);
  const [employees, setEmployees] = useState<EmployeeOut[] | null>(null); // null: loading
  const [needToken, setNeedToken] = useState(false);
  const [authVersion, setAuthVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => onUnauthorized(() => setNeedToken(true)), []);

  useEffect(() => {
    const onHash = () => setRoute(parseHash(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  // Only the latest list request may apply (an older answer can arrive last).
  const listRequest = useRef(0);
  const loadConversations = useCallback(() => {
    const request = ++listRequest.current;
    api.conversations().then((list) => request === listRequest.current && setConversations(list), () => {});
  }, []);

  const loadCatalog = useCallback(() => {
    api.tools().then(setTools, () => {});
    api.employees().then(setEmployees, () => setEmployees((list) => list ?? []));
  }, []);

  useEffect(() => {
    api.health().then(setHealth, () => {});
    api.me().then(setMe, () => {});
    loadCatalog();
    loadConversations();
  }, [authVersion, loadCatalog, loadConversations]);

  const data = useMemo<AppData>(
    () => ({ me, tools: indexBy(tools, "name"), employees: indexBy(employees ?? [], "slug"), reload: loadCatalog }),
    [me, tools, employees, loadCatalog],
  );

  const navigate = (next: Route) => {
    window.location.hash = routeHash(next);
    setRoute(next);
  };

  /** Creates a conversation with `employee`, sends `prompt` when given, and opens it. */
  const startChat = async (employee: string, prompt?: string) => {
    setCreating(true);
    setError(null);
    try {
      const conv = await api.createConversation(employee);
      setConversations((list) => [conv, ...list.filter((c) => c.id !== conv.id)]);
      if (prompt) {
        // Still open the conversation when sending fails; the prompt can be sent again.
        await api.postMessage(conv.id, prompt).catch((e: unknown) => setError(asApiError(e).message));
      }
      loadConversations(); // also discards a list read before the conversation existed
      navigate({ kind: "conversation", id: conv.id });
    } catch (e) {
      setError(asApiError(e).message);
    } finally {
      setCreating(false);
    }
  };

  const saveToken = (token: string | null) => {
    setToken(token);
    setNeedToken(false);
    setAuthVersion((v) => v + 1);
  };

  return (
    <AppDataContext.Provider value={data}>
      <div className="app">
        <Sidebar
          conversations={conversations}
          activeId={route.kind === "conversation" ? route.id : null}
          adminActive={route.kind === "admin"}
          onNew={() => navigate({ kind: "home" })}
          onOpen={(id) => navigate({ kind: "conversation", id })}
        />
        {route.kind === "conversation" ? (
          <ConversationView
            key={`${route.id}:${authVersion}`}
            id={route.id}
            offline={health ? health.model.offline : null}
            listTitle={conversations.find((c) => c.id === route.id)?.title}
            onChanged={loadConversations}
          />
        ) : route.kind === "admin" ? (
          <AdminPage key={authVersion} />
        ) : (
          <main className="conversation welcome">
            <div className="pad">
              <h1>Interlock</h1>
              <p className="muted">AI employees that ask before they act. Pick someone to start a chat, or open one on the left.</p>
              {health?.model.offline && (
                <span className="badge offline" data-testid="offline-badge">
                  Offline model
                </span>
              )}
              <EmployeePicker employees={employees} busy={creating} onStart={(slug, prompt) => void startChat(slug, prompt)} />
            </div>
          </main>
        )}
        {error && (
          <div className="toast error" role="alert">
            {error}
            <button type="button" className="link" onClick={() => setError(null)}>
              Dismiss
            </button>
          </div>
        )}
        {needToken && <TokenPrompt onSave={saveToken} hasStoredToken={getToken() != null} />}
      </div>
    </AppDataContext.Provider>
  );
}
