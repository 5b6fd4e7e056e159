// A CommonJS host's `require` of the package, type-checked with Node's resolution (tsconfig.node.json).
import ctxguard = require("ctxguard-core");

const tokens: number = ctxguard.countTokens("hello world", "gpt-4o");
const blocks: ctxguard.ComposedMessage = ctxguard.composeAttachmentBlock([], { message: "hi" });
// @ts-expect-error the model is required
ctxguard.countTokens("hello world");
export = { tokens, blocks };
