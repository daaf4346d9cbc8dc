// The bar over every screen: the business and the till, the tabs (Alt+letter), and what the cashier
// glances at: the connection, the sync backlog, the e-NCF numbers left per type, the catalogue's
// age, the open shift and a closed shift the server does not have yet. It owns those indicators; the app tells it what changed.
import { drIsoDate } from "@ecf/shared/dgii-time";
import { POS_TIPOS } from "@ecf/shared/pos-device";
import { type Component, h } from "@ecf/ui-kit";
import type { PosDatabase, Shift } from "../db.ts";
import { dateTime } from "../format.ts";
import { stockOf } from "../offline-capacity.ts";
import type { Session } from "../session.ts";
import { catalogState } from "../sync/catalog.ts";
import type { SyncRunner, SyncStatus } from "../sync/runner.ts";
import { backlog, backlogText, connectionView, stockText } from "./connection-status.ts";
import { shiftIndicator } from "./shift-indicator.ts";

export type Tab = "venta" | "productos" | "recibos" | "turno";

/** The tabs in the bar's order, with the letter of their Alt shortcut. */
export const TABS: readonly { tab: Tab; label: string; key: string }[] = [
  { tab: "venta", label: "Venta", key: "V" },
  { tab: "productos", label: "Productos", key: "P" },
  { tab: "recibos", label: "Recibos", key: "R" },
  { tab: "turno", label: "Turno", key: "T" },
];

export interface StatusBar extends Component {
  /** Marks the tab on display; none while a receipt or a Z report covers it. */
  showTab(tab: Tab | undefined): void;
  showConnection(): void;
  /** Shows a sync report; false when a newer one finished first (this one is then dropped). */
  showSync(status: SyncStatus): Promise<boolean>;
  showCatalogState(): Promise<void>;
  showShift(shift: Shift | undefined): void;
  /** A sync round's results are on screen (counted in `#sync`'s data-rounds). */
  roundEnded(): void;
}

export function statusBar(db: PosDatabase, session: Session, runner: SyncRunner, go: (tab: Tab) => void): StatusBar {
  const net = h("span", { class: "net", id: "net" });
  const sync = h("span", { class: "sync", id: "sync" });
  /** The e-NCF numbers left on this till per type, with a warning when a type runs low. */
  const numbers = h("span", { class: "numbers", id: "numbers" });
  const catalogStatus = h("span", { class: "catalog-status", id: "catalog-status" });
  const shifts = shiftIndicator(db);
  const tabs = TABS.map(({ tab, label, key }) =>
    h("button", { type: "button", class: "tab", "data-tab": tab, title: `Alt+${key}`, onclick: () => go(tab) }, label),
  );
  /** The last sync round could not reach the server (until one does). */
  let serverUnreachable = false;
  /** Status reports read IndexedDB and may finish out of order: only the newest one is shown. */
  let statuses = 0;

  const showConnection = () => {
    const view = connectionView(navigator.onLine, serverUnreachable);
    net.textContent = view.text;
    net.className = `net ${view.state}`;
  };
  const showStock = async () => {
    const now = new Date();
    const stocks = await Promise.all(POS_TIPOS.map((t) => stockOf(db, t, now, drIsoDate(now))));
    const view = stockText(stocks);
    numbers.textContent = view.text;
    numbers.className = `numbers${view.low ? " warn" : ""}`;
  };
  const showSync = async (status: SyncStatus) => {
    const ticket = ++statuses;
    const waitingNow = await backlog(db);
    if (ticket !== statuses) return false;
    if (!status.running) {
      serverUnreachable = status.unreachable === true;
      showConnection();
      void showStock();
      void shifts.showUnsent();
    }
    sync.textContent =
      status.running && status.progress && status.progress.total > 0
        ? `Sincronizando ${status.progress.done}/${status.progress.total}`
        : backlogText(waitingNow, new Date());
    sync.dataset.pending = String(waitingNow.waiting);
    // The runner's own flag, not only this report's: a report without it (a sale counted, an upload's
    // progress) must not hide the prompt while the till still has no usable key.
    if (status.keyOutdated || runner.keyOutdated) offerNewKey(sync, runner);
    return true;
  };
  return {
    element: h(
      "header",
      { class: "bar" },
      h("strong", {}, session.company.tradeName ?? session.company.name),
      h("span", { class: "device" }, session.deviceName),
      h("nav", {}, ...tabs),
      net,
      sync,
      numbers,
      catalogStatus,
      ...shifts.elements,
    ),
    showTab: (active) => {
      for (const b of tabs) b.classList.toggle("active", b.dataset.tab === active);
    },
    showConnection,
    showSync,
    showCatalogState: async () => {
      const { updatedAt } = await catalogState(db);
      catalogStatus.textContent = updatedAt
        ? `Catálogo actualizado: ${dateTime(updatedAt)}`
        : "Catálogo sin actualizar";
      catalogStatus.dataset.updatedAt = updatedAt ?? "";
    },
    // Counted once a round's results are on screen: what a test (or a person debugging) waits for.
    roundEnded: () => {
      sync.dataset.rounds = String(Number(sync.dataset.rounds ?? 0) + 1);
    },
    showShift: (shift) => shifts.showShift(shift),
  };
}

/**
 * No usable key (the issuer changed its certificate, or the key was lost): the key comes only with
 * a one-time code the issuer asks for (POST /tills/{id}/pairing-code) and someone types here.
 */
function offerNewKey(sync: HTMLElement, runner: SyncRunner): void {
  sync.textContent = "Falta la firma del emisor: toque para ingresar el código";
  sync.dataset.keyOutdated = "true";
  sync.onclick = async () => {
    const code = prompt("Código de un solo uso para la nueva firma (lo genera el emisor):");
    if (!code) return;
    try {
      await runner.installNewKey(code);
      delete sync.dataset.keyOutdated;
      sync.onclick = null;
      runner.kick();
    } catch (error) {
      alert(`No se pudo instalar la nueva firma: ${String(error)}`);
    }
  };
}
