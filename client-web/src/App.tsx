/**
 * The shell: sidebar with conversations (a drawer below 700 px), then one view from the URL
 * hash (see state/route): the employee picker, a new chat (stored on its first message), an
 * open conversation, the Approvals view, or the admin page. Also the auth prompt, and the
 * tab title, which counts the decisions waiting for the person. None of the shell renders
 * until `/api/me` has said who the person is (SignInGate stands in until then).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { AdminPage } from "./admin/AdminPage";
import { AuditPage } from "./audit/AuditPage";
import { api, asApiError, getToken, onUnauthorized, setToken, type ApiError } from "./api/client";
import type { CommandClaim, ConversationSummary, EmployeeOut, HealthOut, MeOut, ToolOut } from "./api/types";
import { ApprovalsView } from "./components/ApprovalsView";
import { ConversationView } from "./components/ConversationView";
import { EmployeePicker } from "./components/EmployeePicker";
import { NewChatView } from "./components/NewChatView";
import { Sidebar } from "./components/Sidebar";
import { SignInGate } from "./components/SignInGate";
import { SkipLink } from "./components/SkipLink";
import { PermissionsPage } from "./permissions/PermissionsPage";
import { AppDataContext, indexBy, type AppData } from "./state/appData";
import { announceActivity, onActivity } from "./state/broadcast";
import { parseHash, routeHash, type Route } from "./state/route";
import { emptyList, waitingByConversation, withFirstPage, withNextPage, type ConversationList } from "./state/conversationList";
import { documentTitle, waitingTotal } from "./state/title";
import { reveal } from "./cards/reveal";

/** The conversation list (and its waiting counts) is re-read at least this often. */
const LIST_REFRESH_MS = 15_000;

