// The pages are built into static/, which is committed and embedded into the
// Go binary (ui.go), so `go build` needs no Node. Built scripts and styles
// carry a content hash in their names, so the server can let browsers keep
// them for a year and a new build is still seen at once (the HTML pages,
// which name them, are never cached). The hash depends on the content only:
// a rebuild of the same sources is byte-identical, which CI checks with git
// diff. public/assets/style.css keeps its name and is revalidated. Add a page
// by adding its HTML under pages/ and an entry below; shared code lands in
// its own chunk.
import { resolve } from "node:path";
import { defineConfig } from "vite";

const here = import.meta.dirname;
const pages = ["index", "judge", "leaderboard", "admin", "outputs"];

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
        // server/pages.go recognises the hash by this shape: name, "-",
        // eight characters, extension.
        entryFileNames: "assets/[name]-[hash:8].js",
        chunkFileNames: "assets/[name]-[hash:8].js",
        assetFileNames: "assets/[name]-[hash:8][extname]",
      },
    },
  },
});
