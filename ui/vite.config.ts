// The pages are built into static/, which is committed and embedded into the
// Go binary (ui.go), so `go build` needs no Node. Output names carry no
// hash: a rebuild of the same sources is byte-identical, which CI checks
// with git diff. Add a page by adding its HTML under pages/ and an entry
// below; shared code lands in its own chunk.
import { resolve } from "node:path";
import { defineConfig } from "vite";

const here = import.meta.dirname;
const pages = ["index", "judge", "leaderboard", "admin"];

export default defineConfig({
  root: resolve(here, "pages"),
  publicDir: resolve(here, "public"),
  base: "/",
  build: {
    outDir: resolve(here, "static"),
    emptyOutDir: true,
    target: "es2020",
    sourcemap: false,
    // The polyfill would be inlined into every page; the CSP forbids inline
    // scripts, and every supported browser has modulepreload.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: Object.fromEntries(pages.map((p) => [p, resolve(here, "pages", `${p}.html`)])),
      output: {
        entryFileNames: "assets/[name].js",
        chunkFileNames: "assets/[name].js",
        assetFileNames: "assets/[name][extname]",
      },
    },
  },
});
