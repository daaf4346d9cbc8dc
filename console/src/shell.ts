// The console's frame: login or invitation when nobody is logged in, else the header (company,
// role, navigation, company switch, logout) and the page of the hash route.
import { problemText } from "@ecf/ui-kit";
import { h } from "./dom.ts";
import type { Page } from "./page.ts";
import { certificationPage } from "./pages/certification.ts";
import { creditRequestsPage } from "./pages/credit-requests.ts";
import { customersPage } from "./pages/customers.ts";
import { invitationPage } from "./pages/invitation.ts";
import { loginPage } from "./pages/login.ts";
import { monthlyPage } from "./pages/monthly.ts";
import { purchasesPage } from "./pages/purchases.ts";
import { issuePage } from "./pages/issue.ts";
import { receiptPage } from "./pages/receipt.ts";
import { receiptsPage } from "./pages/receipts.ts";
import { settingsPage } from "./pages/settings.ts";
import { storePage } from "./pages/store.ts";
import { todayPage } from "./pages/today.ts";
import { go, parseRoute } from "./router.ts";
import { currentSession, logout, ROLE_NOMBRE, type Session, switchCompany } from "./session.ts";

/** The sections; a store manager reads neither the books (purchases, monthly files) nor the settings. */
const NAV: { page: string; label: string; books?: true; owner?: true }[] = [
  { page: "hoy", label: "Hoy" },
  { page: "comprobantes", label: "Comprobantes" },
  { page: "clientes", label: "Clientes", books: true },
  { page: "compras", label: "Compras", books: true },
  { page: "mensual", label: "Mensual", books: true },
  { page: "tienda", label: "Tienda" },
  { page: "credito-fiscal", label: "Crédito fiscal", books: true },
  { page: "configuracion", label: "Configuración", books: true },
  { page: "certificacion", label: "Certificación", owner: true },
];

const PAGES: Record<string, Page> = {
  hoy: todayPage,
  comprobantes: (ctx) => (ctx.route.params[0] ? receiptPage(ctx) : receiptsPage(ctx)),
  emitir: issuePage,
  clientes: customersPage,
  compras: purchasesPage,
  mensual: monthlyPage,
  tienda: storePage,
  "credito-fiscal": creditRequestsPage,
  configuracion: settingsPage,
  certificacion: certificationPage,
};

export async function startConsole(root: HTMLElement): Promise<void> {
  let session: Session | null | undefined;
  let rendering = 0;
  const render = async () => {
    const turn = ++rendering;
    const route = parseRoute(location.hash);
    try {
      if (route.page === "invitacion") {
        root.replaceChildren(await invitationPage(route.params[0] ?? "", (s) => enter(s)));
        return;
      }
      session ??= await currentSession();
      if (!session) {
        root.replaceChildren(await loginPage((s) => enter(s)));
        return;
      }
      const page = PAGES[route.page];
      if (!page) return go("#/hoy");
      const content = await page({ session, route, reload: () => void render() });
      if (turn !== rendering) return; // a newer navigation won
      root.replaceChildren(header(session, route.page), h("main", { id: "contenido", tabindex: "-1" }, content));
      document.title = `${NAV.find((n) => n.page === route.page)?.label ?? "Consola"} · ecf-edge`;
    } catch (error) {
      if ((error as { status?: number }).status === 401) {
        session = null;
        return void render();
      }
      root.replaceChildren(h("p", { class: "error", role: "alert" }, problemText(error)));
    }
  };
  const enter = (s: Session) => {
    session = s;
    go("#/hoy");
  };
  const header = (s: Session, current: string) => {
    const switcher = h(
      "select",
      {
        id: "empresa",
        onchange: async (e: Event) => {
          session = await switchCompany((e.target as HTMLSelectElement).value);
          void render();
        },
      },
      ...s.companies.map((c) =>
        h("option", { value: c.rnc, selected: c.rnc === s.company?.rnc }, `${c.razonSocial} (${c.rnc})`),
      ),
    );
    const out = async () => {
      await logout();
      session = null;
      go("#/login");
    };
    return h(
      "header",
      { class: "bar" },
      h("a", { class: "skip", href: "#contenido", onclick: skipToContent }, "Saltar al contenido"),
      h("strong", {}, "ecf-edge"),
      s.companies.length > 1
        ? h("label", { class: "inline" }, h("span", {}, "Empresa"), switcher)
        : h("span", { class: "company" }, s.company ? `${s.company.razonSocial} (${s.company.rnc})` : ""),
      h("span", { class: "who" }, `${s.user.email} · ${ROLE_NOMBRE[s.role]}`),
      h("button", { type: "button", onclick: out }, "Cerrar sesión"),
      h(
        "nav",
        { "aria-label": "Secciones" },
        ...NAV.filter((n) => (!n.books || s.role !== "manager") && (!n.owner || s.role === "owner")).map((n) =>
          h("a", { href: `#/${n.page}`, "aria-current": n.page === current ? "page" : null }, n.label),
        ),
      ),
    );
  };
  window.addEventListener("hashchange", () => void render());
  await render();
}

function skipToContent(event: Event): void {
  event.preventDefault();
  document.getElementById("contenido")?.focus();
}
