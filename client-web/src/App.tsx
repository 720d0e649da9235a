/** The shell: sidebar with conversations, the open conversation (from the URL hash), auth prompt. */
import { useCallback, useEffect, useState } from "react";
import { ApiError, api, getToken, onUnauthorized, setToken } from "./api/client";
import type { ConversationSummary, HealthOut } from "./api/types";
import { ConversationView } from "./components/ConversationView";
import { Sidebar } from "./components/Sidebar";
import { TokenPrompt } from "./components/TokenPrompt";
import { AppDataContext, indexBy, type AppData } from "./state/appData";

function idFromHash(): string | null {
  const m = /^#\/c\/(.+)$/.exec(window.location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

export function App() {
  const [activeId, setActiveId] = useState<string | null>(idFromHash);
  const [conversations, setConversations] = useState<ConversationSummary[]>([]);
  const [health, setHealth] = useState<HealthOut | null>(null);
  const [data, setData] = useState<AppData>({ tools: {}, employees: {} });
  const [needToken, setNeedToken] = useState(false);
  const [authVersion, setAuthVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => onUnauthorized(() => setNeedToken(true)), []);

  useEffect(() => {
    const onHash = () => setActiveId(idFromHash());
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  const loadConversations = useCallback(() => {
    api.conversations().then(setConversations, () => {});
  }, []);

  useEffect(() => {
    api.health().then(setHealth, () => {});
    Promise.all([api.tools(), api.employees()]).then(
      ([tools, employees]) => setData({ tools: indexBy(tools, "name"), employees: indexBy(employees, "slug") }),
      () => {},
    );
    loadConversations();
  }, [authVersion, loadConversations]);

  const open = (id: string) => {
    window.location.hash = `#/c/${encodeURIComponent(id)}`;
    setActiveId(id);
  };

  const newChat = async () => {
    setCreating(true);
    setError(null);
    try {
      const conv = await api.createConversation();
      setConversations((list) => [conv, ...list.filter((c) => c.id !== conv.id)]);
      open(conv.id);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
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
        <Sidebar conversations={conversations} activeId={activeId} creating={creating} onNew={newChat} onOpen={open} />
        {activeId ? (
          <ConversationView
            key={`${activeId}:${authVersion}`}
            id={activeId}
            offline={health ? health.model.offline : null}
            listTitle={conversations.find((c) => c.id === activeId)?.title}
            onChanged={loadConversations}
          />
        ) : (
          <main className="conversation welcome">
            <div className="pad">
              <h1>Interlock</h1>
              <p className="muted">AI employees that ask before they act. Start a new chat or pick one on the left.</p>
              {health?.model.offline && (
                <span className="badge offline" data-testid="offline-badge">
                  Offline model
                </span>
              )}
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
