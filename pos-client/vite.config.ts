import { defineConfig } from "vite";
import { VitePWA } from "vite-plugin-pwa";

// Served by the worker at /pos/ (wrangler [assets]: the repository's dist/, the console beside it in
// dist/app); the service worker's scope is /pos/ too, so it never answers for the API.
export default defineConfig({
  base: "/pos/",
  build: { outDir: "../dist/pos", emptyOutDir: true, target: "es2022", sourcemap: true },
  plugins: [
    VitePWA({
      registerType: "autoUpdate",
      injectRegister: false,
      scope: "/pos/",
      includeAssets: ["icons/icon.svg"],
      manifest: {
        name: "ecf-edge Punto de venta",
        short_name: "Caja e-CF",
        description: "Venda, imprima y siga vendiendo sin conexión con comprobantes fiscales electrónicos.",
        lang: "es-DO",
        start_url: "/pos/",
        scope: "/pos/",
        display: "standalone",
        background_color: "#f4f6f8",
        theme_color: "#0b5cad",
        icons: [
          { src: "icons/icon-192.png", sizes: "192x192", type: "image/png" },
          { src: "icons/icon-512.png", sizes: "512x512", type: "image/png" },
          { src: "icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
          { src: "icons/icon.svg", sizes: "any", type: "image/svg+xml" },
        ],
      },
      workbox: {
        globPatterns: ["**/*.{js,css,html,svg,png,webmanifest}"],
        navigateFallback: "/pos/index.html",
        navigateFallbackAllowlist: [/^\/pos\//],
        cleanupOutdatedCaches: true,
        // The first visit (pairing) already works offline afterwards: take control at once.
        clientsClaim: true,
        skipWaiting: true,
        maximumFileSizeToCacheInBytes: 5 * 1024 * 1024,
      },
    }),
  ],
});
