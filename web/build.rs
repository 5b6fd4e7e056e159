//! The elements' style sheets, minified into OUT_DIR (comments dropped,
//! whitespace collapsed): they are embedded in the toolbar's module, whose
//! first load has a 200 KB brotli budget, and the readable sources stay in css/.

use std::{env, fs, path::Path};

/// `css` without comments and with whitespace collapsed, its meaning unchanged:
/// a run of whitespace becomes one space, and none is kept next to `{ } ; ,`
/// (never around `:` or `>`-less combinators, where a space is a descendant selector).
fn minify(css: &str) -> String {
    let mut no_comments = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        no_comments.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => rest = "",
        }
    }
    no_comments.push_str(rest);
    let mut out = String::with_capacity(no_comments.len());
    let mut pending_space = false;
    for c in no_comments.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        let tight = matches!(c, '{' | '}' | ';' | ',');
        if pending_space && !tight && !out.is_empty() && !out.ends_with(['{', '}', ';', ',']) {
            out.push(' ');
        }
        pending_space = false;
        if c == '}' && out.ends_with(';') {
            out.pop();
        }
        out.push(c);
    }
    out
}

fn main() {
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for (name, parts) in [
        ("toolbar.css", ["css/base.css", "css/toolbar.css"]),
        ("preview.css", ["css/base.css", "css/preview.css"]),
    ] {
        let mut css = String::new();
        for part in parts {
            println!("cargo:rerun-if-changed={part}");
            css.push_str(&fs::read_to_string(part).unwrap_or_else(|e| panic!("{part}: {e}")));
            css.push('\n');
        }
        fs::write(Path::new(&out).join(name), minify(&css)).expect("OUT_DIR is writable");
    }
}
