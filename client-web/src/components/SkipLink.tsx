/**
 * The first stop of the Tab key: "Skip to main content", shown only while it has the focus.
 * It moves the focus to the page's <main> (every view renders one), past the conversation
 * list, so a keyboard user does not tab through every conversation to reach a card. A button,
 * not a `#main` link: the app keeps its views in the URL hash.
 */
export function focusMain(doc: Pick<Document, "querySelector"> = document): boolean {
  const main = doc.querySelector<HTMLElement>("main");
  if (!main) return false;
  if (!main.hasAttribute("tabindex")) main.setAttribute("tabindex", "-1");
  main.focus();
  return true;
}

export function SkipLink() {
  return (
    <button type="button" className="skip-link" data-testid="skip-link" onClick={() => focusMain()}>
      Skip to main content
    </button>
  );
}
