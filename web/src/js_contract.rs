//! What the package's JavaScript shares with this module and with the
//! relay, defined once: `web/js/ctxguard-toolbar.js` holds a copy of these
//! constants, generated from here between its `contract:` marker lines
//! (`UPDATE_JS_CONTRACT=1 cargo test -p ctxguard-web js_contract` writes it;
//! the same test fails when the copy differs).

use ctxguard_core::protocol::{
    CURSOR_ID_SEPARATOR, CURSOR_PAIRS_SEPARATOR, MAX_STREAM_SESSIONS, TAG_PREFIX,
};

/// Strings from this many characters (UTF-16 units in JavaScript) cross the
/// module's boundary as themselves, not inside JSON text.
pub const LONG_CHARS: usize = 4_096;

/// Starts every placeholder, and every string the JavaScript side sent aside
/// because it starts so (a private-use character no event text has reason to
/// open with).
pub const PLACEHOLDER_PREFIX: &str = "\u{F8FF}ctxguard-long:";

/// The line that opens the generated block in the JavaScript.
const BEGIN: &str = "// contract: generated from ctxguard-core and ctxguard-web (web/src/js_contract.rs); do not edit";

/// The line that closes it.
const END: &str = "// contract: end";

/// A JavaScript string literal of `text` (JSON's escaping, non-ASCII as `\u` escapes).
fn js_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// The generated block, marker lines included.
pub fn javascript() -> String {
    let constants = [
        // Strings of an event from this many characters cross into the module as themselves.
        ("LONG_STRING", LONG_CHARS.to_string()),
        // Opens the placeholder of a string sent aside (and a string that itself opens so).
        ("PLACEHOLDER", js_string(PLACEHOLDER_PREFIX)),
        // Sessions one shared stream may name (the relay refuses more).
        ("MAX_SESSIONS", MAX_STREAM_SESSIONS.to_string()),
        // How the relay's multi-session events start: the session's id, then its own JSON.
        ("SESSION_TAG", js_string(TAG_PREFIX)),
        // Joins the shared stream's cursor pairs.
        (
            "CURSOR_PAIRS",
            js_string(&CURSOR_PAIRS_SEPARATOR.to_string()),
        ),
        // Splits one cursor pair, `ID:N`, at its last occurrence.
        ("CURSOR_ID", js_string(&CURSOR_ID_SEPARATOR.to_string())),
    ];
    let mut out = format!("{BEGIN}\n");
    for (name, value) in constants {
        out.push_str(&format!("const {name} = {value};\n"));
    }
    out.push_str(END);
    out
}

/// `source` with its generated block replaced by [`javascript`], or `None`
/// when it has no block.
pub fn with_generated_block(source: &str) -> Option<String> {
    let start = source.find(BEGIN)?;
    let end = start + source[start..].find(END)? + END.len();
    Some(format!(
        "{}{}{}",
        &source[..start],
        javascript(),
        &source[end..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_javascript_holds_the_generated_contract() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/js/ctxguard-toolbar.js");
        let source = std::fs::read_to_string(path).expect("the package's JavaScript");
        let generated = with_generated_block(&source).expect("the contract: marker lines");
        if std::env::var_os("UPDATE_JS_CONTRACT").is_some() {
            std::fs::write(path, &generated).expect("written");
        } else {
            assert!(
                generated == source,
                "web/js/ctxguard-toolbar.js differs from the contract: run UPDATE_JS_CONTRACT=1 cargo test -p ctxguard-web js_contract"
            );
        }
    }

    #[test]
    fn strings_are_written_as_javascript_reads_them() {
        assert_eq!(js_string("\u{F8FF}a\"b"), "\"\\uF8FFa\\\"b\"");
        assert_eq!(js_string("\u{1F600}"), "\"\\uD83D\\uDE00\"");
    }
}
