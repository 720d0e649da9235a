/**
 * What a person sees until the server has said who they are (`GET /api/me`): a neutral
 * "Signing in…", the sign-in dialog after a 401, or why the server could not be asked. None
 * of the shell (sidebar, conversations, welcome text, badges) renders until then, so nothing
 * that needs sign-in shows behind the dialog.
 */
import type { ApiError } from "../api/client";
import { Loading, Problem, problemWords } from "./PageStates";
import { TokenPrompt } from "./TokenPrompt";

interface Props {
  /** The server answered 401: ask for a token. */
  needToken: boolean;
  /** Why `/api/me` failed other than 401 (the server unreachable, a 5xx), or null. */
  error: Pick<ApiError, "status" | "code" | "message"> | null;
  hasStoredToken: boolean;
  /** The stored token is the one the person just typed (not one saved before). */
  tokenTyped?: boolean;
  onSave: (token: string | null) => void;
  onRetry: () => void;
}

export function SignInGate({ needToken, error, hasStoredToken, tokenTyped = false, onSave, onRetry }: Props) {
  return (
    <main className="signed-out" data-testid="signed-out">
      {needToken ? (
        <TokenPrompt onSave={onSave} hasStoredToken={hasStoredToken} tokenTyped={tokenTyped} />
      ) : error ? (
        <Problem {...problemWords(error, "Interlock could not sign you in")} onAction={onRetry} testId="sign-in-error" />
      ) : (
        <Loading what="Signing in…" className="muted pad" />
      )}
    </main>
  );
}
