/** What rows and cards may do to the open conversation. */
import { createContext, useContext } from "react";
import type { Action } from "./reducer";

export interface ConversationActions {
  dispatch: (action: Action) => void;
  refresh: () => Promise<void>;
  /** The API only returns the viewer's own conversations, so this is true there. */
  owned: boolean;
  /** The event stream is open; while it reconnects cards do not offer decisions. */
  connected: boolean;
}

export const ConversationActionsContext = createContext<ConversationActions>({
  dispatch: () => {},
  refresh: async () => {},
  owned: false,
  connected: true,
});

export function useConversationActions(): ConversationActions {
  return useContext(ConversationActionsContext);
}
