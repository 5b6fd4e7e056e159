//! Reading inputs with errors that say which file and where.

use anyhow::{bail, Context, Result};
use std::io::Read;
use std::path::Path;

/// Reads a file (or stdin for `-`) as UTF-8, naming the file and byte offset of invalid UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = read_bytes(path)?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => bail!(
            "{}: not valid UTF-8 at byte offset {}",
            display(path),
            e.utf8_error().valid_up_to()
        ),
    }
}

/// Reads a file's bytes (or stdin for `-`).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("cannot read stdin")?;
        return Ok(buf);
    }
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// How a path is named in messages.
pub fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// Thousands separators: 1234567 → "1,234,567".
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(1234567), "1,234,567");
        assert_eq!(super::thousands(-1000), "-1,000");
    }
}
