// js-tiktoken imports the CommonJS package base64-js, which a browser cannot
// import as a module. A bundler wraps it; this shim does the same for the
// unbundled page: it runs the installed package's own code in a CommonJS scope.
const url = new URL("./node_modules/base64-js/index.js", import.meta.url);
const source = await (await fetch(url)).text();
const module = { exports: {} };
new Function("module", "exports", source)(module, module.exports);
export default module.exports;
export const { byteLength, toByteArray, fromByteArray } = module.exports;
