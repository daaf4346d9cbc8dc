// The application shell: pairing when the device has no identity, otherwise the tabs (Venta,
// Productos, Recibos), the connectivity and sync indicator, and the receipt view.
import { drIsoDate } from "@ecf/shared/dgii-time";
import { POS_TIPOS } from "@ecf/shared/pos-device";
import { h } from "@ecf/ui-kit";
import type { PosDatabase, Product, Sale, Shift } from "../db.ts";
import { receiptView } from "../receipt/print.ts";
import { issueReceipt, SaleProblem } from "../sale/issue.ts";
import { judgeRefund } from "../sale/refund.ts";
import type { CartLine } from "../sale/document.ts";
import { API_BASE, loadSession, pairDevice, RETIRED_TOKENS, type Session } from "../session.ts";
import { SyncRunner, type SyncStatus } from "../sync/runner.ts";
import { DeviceApi } from "../api.ts";
import { dateTime } from "../format.ts";
import { CatalogSync, catalogState, type PullReport } from "../sync/catalog.ts";
import { catalogScreen } from "./catalog-screen.ts";
import { historyScreen } from "./history-screen.ts";
import { currentShift } from "../shift/shifts.ts";
import { ShiftSync } from "../shift/sync.ts";
import { closeShiftScreen, openShiftScreen, shiftHistory, zReportView } from "./shift-screen.ts";
import { CATALOG_PULLED, emptySale, SALE_KEY, SALE_SCAN, saleScreen, type SaleRequest } from "./sale-screen.ts";
import { listenForScans } from "./scanner.ts";
import { pairingFailure } from "./pairing-messages.ts";
import { loadCart, saveCart } from "../sale/cart-store.ts";
import { backlog, backlogText, connectionView, stockText } from "./connection-status.ts";
import { stockOf } from "../offline-capacity.ts";
import { zDetails } from "../shift/z-details.ts";
import { refundDialog } from "./refund-dialog.ts";

type Tab = "venta" | "productos" | "recibos" | "turno";

export async function startApp(root: HTMLElement, db: PosDatabase): Promise<void> {
  const session = await loadSession(db);
  if (!session) return showPairing(root, db);
  new PosApp(root, db, session).start();
}

async function showPairing(root: HTMLElement, db: PosDatabase, notice?: string): Promise<void> {
  const revoked =
    notice ??
    ((await db.setting<boolean>("revoked"))
      ? "Este dispositivo fue revocado y su clave de firma se eliminó. Vincúlelo de nuevo."
      : "");
  const code = h("input", {
    id: "pairing-code",
    placeholder: "XXXX-XXXX",
    autocomplete: "off",
    autocapitalize: "characters",
    maxlength: 9,
    required: true,
    "aria-label": "Código de vinculación",
  });
  const error = h("p", { class: "error", role: "alert", id: "pairing-error" }, revoked);
  const button = h("button", { type: "submit", class: "primary big" }, "Vincular");
  const form = h(
    "form",
    { class: "pairing", id: "pairing" },
    h("h1", {}, "Vincular este punto de venta"),
    h("p", {}, "Escriba el código de vinculación que generó el administrador de la empresa."),
    code,
    button,
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    button.disabled = true;
    try {
      const session = await pairDevice(db, code.value);
      await db.settings.delete("revoked");
      new PosApp(root, db, session).start();
    } catch (e) {
      error.textContent = pairingFailure(e, navigator.onLine);
    } finally {
      button.disabled = false;
    }
  });
  root.replaceChildren(form);
  code.focus();
}

