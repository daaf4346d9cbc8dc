// The application shell: pairing when the device has no identity, otherwise the bar and one screen
// at a time: a tab (Venta, Productos, Recibos, Turno), or a receipt or Z report over it. Each screen
// owns its state; the app composes them, routes between them, and hands them the window's keys,
// scans and the sync's news.
import { h } from "@ecf/ui-kit";
import { DeviceApi } from "../api.ts";
import type { PosDatabase, Sale, Shift } from "../db.ts";
import { API_BASE, loadSession, type Session } from "../session.ts";
import { currentShift } from "../shift/shifts.ts";
import { CatalogSync, type PullReport } from "../sync/catalog.ts";
import { SyncRunner, type SyncStatus } from "../sync/runner.ts";
import { type CatalogTab, catalogTab } from "./catalog-screen.ts";
import { historyScreen } from "./history-screen.ts";
import { showPairing } from "./pairing-screen.ts";
import { receiptScreen } from "./receipt-screen.ts";
import type { SaleScreen } from "./sale-screen.ts";
import { listenForScans } from "./scanner.ts";
import { type SellTab, sellTab } from "./sell-tab.ts";
import { shiftTab, zScreen } from "./shift-tab.ts";
import { type StatusBar, statusBar, TABS, type Tab } from "./status-bar.ts";
import { TillIssuer } from "./till-issuer.ts";

export async function startApp(root: HTMLElement, db: PosDatabase): Promise<void> {
  const session = await loadSession(db);
  if (!session) return pair(root, db);
  new PosApp(root, db, session).start();
}

function pair(root: HTMLElement, db: PosDatabase): Promise<void> {
  return showPairing(root, db, (session) => new PosApp(root, db, session).start());
}

