import { registerSW } from "virtual:pwa-register";
import { PosDatabase } from "./db.ts";
import { startApp } from "./ui/app.ts";
import "./styles.css";

// The service worker precaches the app shell, so the POS opens and sells with no network.
registerSW({ immediate: true });

const root = document.getElementById("app")!;
void startApp(root, new PosDatabase());
