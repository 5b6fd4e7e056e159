//! The instruction turn that ends every summariser request: the reference's
//! text, word for word, as the last user message.

use crate::message::Message;

/// The user turn appended to every summariser request (the reference's text,
/// no trailing newline; `…` is U+2026).
pub const SUMMARY_INSTRUCTION: &str = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another model that will resume this task.

Include:
- Current objective and active task
- Progress and key decisions made so far
- Important context, constraints, user preferences
- Critical facts, paths, parameters, and tool findings needed to continue
- The most important next step

Output ONLY the summary content itself. Do NOT restate this instruction, and do NOT add any preamble or meta-commentary (no \"The user wants\u{2026}\", no \"Let me summarize\u{2026}\", no \"Here is the summary\"). Start directly with the current objective. Be concise, structured, and focused on helping the next model seamlessly continue the work.";

/// The instruction as the last user turn of a request.
pub fn instruction_turn() -> Message {
    Message::user(SUMMARY_INSTRUCTION)
}
