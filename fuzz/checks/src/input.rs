//! Reading the fuzzer's bytes: UTF-8 text, and the "parameters line, then
//! text" shape some targets take.

/// The input as UTF-8 text; `None` (the input is skipped) when it is not.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Splits text into its first line (the parameters) and everything after the
/// first `\n` (the subject text, byte for byte).
pub fn params_and_text(text: &str) -> (&str, &str) {
    text.split_once('\n').unwrap_or((text, ""))
}

/// The whitespace-separated integers of a parameters line, `None` for each
/// word that is not one.
pub fn ints(line: &str) -> impl Iterator<Item = Option<i64>> + '_ {
    line.split_ascii_whitespace().map(|w| w.parse().ok())
}
