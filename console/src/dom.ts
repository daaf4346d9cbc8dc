// The console's form fields, tables and status lines, built with the UI kit's DOM builder (which
// the pages take from here with them).
import { h } from "@ecf/ui-kit";

export { h };

let fieldIds = 0;

/** A labelled form field: the label names the control by id (its text alone), a hint describes it. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  control.id ||= `campo-${++fieldIds}`;
  const note = hint ? h("small", { id: `${control.id}-nota` }, hint) : null;
  if (note) control.setAttribute("aria-describedby", note.id);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, note);
}

/** A table with a header row; `rows` are cells already built. */
export function table(caption: string, headers: string[], rows: (Node | string)[][]): HTMLTableElement {
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, ...rows.map((cells) => h("tr", {}, ...cells.map((c) => h("td", {}, c))))),
  );
}

/** A status line that screen readers announce. */
export function statusLine(): HTMLParagraphElement {
  return h("p", { class: "status", role: "status", "aria-live": "polite" });
}
