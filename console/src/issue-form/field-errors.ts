// Problems shown where they are fixed: each document path the form fills is bound to the control
// that fills it; a problem goes to the control of its longest bound prefix (a line's unknown
// element to the line), in words, and marks it aria-invalid. One the form cannot place is listed
// above the submit button, in words too.
import { h } from "../dom.ts";
import { inWords } from "./words.ts";

/** A problem at a path of the document: the validation's, the API's or the form's own (unreadable input). */
export interface FieldProblem {
  path: string;
  /** Spanish, possibly naming elements (inWords says them as the labels do). */
  messageEs: string;
}

/** Ids for bound controls without one (a line's fieldset). */
let groups = 0;

interface Bound {
  control: HTMLElement;
  note: HTMLElement;
}

export class FieldErrors {
  private readonly bound = new Map<string, Bound>();
  private readonly touched = new Set<HTMLElement>();
  readonly general = h("ul", { class: "errors", "aria-label": "Datos por corregir", "aria-live": "polite" });

  /** `control` fills `paths` (its message appears right after it). */
  bind(control: HTMLElement, ...paths: string[]): void {
    let note = this.noteOf(control);
    if (!note) {
      control.id ||= `grupo-${++groups}`;
      note = h("small", { class: "field-error", id: `${control.id}-error` });
      control.after(note);
      control.addEventListener("change", () => this.touched.add(control));
    }
    for (const path of paths) this.bound.set(path, { control, note });
  }

  /**
   * Shows `problems`: all of them (on submit, after a refusal) or only at controls already changed.
   * Answers the first control marked and, in words, the problems no field holds.
   */
  show(problems: FieldProblem[], all: boolean): { first?: HTMLElement; unplaced: string[] } {
    const byControl = new Map<HTMLElement, string[]>();
    const unplaced: string[] = [];
    for (const p of problems) {
      const at = this.placeOf(p.path);
      if (!at) unplaced.push(inWords(p.messageEs));
      else if (all || this.touched.has(at.control))
        byControl.set(at.control, [...(byControl.get(at.control) ?? []), inWords(p.messageEs)]);
    }
    let first: HTMLElement | undefined;
    for (const { control, note } of new Set(this.bound.values())) {
      const texts = [...new Set(byControl.get(control) ?? [])];
      note.textContent = texts.join(" ");
      if (texts.length) {
        control.setAttribute("aria-invalid", "true");
        first ??= control;
      } else control.removeAttribute("aria-invalid");
      describe(control, note.id, texts.length > 0);
    }
    const said = [...new Set(unplaced)];
    this.general.replaceChildren(...(all ? said : []).map((t) => h("li", {}, t)));
    return { first, unplaced: said };
  }

  private placeOf(path: string): Bound | undefined {
    for (let p = path; p; p = p.slice(0, p.lastIndexOf("/"))) {
      const at = this.bound.get(p);
      if (at) return at;
    }
    return undefined;
  }

  private noteOf(control: HTMLElement): HTMLElement | undefined {
    for (const b of this.bound.values()) if (b.control === control) return b.note;
    return undefined;
  }
}

/** Adds or removes the error note from the control's aria-describedby (its hint stays). */
function describe(control: HTMLElement, id: string, on: boolean): void {
  const ids = new Set((control.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean));
  if (on) ids.add(id);
  else ids.delete(id);
  if (ids.size) control.setAttribute("aria-describedby", [...ids].join(" "));
  else control.removeAttribute("aria-describedby");
}
