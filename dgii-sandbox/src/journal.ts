// The sandbox's memory on disk: one JSON line per change (the StateEvents that make it) in {stateDir}/journal.jsonl, written
// synchronously before the answer that depends on it leaves, and replayed on start. A process
// killed at any point loses at most a line it was still writing, which it never answered for.
import { appendFileSync, mkdirSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import type { StateEvent } from "./state.ts";

export class Journal {
  readonly path: string;

  constructor(stateDir: string) {
    mkdirSync(stateDir, { recursive: true });
    this.path = join(stateDir, "journal.jsonl");
  }

  /** The events written so far. A torn last line (the process died writing it) is cut off. */
  replay(): StateEvent[][] {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const events: StateEvent[][] = [];
    let kept = 0;
    for (const line of text.split("\n")) {
      if (line === "") break;
      try {
        events.push((JSON.parse(line) as StateEvent[]).map(withDates));
      } catch {
        break;
      }
      kept += Buffer.byteLength(line) + 1;
    }
    if (kept < Buffer.byteLength(text)) truncateSync(this.path, kept);
    return events;
  }

  /** Synchronous: the line is with the OS before the answer that relies on it is sent. */
  append(events: StateEvent[]): void {
    appendFileSync(this.path, `${JSON.stringify(events)}\n`);
  }
}

/** JSON keeps the state's Dates as ISO strings: turned back into Dates where each event holds one. */
function withDates(event: StateEvent): StateEvent {
  const date = (value: Date | string) => new Date(value);
  switch (event.t) {
    case "token":
      return {
        ...event,
        record: { ...event.record, expedido: date(event.record.expedido), expira: date(event.record.expira) },
      };
    case "reception":
      return { ...event, reception: { ...event.reception, receivedAt: date(event.reception.receivedAt) } };
    case "rfce":
      return { ...event, rfce: { ...event.rfce, receivedAt: date(event.rfce.receivedAt) } };
    case "approval":
      return { ...event, approval: { ...event.approval, receivedAt: date(event.approval.receivedAt) } };
    case "received":
      return { ...event, entry: { ...event.entry, receivedAt: date(event.entry.receivedAt) } };
    default:
      return event;
  }
}
