//! Prints what `encoding_rs` makes of every short sequence the codec tables
//! are generated over, for `tools/generate/gen_codec_tables.py`:
//! `cargo run -p ctxguard-extract --example encoding_rs_dump > /tmp/encoding_rs.txt`.
//! One line per sequence: `label hex` and the code points in hex, or `E`.

use std::io::Write;

fn line(out: &mut impl Write, label: &str, bytes: &[u8]) -> std::io::Result<()> {
    let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).expect("a WHATWG label");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    match encoding.decode_without_bom_handling_and_without_replacement(bytes) {
        Some(text) => {
            let points: Vec<String> = text
                .chars()
                .map(|c| format!("{:x}", u32::from(c)))
                .collect();
            writeln!(out, "{label} {hex} {}", points.join(" "))
        }
        None => writeln!(out, "{label} {hex} E"),
    }
}

fn main() -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for label in ["gb18030", "big5", "shift_jis", "euc-jp", "euc-kr"] {
        for a in 0x80..=0xFFu8 {
            line(&mut out, label, &[a])?;
            for b in 0..=0xFFu8 {
                line(&mut out, label, &[a, b])?;
            }
        }
    }
    for a in 0x81..=0xFEu8 {
        for b in 0x30..=0x39u8 {
            for c in 0x81..=0xFEu8 {
                for d in 0x30..=0x39u8 {
                    line(&mut out, "gb18030", &[a, b, c, d])?;
                }
            }
        }
    }
    for b in 0x80..=0xFFu8 {
        for c in 0x80..=0xFFu8 {
            line(&mut out, "euc-jp", &[0x8F, b, c])?;
        }
    }
    out.flush()
}