class PosApp {
  private tab: Tab = "venta";
  private sale = emptySale();
  /** The cart as it was before a reload, read once at start. */
  private cartLoaded: Promise<void> | undefined;
  private editing: Product | undefined;
  private readonly main = h("main", { id: "view" });
  private readonly net = h("span", { class: "net", id: "net" });
  private readonly sync = h("span", { class: "sync", id: "sync" });
  /** The e-NCF numbers left on this till per type, with a warning when a type runs low. */
  private readonly numbers = h("span", { class: "numbers", id: "numbers" });
  private readonly catalogStatus = h("span", { class: "catalog-status", id: "catalog-status" });
  private readonly shiftStatus = h("span", { class: "shift-status", id: "shift-status" });
  private readonly shiftSync: ShiftSync;
  /** A Z report just printed or on display, instead of the tab. */
  private showingZ: Shift | undefined;
  private runner: SyncRunner;
  private readonly api: DeviceApi;
  private readonly catalog: CatalogSync;
  private canEditPrices: boolean | undefined;
  private showing: Sale | undefined;
  /** Ends this app's window listeners when the device is revoked (a new pairing starts another). */
  private readonly life = new AbortController();
  /** One receipt per cart and one credit note per click, whatever the keyboard repeats. */
  private issuing = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly db: PosDatabase,
    private readonly session: Session,
  ) {
    this.runner = new SyncRunner(
      db,
      session,
      (s) => void this.syncStatus(s),
      () => {
        this.life.abort();
        void showPairing(root, db);
      },
    );
    this.api = new DeviceApi(API_BASE, session.token);
    this.catalog = new CatalogSync(
      db,
      session.company.id,
      (since, limit) => this.api.catalog(since, limit),
      (report) => void this.catalogPulled(report),
    );
    this.shiftSync = new ShiftSync(db, async (shift, body) =>
      (await this.apiOf(shift.deviceId)).putShift(shift.id, body),
    );
  }

  start(): void {
    this.root.replaceChildren(this.header(), this.main);
    const { signal } = this.life;
    this.listenToWindow(signal);
    this.main.addEventListener("catalog-changed", () => {
      this.editing = undefined;
      void this.render();
    });
    this.main.addEventListener("edit-product", (e) => {
      this.editing = (e as CustomEvent<Product>).detail;
      void this.render();
    });
    this.cartLoaded = loadCart(this.db).then((cart) => {
      if (cart) this.sale = cart;
    });
    void this.render();
    this.runner.start();
    void this.syncStatus({ running: false });
    // The catalogue is pulled at once (also right after pairing), on reconnection and every minute.
    this.catalog.start();
    signal.addEventListener("abort", () => this.catalog.stop());
    this.shiftSync.start();
    signal.addEventListener("abort", () => this.shiftSync.stop());
    void this.showCatalogState();
  }

  /** The bar: the business and the till, the tabs (Alt+letter), and the connection, sync, numbers and shift. */
  private header(): HTMLElement {
    const nav = (tab: Tab, label: string, key: string) =>
      h(
        "button",
        { type: "button", class: "tab", "data-tab": tab, title: `Alt+${key}`, onclick: () => this.go(tab) },
        label,
      );
    return h(
      "header",
      { class: "bar" },
      h("strong", {}, this.session.company.tradeName ?? this.session.company.name),
      h("span", { class: "device" }, this.session.deviceName),
      h(
        "nav",
        {},
        nav("venta", "Venta", "V"),
        nav("productos", "Productos", "P"),
        nav("recibos", "Recibos", "R"),
        nav("turno", "Turno", "T"),
      ),
      this.net,
      this.sync,
      this.numbers,
      this.catalogStatus,
      this.shiftStatus,
    );
  }

  /** The connection, the shortcuts and the scanner are the window's, until the device is revoked. */
  private listenToWindow(signal: AbortSignal): void {
    addEventListener("online", () => this.showConnection(), { signal });
    addEventListener("offline", () => this.showConnection(), { signal });
    this.showConnection();
    // Shortcuts live on the window, so they work wherever the focus is (body after a re-render).
    addEventListener("keydown", (e) => this.windowKey(e), { signal });
    // A scan belongs to the sale wherever the focus is; on the receipt just issued it starts the next sale.
    listenForScans((code) => this.scanned(code), signal, {
      // Only for the sale screen or the receipt just issued: the shift's opening form (its PIN) types as usual.
      wanted: (target) =>
        this.tab === "venta" &&
        (target as Element | null)?.id !== "search" &&
        (this.showing !== undefined || this.main.querySelector(".sale") !== null),
    });
  }

  private windowKey(e: KeyboardEvent): void {
    if (e.altKey) {
      const tab = ({ v: "venta", p: "productos", r: "recibos", t: "turno" } as const)[
        e.key.toLowerCase() as "v" | "p" | "r" | "t"
      ];
      if (tab) {
        e.preventDefault();
        this.go(tab);
      }
      return;
    }
    // The sale screen (when on screen) handles Enter, Ctrl+Enter and typing from anywhere.
    const sale = this.main.querySelector<HTMLElement>(".sale");
    if (sale && this.tab === "venta" && !this.showing)
      sale.dispatchEvent(new CustomEvent<KeyboardEvent>(SALE_KEY, { detail: e }));
  }

  private async showCatalogState(): Promise<void> {
    const { updatedAt } = await catalogState(this.db);
    this.catalogStatus.textContent = updatedAt
      ? `Catálogo actualizado: ${dateTime(updatedAt)}`
      : "Catálogo sin actualizar";
    this.catalogStatus.dataset.updatedAt = updatedAt ?? "";
  }

  /** A pull changed products or cashiers: the screen on display shows them without losing what is being typed. */
  private async catalogPulled(report: PullReport): Promise<void> {
    await this.showCatalogState();
    const permissionChanged = report.canEditPrices !== this.canEditPrices;
    this.canEditPrices = report.canEditPrices;
    if ((!report.updated && !report.removed && !report.cashiers && !permissionChanged) || this.showing) return;
    // With no shift open, the sale and shift tabs are the opening form, which lists the cashiers:
    // new or changed ones show at once (even when the pull ends while that form is being drawn).
    if (
      report.cashiers &&
      (this.tab === "venta" || this.tab === "turno") &&
      !this.showingZ &&
      !(await currentShift(this.db))
    )
      return this.render();
    if (this.tab === "venta") this.main.querySelector(".sale")?.dispatchEvent(new CustomEvent(CATALOG_PULLED));
    else if (this.tab === "productos" && !this.editing) await this.render();
  }

  private go(tab: Tab): void {
    // The tab already on screen stays as it is: re-rendering it would wipe what is being typed.
    if (tab === this.tab && !this.showing && !this.showingZ && !this.editing) return;
    this.tab = tab;
    this.showing = undefined;
    this.showingZ = undefined;
    // Leaving (or re-entering) the catalogue drops a half-done edit: Productos opens a new form.
    this.editing = undefined;
    void this.render();
  }

  /** Renders are async (they read IndexedDB); only the newest one may replace the screen. */
  private renders = 0;

  private async render(): Promise<void> {
    const ticket = ++this.renders;
    for (const b of this.root.querySelectorAll<HTMLButtonElement>("button.tab"))
      b.classList.toggle("active", b.dataset.tab === this.tab && !this.showing && !this.showingZ);
    if (this.showing) return this.renderReceipt(this.showing, ticket);
    const shift = await currentShift(this.db);
    this.shiftStatus.textContent = shift ? `Turno: ${shift.cashierName}` : "Sin turno abierto";
    if (this.showingZ) {
      const z = await this.renderZ(this.showingZ);
      if (ticket === this.renders) this.attach(z);
      return;
    }
    let view: HTMLElement;
    switch (this.tab) {
      case "turno":
        view = h(
          "div",
          { class: "shift-tab" },
          shift
            ? await closeShiftScreen(this.db, shift, (s) => this.shiftChanged(s))
            : await openShiftScreen(this.db, this.session.deviceId, (s) => this.shiftChanged(s)),
          await shiftHistory(this.db, (s) => {
            this.showingZ = s;
            void this.render();
          }),
        );
        break;
      case "venta":
        // No sale without an open shift: the sale screen is the opening form until there is one.
        if (!shift) {
          view = await openShiftScreen(this.db, this.session.deviceId, (s) => this.shiftChanged(s));
          break;
        }
        await this.cartLoaded;
        view = await saleScreen(this.db, this.sale, (req) => this.charge(req), {
          findTaxpayer: (rnc) => this.api.taxpayer(rnc),
          changed: (state) => void saveCart(this.db, state),
        });
        break;
      case "productos":
        view = await catalogScreen(this.db, this.editing);
        break;
      case "recibos":
        view = await historyScreen(this.db, (s) => void this.open(s));
        break;
    }
    if (ticket === this.renders) this.attach(view);
  }

  /** Puts a view on screen, then focuses its first field: focus only works once attached. */
  private attach(view: HTMLElement): void {
    this.main.replaceChildren(view);
    view.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    const code = this.pendingScan;
    this.pendingScan = undefined;
    if (code !== undefined && view.classList.contains("sale"))
      view.dispatchEvent(new CustomEvent<string>(SALE_SCAN, { detail: code }));
  }

  /** A scan made while the receipt was on screen, for the sale screen that replaces it. */
  private pendingScan: string | undefined;

  private scanned(code: string): void {
    const sale = this.main.querySelector<HTMLElement>(".sale");
    if (sale && !this.showing) {
      sale.dispatchEvent(new CustomEvent<string>(SALE_SCAN, { detail: code }));
    } else if (this.showing) {
      this.pendingScan = code;
      this.go("venta");
    }
  }

  /**
   * The API as the pairing that opened a shift: a shift opened before this till was revoked and
   * paired again is handed over with the old pairing's token (the server takes from a revoked till
   * what it opened before its revocation), as its receipts are.
   */
  private async apiOf(deviceId: string | undefined): Promise<DeviceApi> {
    if (!deviceId || deviceId === this.session.deviceId) return this.api;
    const token = (await this.db.setting<Record<string, string>>(RETIRED_TOKENS))?.[deviceId];
    return token ? new DeviceApi(API_BASE, token) : this.api;
  }

  /** A shift opened (back to selling) or closed (its Z report on screen, to print); either way the server hears of it. */
  private shiftChanged(shift: Shift): void {
    this.shiftSync.kick();
    if (shift.state === "closed") this.showingZ = shift;
    else this.tab = "venta";
    void this.render();
  }

  private async renderZ(shift: Shift): Promise<HTMLElement> {
    const details = await zDetails(this.db, shift);
    const company = this.session.company;
    return h(
      "div",
      { class: "receipt-screen" },
      zReportView(
        shift,
        {
          companyName: company.tradeName ?? company.name,
          rnc: company.registryNumber,
          deviceName: this.session.deviceName,
        },
        details,
      ),
      h(
        "div",
        { class: "actions no-print" },
        h("button", { type: "button", class: "primary", id: "print", onclick: () => print() }, "Imprimir"),
        h("button", { type: "button", id: "next-shift", onclick: () => this.go("venta") }, "Abrir otro turno"),
      ),
    );
  }

  private async charge(req: SaleRequest): Promise<void> {
    if (this.issuing) return;
    this.issuing = true;
    try {
      await this.chargeOnce(req);
    } finally {
      this.issuing = false;
    }
  }

  private async chargeOnce(req: SaleRequest): Promise<void> {
    const shift = await currentShift(this.db);
    if (!shift) throw new SaleProblem("Abra un turno para vender (pestaña Turno).");
    const issued = await issueReceipt(this.db, {
      shiftId: shift.id,
      tipoeCF: req.tipoeCF,
      emisor: {
        rnc: this.session.company.registryNumber,
        legalName: this.session.company.name,
        tradeName: this.session.company.tradeName,
        address: this.session.company.address,
      },
      buyer: req.buyer,
      lines: req.lines,
      payment: req.payment,
      environment: this.session.company.dgiiServer,
      online: navigator.onLine,
      deviceId: this.session.deviceId,
    });
    this.sale = emptySale();
    await saveCart(this.db, this.sale);
    await this.open(issued.sale);
    this.runner.kick();
  }

  private async open(sale: Sale): Promise<void> {
    this.showing = sale;
    await this.render();
  }

  private async renderReceipt(sale: Sale, ticket = ++this.renders): Promise<void> {
    const fresh = (await this.db.sales.get(sale.id)) ?? sale;
    // A newer render (say "Nueva venta") has taken the screen: this receipt must not come back.
    if (ticket !== this.renders) return;
    this.showing = fresh;
    const actions = h(
      "div",
      { class: "actions no-print" },
      h("button", { type: "button", class: "primary", id: "print", onclick: () => print() }, "Imprimir"),
      h("button", { type: "button", id: "new-sale", onclick: () => this.go("venta") }, "Nueva venta"),
      // Only while something is still open on it: a receipt fully credited offers no return.
      (await judgeRefund(this.db, fresh, "0.01")).ok
        ? h(
            "button",
            { type: "button", id: "refund", onclick: () => void this.refund(fresh, view) },
            "Devolución (nota de crédito)",
          )
        : null,
    );
    const reason =
      fresh.estado === "Rechazado" && fresh.mensajes?.length
        ? h(
            "p",
            { class: "error no-print" },
            `Rechazado: ${fresh.mensajes.map((m) => `${m.codigo} ${m.valor}`).join(" · ")}`,
          )
        : null;
    const cashier = fresh.shiftId ? (await this.db.shifts.get(fresh.shiftId))?.cashierName : undefined;
    const printed = await receiptView(fresh, { till: this.session.deviceName, ...(cashier ? { cashier } : {}) });
    const view = h("div", { class: "receipt-screen" }, printed, reason, actions);
    if (ticket === this.renders) this.attach(view);
  }

  /**
   * A return of a receipt (whole or chosen lines and quantities) in the till's own dialog: an E34
   * against it, never beyond what is still open on it (judgeRefund, again in issueReceipt).
   */
  private async refund(original: Sale, screen: HTMLElement): Promise<void> {
    // Marked before the first await: a second click meanwhile opens no second dialog.
    if (this.issuing || screen.dataset.refunding) return;
    screen.dataset.refunding = "open";
    const verdict = await judgeRefund(this.db, original, "0.01");
    if (!verdict.ok) {
      delete screen.dataset.refunding;
      return;
    }
    const actions = screen.querySelector<HTMLElement>(".actions");
    const dialog = refundDialog(original, {
      available: verdict.available,
      close: () => {
        dialog.remove();
        delete screen.dataset.refunding;
        if (actions) actions.hidden = false;
      },
      issue: (lines) => this.issueRefund(original, lines),
    });
    if (actions) actions.hidden = true;
    screen.append(dialog);
    dialog.querySelector<HTMLInputElement>("input")?.focus();
  }

  /** Issues the credit note for the chosen lines; a refusal is thrown as a SaleProblem (Spanish). */
  private async issueRefund(original: Sale, lines: CartLine[]): Promise<void> {
    // A second confirmation (or one while the first note is being signed) issues nothing.
    if (this.issuing) return;
    this.issuing = true;
    try {
      const shift = await currentShift(this.db);
      if (!shift) throw new SaleProblem("Abra un turno para hacer una devolución (pestaña Turno).");
      const doc = original.document as {
        Encabezado: {
          Emisor: { FechaEmision: string };
          Comprador?: { RNCComprador?: string; RazonSocialComprador?: string };
        };
      };
      const issued = await issueReceipt(this.db, {
        tipoeCF: "34",
        shiftId: shift.id,
        emisor: {
          rnc: this.session.company.registryNumber,
          legalName: this.session.company.name,
          tradeName: this.session.company.tradeName,
          address: this.session.company.address,
        },
        buyer: { rnc: doc.Encabezado.Comprador?.RNCComprador, name: doc.Encabezado.Comprador?.RazonSocialComprador },
        lines,
        reference: {
          encf: original.encf!,
          fechaEmision: doc.Encabezado.Emisor.FechaEmision,
          montoTotal: original.montoTotal!,
        },
        environment: this.session.company.dgiiServer,
        online: navigator.onLine,
        deviceId: this.session.deviceId,
      });
      await this.open(issued.sale);
      this.runner.kick();
    } catch (error) {
      throw error instanceof SaleProblem
        ? error
        : new SaleProblem(`No se pudo emitir la nota de crédito: ${String(error)}`);
    } finally {
      this.issuing = false;
    }
  }

  /**
   * No usable key (the issuer changed its certificate, or the key was lost): the key comes only with
   * a one-time code the issuer asks for (POST /devices/{id}/pairing-code) and someone types here.
   */
  private offerNewKey(): void {
    this.sync.textContent = "Falta la firma del emisor: toque para ingresar el código";
    this.sync.dataset.keyOutdated = "true";
    this.sync.onclick = async () => {
      const code = prompt("Código de un solo uso para la nueva firma (lo genera el emisor):");
      if (!code) return;
      try {
        await this.runner.installNewKey(code);
        delete this.sync.dataset.keyOutdated;
        this.sync.onclick = null;
        this.runner.kick();
      } catch (error) {
        alert(`No se pudo instalar la nueva firma: ${String(error)}`);
      }
    };
  }

  /** The last sync round could not reach the server (until one does). */
  private serverUnreachable = false;

  private showConnection(): void {
    const view = connectionView(navigator.onLine, this.serverUnreachable);
    this.net.textContent = view.text;
    this.net.className = `net ${view.state}`;
  }

  private async showStock(): Promise<void> {
    const now = new Date();
    const stocks = await Promise.all(POS_TIPOS.map((t) => stockOf(this.db, t, now, drIsoDate(now))));
    const view = stockText(stocks);
    this.numbers.textContent = view.text;
    this.numbers.className = `numbers${view.low ? " warn" : ""}`;
  }

  /** Status reports read IndexedDB and may finish out of order: only the newest one is shown. */
  private statuses = 0;

  private async syncStatus(status: SyncStatus): Promise<void> {
    const ticket = ++this.statuses;
    const waitingNow = await backlog(this.db);
    const waiting = waitingNow.waiting;
    if (ticket !== this.statuses) return;
    if (!status.running) {
      this.serverUnreachable = status.unreachable === true;
      this.showConnection();
      void this.showStock();
    }
    if (status.running && status.progress && status.progress.total > 0) {
      this.sync.textContent = `Sincronizando ${status.progress.done}/${status.progress.total}`;
    } else {
      this.sync.textContent = backlogText(waitingNow, new Date());
    }
    this.sync.dataset.pending = String(waiting);
    if (status.keyOutdated) this.offerNewKey();
    // A receipt on screen shows its new state as soon as the server answered.
    if (!status.running && this.showing) await this.renderReceipt(this.showing);
    else if (!status.running && this.tab === "recibos" && !this.showing) await this.render();
  }
}
