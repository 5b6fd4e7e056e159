//! Parses one file and prints the outcome: `cargo run -p ctxguard-extract --example ooxml_one -- FILE`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ooxml_one FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let up = ctxguard_extract::upload(&bytes, &path, &ctxguard_extract::Options::default());
    match up.outcome {
        Ok(parsed) => println!("OK {:?}", parsed.text),
        Err(e) => println!("ERR {:?}: {}", e.code, e.message),
    }
}
