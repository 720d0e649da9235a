/**
 * One row per tool call: title, status in words, what it does in one line (the tool's own
 * sentence when it has one, "Add a note: “buy milk”"; else its args labelled from the schema),
 * the result (long results fold, see FoldedText), and its card when it has one. A frontend
 * call waiting for the browser is run from here (see cards/frontend/runner).
 */
import { useEffect, useState } from "react";
import type { MessageOut, ToolCallOut, ToolOut } from "../api/types";
import { UndoButton } from "../cards/approval/UndoButton";
import { CardHost, notAppliedSentence } from "../cards/CardHost";
import { ArgFields } from "../cards/fields/ArgFields";
import { argsSummary } from "../cards/fields/schemaFields";
import { charCount, reveal, sliceChars } from "../cards/reveal";
import { runFrontendCall, wantsRun } from "../cards/frontend/runner";
import { hasCard, isQuestion } from "../cards/registry";
import { StatusBadge, StatusSentence } from "../cards/status/StatusBadge";
import { answeredInstead, notRun } from "../cards/status/status";
import { GrantNote } from "../permissions/GrantNote";
import { toolTitle, useAppData } from "../state/appData";
import { LOAD_SKILL, skillLoadedText } from "../state/skillLoaded";
import { useConversationActions } from "../state/conversationActions";
import { callSummary, confirmationSummary } from "../state/opLog";
import { FoldedText, needsFold } from "./FoldedText";
import { ViewJson } from "./JsonView";

const CLIP = 300;

export function ToolCallRow({ call, toolMessage }: { call: ToolCallOut; toolMessage?: MessageOut }) {
  const { tools } = useAppData();
  const { owned, dispatch } = useConversationActions();
  const [details, setDetails] = useState(false);
  // A decision the server refused (409): kept here, as the card goes away when the call turns
  // out expired or cancelled.
  const [conflict, setConflict] = useState<string | null>(null);
  const tool = tools[call.name];
  const args = call.executed_args ?? call.proposed_args;
  const card = hasCard(call);

  // A frontend call: this tab runs it (once) as soon as it waits for the browser.
  useEffect(() => {
    if (owned && wantsRun(call)) void runFrontendCall(call);
  }, [owned, call]);

  return (
    <div className="tool-call" data-testid="tool-call" data-tool-call-id={call.id} data-status={call.status} data-tool-name={call.name}>
      <div className="tool-call-line">
        <span className="tool-title">{toolTitle(tools, call.name, call.title)}</span>
        <StatusBadge call={call} />
        {!card && (
          <span className="tool-args" title="Arguments" data-testid="tool-args">
            {reveal(confirmationSummary(call) ?? (args != null ? argsSummary(tool?.input_schema, args) : ""))}
          </span>
        )}
        {!card && args != null && (
          <button type="button" className="link small" aria-expanded={details} data-testid="tool-details" onClick={() => setDetails(!details)}>
            {details ? "Hide details" : "Details"}
          </button>
        )}
      </div>
      {!card && details && (
        <div className="tool-details">
          <ArgFields schema={tool?.input_schema} args={args} />
          <ViewJson value={args} />
        </div>
      )}
      {!card || !notRun(call) ? <StatusSentence call={call} subject={callSummary(call, tools)} /> : null}
      <GrantNote call={call} />
      {call.name === LOAD_SKILL ? (
        <SkillLoaded call={call} tools={tools} />
      ) : card && isQuestion(call, tool) ? null : (
        // A question's card states the person's answer; its result is that answer worded
        // for the model (JSON of a form, "The person chose: …"), so it is not repeated here.
        <ResultSummary call={call} toolMessage={toolMessage} title={toolTitle(tools, call.name, call.title)} />
      )}
      {card && <CardHost call={call} onConflict={setConflict} />}
      {conflict !== null && (
        <p className="notice" role="status" data-testid="decision-not-applied">
          {notAppliedSentence(conflict, call.decision != null)}
        </p>
      )}
      {owned && <UndoButton call={call} onUpdated={(updated) => dispatch({ type: "local.toolCall", toolCall: updated })} />}
    </div>
  );
}

/** A loaded skill: the tools it brought (see state/skillLoaded), never its instructions. */
function SkillLoaded({ call, tools }: { call: ToolCallOut; tools: Record<string, ToolOut> }) {
  if (call.status !== "succeeded") return null;
  return (
    <p className="tool-result muted small" data-testid="tool-result">
      {skillLoadedText(call, tools)}
    </p>
  );
}

function ResultSummary({ call, toolMessage, title }: { call: ToolCallOut; toolMessage?: MessageOut; title: string }) {
  // Failures are worded by StatusSentence; a reject or cancel by the badge and the card; an
  // answer instead of running by the badge and the decision ("Answered: ..."): its result
  // text is what the model was told ("Not run: the person answered instead of ...").
  if (call.status !== "succeeded" || answeredInstead(call)) return null;
  const text = call.result_text ?? toolMessage?.content ?? null;
  if (!text) return null;
  if (needsFold(text) || call.result_cut) {
    return (
      <div className="tool-result" data-testid="tool-result">
        <FoldedText
          text={text}
          title={`Result: ${title}`}
          fileName={`${call.name}-${call.id}.txt`}
          cut={call.result_cut ? { callId: call.id, chars: call.result_chars ?? null } : null}
        />
      </div>
    );
  }
  return <ClippedText text={text} />;
}

/**
 * A result in a box, its hidden characters as `[U+202E]` (see cards/reveal); past `limit`
 * characters (code points, as the server's `result_chars`) it folds with "Show all".
 */
export function ClippedText({ text, limit = CLIP }: { text: string; limit?: number }) {
  const [open, setOpen] = useState(false);
  const size = charCount(text);
  const long = size > limit;
  return (
    <div className="tool-result" data-testid="tool-result">
      <pre className="result-text">{reveal(open || !long ? text : `${sliceChars(text, limit)}…`)}</pre>
      {long && (
        <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show less" : `Show all (${size.toLocaleString()} characters)`}
        </button>
      )}
    </div>
  );
}
