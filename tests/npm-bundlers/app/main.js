import init, { countTokens } from "ctxguard-core";
init().then(() => (document.body.textContent = `"hello world" is ${(window.firstCount = { tokens: countTokens("hello world", "gpt-4o"), ms: performance.now() }).tokens} tokens for gpt-4o`));
