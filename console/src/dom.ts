// A tiny DOM builder (as the POS's): text is always set as text, never parsed as HTML.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.replace(/^on/, ""), value);
    else if (name === "value" && "value" in el) (el as HTMLInputElement).value = String(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

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
