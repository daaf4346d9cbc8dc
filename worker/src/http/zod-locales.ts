// The worker's bundle carries only zod's English messages: zod's `locales` namespace (about
// 40 languages, a quarter of the JavaScript) is redirected here by `[alias]` in wrangler.toml.
export { default as en } from "zod/v4/locales/en.js";
