//! Rich text (`<si>`, `<is>`) as `openpyxl.cell.text.Text.from_tree(node).content`
//! reads it: the plain `<t>` (the last one wins) then every run's `<t>`,
//! phonetic runs left out; children matched by local name whatever their
//! namespace; and the descriptors' checks, whose failures make the
//! reference refuse the workbook (an unknown attribute, a phonetic run
//! without integer bounds, a run font with an invalid size, colour or set value).

use super::pynum::{parse_float, PyInt};
use super::xml::Node;

/// Why a text element is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextError(pub String);

fn err(what: impl Into<String>) -> TextError {
    TextError(what.into())
}

/// Attributes without a namespace (`{…}` ones are dropped by `from_tree`).
fn plain_attrs(node: &Node) -> impl Iterator<Item = (&str, &str)> {
    node.attrs
        .iter()
        .filter(|(k, _)| !k.starts_with('{'))
        .map(|(k, v)| (k.as_str(), v.as_str()))
}

/// Refuses attributes the class's `__init__` does not take.
fn only_attrs(node: &Node, class: &str, allowed: &[&str]) -> Result<(), TextError> {
    for (k, _) in plain_attrs(node) {
        if !allowed.contains(&k) {
            return Err(err(format!("{class} does not take the attribute '{k}'")));
        }
    }
    Ok(())
}

/// `Integer()`: `int(value)` must succeed.
fn check_int(value: Option<&str>, what: &str) -> Result<(), TextError> {
    match value.and_then(PyInt::parse) {
        Some(_) => Ok(()),
        None => Err(err(format!("{what} must be an integer"))),
    }
}

/// `NoneSet(values)`: absent, `none` or one of the values.
fn check_set(value: Option<&str>, values: &[&str], what: &str) -> Result<(), TextError> {
    match value {
        None | Some("none") => Ok(()),
        Some(v) if values.contains(&v) => Ok(()),
        Some(v) => Err(err(format!("{what} '{v}' is not one of {values:?}"))),
    }
}

/// `Color.from_tree`: the attribute it validates first, the tint's range.
pub(crate) fn check_color(node: &Node) -> Result<(), TextError> {
    only_attrs(
        node,
        "Color",
        &["rgb", "indexed", "auto", "theme", "tint", "type", "index"],
    )?;
    let get = |k: &str| node.get(k);
    if let Some(v) = get("index").or(get("indexed")) {
        check_int(Some(v), "a colour's index")?;
    } else if let Some(v) = get("theme") {
        check_int(Some(v), "a colour's theme")?;
    } else if get("auto").is_some() {
    } else if let Some(rgb) = get("rgb") {
        let hex = rgb.bytes().all(|b| b.is_ascii_hexdigit());
        if !(hex && (rgb.len() == 6 || rgb.len() == 8)) {
            return Err(err(format!("colour '{rgb}' is not aRGB hex")));
        }
    }
    if let Some(t) = get("tint") {
        match parse_float(t) {
            Some(f) if (-1.0..=1.0).contains(&f) => {}
            _ => return Err(err(format!("tint '{t}' is not within -1..1"))),
        }
    }
    Ok(())
}

/// `InlineFont.from_tree` (a run's `<rPr>`).
fn check_run_font(node: &Node) -> Result<(), TextError> {
    const TAKES: [&str; 15] = [
        "rFont",
        "charset",
        "family",
        "b",
        "i",
        "strike",
        "outline",
        "shadow",
        "condense",
        "extend",
        "color",
        "sz",
        "u",
        "vertAlign",
        "scheme",
    ];
    only_attrs(node, "InlineFont", &TAKES)?;
    for child in &node.children {
        let val = child.get("val");
        match child.local() {
            "charset" if val.is_some() => check_int(val, "a font's charset")?,
            "family" => {
                if let Some(v) = val {
                    match parse_float(v) {
                        Some(f) if (0.0..=14.0).contains(&f) => {}
                        _ => return Err(err(format!("font family '{v}' is not within 0..14"))),
                    }
                }
            }
            "sz" => {
                if let Some(v) = val {
                    if parse_float(v).is_none() {
                        return Err(err(format!("font size '{v}' is not a number")));
                    }
                }
            }
            "u" => check_set(
                val,
                &["single", "double", "singleAccounting", "doubleAccounting"],
                "underline",
            )?,
            "vertAlign" => check_set(val, &["superscript", "subscript", "baseline"], "vertAlign")?,
            "scheme" => check_set(val, &["major", "minor"], "font scheme")?,
            "color" => check_color(child)?,
            // Font's own descriptors that InlineFont's constructor does not take.
            "name" | "extLst" => {
                return Err(err(format!("a run font does not take <{}>", child.local())))
            }
            _ => {}
        }
    }
    Ok(())
}

