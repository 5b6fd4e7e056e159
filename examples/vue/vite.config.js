// Vite builds the example into dist/ with relative URLs. The one Vue setting the toolbar
// needs: tags starting with "ctxguard-" are custom elements, not Vue components (without it
// Vue warns "Failed to resolve component" and renders nothing useful).
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith("ctxguard-") } } })],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
});
