/**
 * What a person sees until the server has said who they are (`GET /api/me`): a neutral
 * "Signing in…", the sign-in dialog after a 401, or why the server could not be asked. None
 * of the shell (sidebar, conversations, welcome text, badges) renders until then, so nothing
 * that needs sign-in shows behind the dialog.
 */
import { TokenPrompt } from "./TokenPrompt";

interface Props {
  /** The server answered 401: ask for a token. */
  needToken: boolean;
  /** Why `/api/me` failed other than 401 (the server unreachable, a 5xx), or null. */
  error: string | null;
  hasStoredToken: boolean;
  onSave: (token: string | null) => void;
  onRetry: () => void;
}

export function SignInGate({ needToken, error, hasStoredToken, onSave, onRetry }: Props) {
  return (
    <main className="signed-out" data-testid="signed-out">
      {needToken ? (
        <TokenPrompt onSave={onSave} hasStoredToken={hasStoredToken} />
      ) : error ? (
        <div className="pad" role="alert" data-testid="sign-in-error">
          <p className="error">{error}</p>
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        </div>
      ) : (
        <p className="muted pad" role="status">
          Signing in…
        </p>
      )}
    </main>
  );
}