/// `Text.from_tree(node).content`.
pub(crate) fn content(node: &Node) -> Result<String, TextError> {
    let mut plain: Option<String> = None;
    for (k, v) in plain_attrs(node) {
        if k == "t" {
            plain = Some(v.to_string());
        } else {
            return Err(err(format!("text does not take the attribute '{k}'")));
        }
    }
    let mut runs = Vec::new();
    for child in &node.children {
        match child.local() {
            "t" => plain = child.text.clone(),
            "r" => {
                let mut text = None;
                for (k, v) in plain_attrs(child) {
                    match k {
                        "t" => text = Some(v.to_string()),
                        _ => {
                            return Err(err(format!(
                                "a text run does not take the attribute '{k}'"
                            )))
                        }
                    }
                }
                for part in &child.children {
                    match part.local() {
                        "t" => text = part.text.clone(),
                        "rPr" => check_run_font(part)?,
                        _ => {}
                    }
                }
                runs.push(text);
            }
            "rPh" => {
                only_attrs(child, "PhoneticText", &["sb", "eb", "t"])?;
                check_int(child.get("sb"), "a phonetic run's sb")?;
                check_int(child.get("eb"), "a phonetic run's eb")?;
            }
            "phoneticPr" => {
                only_attrs(
                    child,
                    "PhoneticProperties",
                    &["fontId", "type", "alignment"],
                )?;
                check_int(child.get("fontId"), "phonetic properties' fontId")?;
                check_set(
                    child.get("type"),
                    &[
                        "halfwidthKatakana",
                        "fullwidthKatakana",
                        "Hiragana",
                        "noConversion",
                    ],
                    "phonetic type",
                )?;
                check_set(
                    child.get("alignment"),
                    &["noControl", "left", "center", "distributed"],
                    "phonetic alignment",
                )?;
            }
            _ => {}
        }
    }
    let mut out = plain.unwrap_or_default();
    for run in runs.into_iter().flatten() {
        out.push_str(&run);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::xml::parse_tree;
    use super::*;

    fn of(xml: &str) -> Result<String, TextError> {
        content(&parse_tree("s.xml", xml.as_bytes(), 32).expect("xml"))
    }

    #[test]
    fn runs_are_joined_and_phonetics_dropped() {
        assert_eq!(
            of(r#"<si xmlns="urn:m"><r><rPr><b/><sz val="11"/></rPr><t>a</t></r><r><t xml:space="preserve"> b</t></r><rPh sb="0" eb="1"><t>x</t></rPh></si>"#).as_deref(),
            Ok("a b")
        );
        assert_eq!(of("<si><t>one</t><t>two</t></si>").as_deref(), Ok("two"));
        assert_eq!(of("<si><t/></si>").as_deref(), Ok(""));
    }

    #[test]
    fn invalid_descriptors_are_refused() {
        assert!(of(r#"<si foo="1"><t>a</t></si>"#).is_err());
        assert!(of(r#"<si><rPh><t>a</t></rPh></si>"#).is_err());
        assert!(of(r#"<si><r><rPr><u val="wavy"/></rPr><t>a</t></r></si>"#).is_err());
        assert!(of(r#"<si><r><rPr><color rgb="red"/></rPr><t>a</t></r></si>"#).is_err());
    }
}
