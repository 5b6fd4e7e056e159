// Vite builds the example into dist/ with relative URLs, so it can be served
// from any path. esbuild (Vite's own) compiles the TSX; the toolbar package's
// two WebAssembly modules are assets Vite finds through their
// `new URL(..., import.meta.url)`, and the preview engine a lazy chunk.
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  esbuild: { jsx: "automatic" },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
});