class PosApp {
  private tab: Tab = "venta";
  private readonly main = h("main", { id: "view" });
  private readonly bar: StatusBar;
  /** A receipt on display, instead of the tab. */
  private showing: Sale | undefined;
  /** A Z report just printed or on display, instead of the tab. */
  private showingZ: Shift | undefined;
  /** The sale screen while it is on display: it takes the window's keys and the scans. */
  private saleOnScreen: SaleScreen | undefined;
  /**
   * Scans made while no sale screen could take them (the receipt on screen, the sale screen being
   * drawn), in the order scanned, for the sale screen that comes next.
   */
  private readonly waitingScans: string[] = [];
  /** Whether the till had a shift open at the last render: without one, the tab is the opening form. */
  private shiftOpen = false;
  private canEditPrices: boolean | undefined;
  private readonly runner: SyncRunner;
  private readonly api: DeviceApi;
  private readonly catalog: CatalogSync;
  private readonly issuer: TillIssuer;
  private readonly sell: SellTab;
  private readonly products: CatalogTab;
  /** Ends this app's window listeners when the device is revoked (a new pairing starts another). */
  private readonly life = new AbortController();
  /** Renders are async (they read IndexedDB); only the newest one may replace the screen. */
  private renders = 0;

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
        void pair(root, db);
      },
    );
    this.api = new DeviceApi(API_BASE, session.token);
    this.catalog = new CatalogSync(
      db,
      session.company.id,
      (since, limit) => this.api.catalog(since, limit),
      (report) => void this.catalogPulled(report),
    );
    this.issuer = new TillIssuer(db, session);
    this.bar = statusBar(db, session, this.runner, (tab) => this.go(tab));
    this.sell = sellTab(db, {
      deviceId: session.deviceId,
      api: this.api,
      issuer: this.issuer,
      shiftChanged: (s) => this.shiftChanged(s),
      issued: (sale) => this.issued(sale),
    });
    this.products = catalogTab(db, () => void this.render());
  }

  start(): void {
    this.root.replaceChildren(this.bar.element, this.main);
    const { signal } = this.life;
    this.listenToWindow(signal);
    void this.render();
    this.runner.start();
    void this.syncStatus({ running: false });
    // The catalogue is pulled at once (also right after pairing), on reconnection and every minute.
    this.catalog.start();
    signal.addEventListener("abort", () => this.catalog.stop());
    void this.bar.showCatalogState();
  }

  /** The connection, the shortcuts and the scanner are the window's, until the device is revoked. */
  private listenToWindow(signal: AbortSignal): void {
    addEventListener("online", () => this.bar.showConnection(), { signal });
    addEventListener("offline", () => this.bar.showConnection(), { signal });
    this.bar.showConnection();
    // Shortcuts live on the window, so they work wherever the focus is (body after a re-render).
    addEventListener("keydown", (e) => this.windowKey(e), { signal });
    // A scan belongs to the sale wherever the focus is (the search box too: typing and scanning
    // are separate streams); on the receipt just issued it starts the next sale.
    listenForScans((code) => this.scanned(code), signal, {
      // Only for the sale, or the receipt just issued: the shift's opening form (its PIN) types as usual.
      wanted: () => this.tab === "venta" && !this.showingZ && (this.showing !== undefined || this.shiftOpen),
    });
  }

  private windowKey(e: KeyboardEvent): void {
    if (e.altKey) {
      const tab = TABS.find((t) => t.key.toLowerCase() === e.key.toLowerCase())?.tab;
      if (tab) {
        e.preventDefault();
        this.go(tab);
      }
      return;
    }
    // The sale screen (when on screen) handles Enter, Ctrl+Enter and typing from anywhere.
    if (this.saleOnScreen && this.tab === "venta" && !this.showing) this.saleOnScreen.key(e);
  }

  /** A pull changed products or cashiers: the screen on display shows them without losing what is being typed. */
  private async catalogPulled(report: PullReport): Promise<void> {
    await this.bar.showCatalogState();
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
    if (this.tab === "venta") this.saleOnScreen?.catalogChanged();
    else if (this.tab === "productos" && !this.products.editing) await this.render();
  }

  private go(tab: Tab): void {
    // The tab already on screen stays as it is: re-rendering it would wipe what is being typed.
    if (tab === this.tab && !this.showing && !this.showingZ && !this.products.editing) return;
    this.tab = tab;
    this.showing = undefined;
    this.showingZ = undefined;
    // Leaving (or re-entering) the catalogue drops a half-done edit: Productos opens a new form.
    this.products.reset();
    void this.render();
  }

  private async render(): Promise<void> {
    const ticket = ++this.renders;
    this.bar.showTab(this.showing || this.showingZ ? undefined : this.tab);
    if (this.showing) return this.renderReceipt(this.showing, ticket);
    const shift = await currentShift(this.db);
    this.shiftOpen = shift !== undefined;
    this.bar.showShift(shift);
    const view = this.showingZ
      ? await zScreen(this.db, this.showingZ, this.session, () => this.go("venta"))
      : await this.tabView(shift);
    if (ticket === this.renders) this.attach(view);
  }

  private async tabView(shift: Shift | undefined): Promise<HTMLElement | SaleScreen> {
    switch (this.tab) {
      case "turno":
        return shiftTab(this.db, shift, {
          deviceId: this.session.deviceId,
          changed: (s) => this.shiftChanged(s),
          showZ: (s) => {
            this.showingZ = s;
            void this.render();
          },
        });
      case "venta":
        return this.sell.view(shift);
      case "productos":
        return this.products.view();
      case "recibos":
        return historyScreen(this.db, (s) => void this.open(s));
    }
  }

  /** Puts a view on screen, then focuses its first field: focus only works once attached. */
  private attach(view: HTMLElement | SaleScreen): void {
    const sale = view instanceof HTMLElement ? undefined : view;
    const element = sale?.element ?? (view as HTMLElement);
    this.saleOnScreen = sale;
    this.main.replaceChildren(element);
    sale?.attached();
    element.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    // Scans waiting for a sale screen go to this one, in order; any other screen cannot sell them.
    if (sale || !this.showing) for (const code of this.waitingScans.splice(0)) sale?.scan(code);
  }

  /** Every scan reaches a sale screen, in order: the one on display, or the next one drawn. */
  private scanned(code: string): void {
    if (this.saleOnScreen && !this.showing && !this.waitingScans.length) this.saleOnScreen.scan(code);
    else {
      this.waitingScans.push(code);
      if (this.showing) this.go("venta");
    }
  }

  /** A shift opened (back to selling) or closed (its Z report on screen, to print); the next round hands it over. */
  private shiftChanged(shift: Shift): void {
    this.runner.kick();
    this.shiftOpen = shift.state === "open";
    if (shift.state === "closed") this.showingZ = shift;
    else this.tab = "venta";
    void this.render();
  }

  /** A receipt or credit note was just signed: on screen at once, then on its way to the server. */
  private async issued(sale: Sale): Promise<void> {
    await this.open(sale);
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
    const view = await receiptScreen(this.db, fresh, {
      till: this.session.deviceName,
      issuer: this.issuer,
      newSale: () => this.go("venta"),
      issued: (note) => this.issued(note),
    });
    if (ticket === this.renders) this.attach(view);
  }

  private async syncStatus(status: SyncStatus): Promise<void> {
    if (!(await this.bar.showSync(status)) || status.running) return;
    // A receipt on screen shows its new state as soon as the server answered, unless the cashier
    // is in its return dialog: redrawing would close it mid-return (the next round redraws it).
    if (this.showing) {
      if (!document.getElementById("refund-dialog")) await this.renderReceipt(this.showing);
    } else if (this.tab === "recibos") await this.render();
    this.bar.roundEnded();
  }
}