export function App() {
  const [route, setRoute] = useState<Route>(() => parseHash(window.location.hash));
  const [list, setList] = useState<ConversationList>(emptyList);
  const conversations = list.items;
  const setConversations = (change: (items: ConversationSummary[]) => ConversationSummary[]) =>
    setList((l) => ({ ...l, items: change(l.items) }));
  /** Calls waiting for this person in their own conversations (all of them, loaded or not). */
  const [ownWaiting, setOwnWaiting] = useState<Array<{ id: string; pending: number }>>([]);
  const [health, setHealth] = useState<HealthOut | null>(null);
  const [me, setMe] = useState<MeOut | null>(null); // null: not signed in (yet)
  const [meError, setMeError] = useState<ApiError | null>(null);
  const [tools, setTools] = useState<ToolOut[]>([]);
  const [employees, setEmployees] = useState<EmployeeOut[] | null>(null); // null: loading
  const [needToken, setNeedToken] = useState(false);
  /** The token in use is the one the person just typed (not one saved before this page). */
  const [typedToken, setTypedToken] = useState(false);
  const [authVersion, setAuthVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [drawerOpen, setDrawerOpen] = useState(false);
  /** The conversation this tab created last (its view replays the stream from the start). */
  const [freshId, setFreshId] = useState<string | null>(null);
  const [openWaiting, setOpenWaiting] = useState<{ id: string; waiting: number } | null>(null);
  const [approverWaiting, setApproverWaiting] = useState(0);

  useEffect(() => onUnauthorized(() => setNeedToken(true)), []);

  useEffect(() => {
    const onHash = () => {
      setRoute(parseHash(window.location.hash));
      setDrawerOpen(false);
      setFreshId(null);
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  // Only the latest list request may apply (an older answer can arrive last).
  const listRequest = useRef(0);
  const loadConversations = useCallback(() => {
    const request = ++listRequest.current;
    api.conversationsPage().then(
      (page) => request === listRequest.current && setList((l) => withFirstPage(l, page)),
      () => {},
    );
    // Calls waiting for this person as an approver, in other people's conversations: not in
    // the list above, but they wait for a decision all the same (badge and tab title).
    api.approvals().then(
      (items) => {
        if (request !== listRequest.current) return;
        setApproverWaiting(items.filter((a) => a.role === "approver").length);
        setOwnWaiting(waitingByConversation(items));
      },
      () => {},
    );
  }, []);

  // Older pages: read once each, when the sidebar is scrolled to its end.
  const loadingMore = useRef(false);
  const loadMore = useCallback(() => {
    const cursor = list.next;
    if (!cursor || loadingMore.current) return;
    loadingMore.current = true;
    api
      .conversationsPage(cursor)
      .then(
        (page) => setList((l) => (l.next === cursor ? withNextPage(l, page) : l)),
        () => {},
      )
      .finally(() => {
        loadingMore.current = false;
      });
  }, [list.next]);

  const loadCatalog = useCallback(() => {
    api.tools().then(setTools, () => {});
    api.employees().then(setEmployees, () => setEmployees((list) => list ?? []));
  }, []);

  // One check of the token (`/api/me`); what needs sign-in is read once it is accepted, so a
  // refused token is one 401, not one per list the shell would load.
  useEffect(() => {
    api.health().then(setHealth, () => {});
    setMeError(null);
    api.me().then(
      (who) => {
        setMe(who);
        setTypedToken(false); // accepted: from now on it is the saved token
      },
      (e: unknown) => {
        const err = asApiError(e);
        if (err.status !== 401) setMeError(err); // a 401 asks for a token instead
      },
    );
  }, [authVersion]);

  const signedIn = me !== null;
  useEffect(() => {
    if (!signedIn) return;
    loadCatalog();
    loadConversations();
  }, [signedIn, authVersion, loadCatalog, loadConversations]);

  // Keep the list (titles, statuses, waiting counts) fresh: on activity here or in another
  // tab, on focus, and on a bounded interval while the tab is visible (once signed in).
  useEffect(() => {
    if (!signedIn) return;
    const off = onActivity(loadConversations);
    const onVisible = () => document.visibilityState === "visible" && loadConversations();
    window.addEventListener("focus", loadConversations);
    document.addEventListener("visibilitychange", onVisible);
    const timer = window.setInterval(() => document.visibilityState === "visible" && loadConversations(), LIST_REFRESH_MS);
    return () => {
      off();
      window.removeEventListener("focus", loadConversations);
      document.removeEventListener("visibilitychange", onVisible);
      window.clearInterval(timer);
    };
  }, [signedIn, loadConversations]);

  const openId = route.kind === "conversation" ? route.id : null;
  const liveOpen = openWaiting && openWaiting.id === openId ? openWaiting : null;
  const totalWaiting = waitingTotal(ownWaiting, liveOpen) + approverWaiting;
  const pageTitle =
    route.kind === "conversation"
      ? reveal(conversations.find((c) => c.id === route.id)?.title || "Conversation")
      : route.kind === "approvals"
        ? "Approvals"
        : route.kind === "audit"
          ? "Audit"
          : route.kind === "admin"
          ? "Admin"
          : route.kind === "permissions"
            ? "Permissions"
            : null;
  useEffect(() => {
    document.title = documentTitle(totalWaiting, pageTitle);
  }, [totalWaiting, pageTitle]);

  const data = useMemo<AppData>(
    () => ({ me, tools: indexBy(tools, "name"), employees: indexBy(employees ?? [], "slug"), reload: loadCatalog }),
    [me, tools, employees, loadCatalog],
  );

  const navigate = (next: Route, replace = false) => {
    const hash = routeHash(next);
    if (replace) window.history.replaceState(null, "", hash);
    else window.location.hash = hash;
    setRoute(next);
    setDrawerOpen(false);
    setFreshId(null);
  };

  /**
   * Creates a conversation with `employee`, sends `content`, and opens it. A conversation is
   * only kept with its first message: when the message is refused, the new conversation is
   * deleted again and the error is thrown (the composer shows it, keeping the text).
   */
  const startChat = async (employee: string, content: string, command?: CommandClaim) => {
    setCreating(true);
    setError(null);
    try {
      const conv = await api.createConversation(employee);
      try {
        await api.postMessage(conv.id, content, command);
      } catch (e) {
        await api.deleteConversation(conv.id).catch(() => {});
        throw e;
      }
      setConversations((list) => [conv, ...list.filter((c) => c.id !== conv.id)]);
      loadConversations(); // also discards a list read before the conversation existed
      announceActivity({ kind: "conversations" });
      navigate({ kind: "conversation", id: conv.id }, true);
      setFreshId(conv.id); // after navigate, which forgets the previous one
    } finally {
      setCreating(false);
    }
  };

  const renameConversation = async (id: string, title: string) => {
    const updated = await api.renameConversation(id, title);
    setConversations((list) => list.map((c) => (c.id === id ? { ...c, ...updated } : c)));
    announceActivity({ kind: "conversations" });
  };

  const deleteConversation = async (id: string) => {
    await api.deleteConversation(id);
    setConversations((list) => list.filter((c) => c.id !== id));
    announceActivity({ kind: "conversations" });
    if (route.kind === "conversation" && route.id === id) navigate({ kind: "home" });
  };

  const onWaiting = useCallback((id: string, waiting: number) => setOpenWaiting({ id, waiting }), []);

  const saveToken = (token: string | null) => {
    setToken(token);
    setTypedToken(token != null);
    setMe(null); // the token may be someone else's: nothing shows until /api/me answers
    setNeedToken(false);
    setAuthVersion((v) => v + 1);
  };

  // Esc closes the drawer.
  useEffect(() => {
    if (!drawerOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setDrawerOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [drawerOpen]);

  if (me === null || needToken) {
    return (
      <SignInGate
        needToken={needToken}
        error={meError}
        hasStoredToken={getToken() != null}
        tokenTyped={typedToken}
        onSave={saveToken}
        onRetry={() => setAuthVersion((v) => v + 1)}
      />
    );
  }

  return (
    <AppDataContext.Provider value={data}>
      <div className={drawerOpen ? "app drawer-open" : "app"}>
        <SkipLink />
        <div className="mobile-bar">
          <button
            type="button"
            className="icon menu-button"
            aria-label="Conversations"
            aria-expanded={drawerOpen}
            aria-controls="sidebar"
            data-testid="menu-button"
            onClick={() => setDrawerOpen(!drawerOpen)}
          >
            ☰
          </button>
          <span className="brand">Interlock</span>
          {totalWaiting > 0 && (
            <a href="#/approvals" className="count-badge" aria-label={`${totalWaiting} decisions waiting`}>
              {totalWaiting}
            </a>
          )}
        </div>
        <div className="drawer-backdrop" aria-hidden="true" onClick={() => setDrawerOpen(false)} />
        <Sidebar
          conversations={conversations}
          activeId={openId}
          adminActive={route.kind === "admin"}
          approvalsActive={route.kind === "approvals"}
          auditActive={route.kind === "audit"}
          permissionsActive={route.kind === "permissions"}
          waitingTotal={totalWaiting}
          openWaiting={liveOpen}
          onNew={() => navigate({ kind: "home" })}
          onOpen={(id) => navigate({ kind: "conversation", id })}
          onApprovals={() => navigate({ kind: "approvals" })}
          onRename={renameConversation}
          onDelete={deleteConversation}
          hasMore={list.next !== null}
          onLoadMore={loadMore}
        />
        {route.kind === "conversation" ? (
          <ConversationView
            key={`${route.id}:${authVersion}`}
            id={route.id}
            focusCallId={route.call}
            offline={health ? health.model.offline : null}
            listTitle={conversations.find((c) => c.id === route.id)?.title}
            fresh={freshId === route.id}
            onChanged={loadConversations}
            onWaiting={onWaiting}
          />
        ) : route.kind === "new" ? (
          <NewChatView
            key={route.employee}
            employee={route.employee}
            offline={health ? health.model.offline : null}
            busy={creating}
            onStart={startChat}
          />
        ) : route.kind === "approvals" ? (
          <ApprovalsView key={authVersion} />
        ) : route.kind === "audit" ? (
          <AuditPage key={authVersion} />
        ) : route.kind === "permissions" ? (
          <PermissionsPage key={authVersion} />
        ) : route.kind === "admin" ? (
          <AdminPage key={authVersion} />
        ) : (
          <main className="conversation welcome">
            <div className="pad">
              <h1>Interlock</h1>
              <p className="muted">AI employees that ask before they act. Pick someone to start a chat, or open one of your conversations.</p>
              {health?.model.offline && (
                <span className="badge offline" data-testid="offline-badge">
                  Offline model
                </span>
              )}
              <EmployeePicker
                employees={employees}
                busy={creating}
                onStart={(slug, prompt) => {
                  if (prompt) void startChat(slug, prompt).catch((e: unknown) => setError(asApiError(e).message));
                  else navigate({ kind: "new", employee: slug });
                }}
              />
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
      </div>
    </AppDataContext.Provider>
  );
}
