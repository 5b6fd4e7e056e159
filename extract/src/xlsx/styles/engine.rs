//! `Serialisable.from_tree` and the descriptors' `__set__`, over the
//! stylesheet classes: what each value becomes, and which Python error a bad
//! one raises (classified as the repair or the refusal).

use super::classes::Class;
use crate::xlsx::pynum::{parse_float, PyInt};
use crate::xlsx::xml::Node;

/// An error on the way, already classified.
#[derive(Debug, Clone)]
pub(crate) enum Err {
    Repair(String),
    Fail(String),
}

pub(crate) type R<T> = Result<T, Err>;

pub(crate) fn fail<T>(what: impl Into<String>) -> R<T> {
    Err(Err::Fail(what.into()))
}

fn repair<T>(what: impl Into<String>) -> R<T> {
    Err(Err::Repair(what.into()))
}

/// A value handed to a constructor.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum V {
    None,
    Str(String),
    /// `True` (a `NestedBool` child without `val`).
    True,
    Obj(Obj),
    List(Vec<V>),
}

/// A constructed object: its class and validated fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Obj {
    pub(crate) class: Class,
    pub(crate) fields: Vec<(String, V)>,
}

impl Obj {
    pub(crate) fn get(&self, key: &str) -> &V {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map_or(&V::None, |(_, v)| v)
    }
}

/// How a descriptor checks and converts what it is given.
#[derive(Debug, Clone, Copy)]
pub(crate) enum K {
    /// `String()`: a `str` (or `None` when allowed).
    Str(bool),
    /// `Typed(expected_type=class)`.
    Typed(Class, bool),
    /// `Integer()`.
    Int(bool),
    /// `Float()`.
    Float(bool),
    /// `Bool()`: anything converts.
    Bool,
    /// `MinMax(min, max)` over floats.
    MinMax(f64, f64, bool),
    /// `Set(values)` (or `NoneSet` when the flag is set).
    Set(&'static [&'static str], bool),
    /// `Sequence(expected_type=class)`.
    Seq(Class),
    /// `NestedSequence(expected_type=class)`: the container's children.
    NestedSeq(Class),
    /// A nested `val` attribute checked as the inner kind.
    Nested(&'static K),
    /// `NestedBool`: `val`, or true when absent.
    NestedBool,
    /// `ColorDescriptor`: a string becomes `Color(rgb=…)`.
    Color(bool),
    /// `RGB()`.
    Rgb,
}

/// Python's reserved words, which `from_tree` prefixes with `_`.
fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "False"
            | "None"
            | "True"
            | "and"
            | "as"
            | "assert"
            | "async"
            | "await"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "else"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "if"
            | "import"
            | "in"
            | "is"
            | "lambda"
            | "nonlocal"
            | "not"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
            | "yield"
    )
}

/// The keyword name `from_tree` passes for an attribute or child tag.
fn python_name(name: &str) -> String {
    if is_keyword(name) {
        format!("_{name}")
    } else {
        name.replace('-', "_")
    }
}

/// `desc.__set__` for one value of class `owner`.
fn check(owner: Class, field: &str, kind: K, value: V) -> R<V> {
    let typed_error = || {
        let msg = format!("{}.{field} has the wrong type", owner.name());
        if owner.in_styles() {
            Err::Repair(msg)
        } else {
            Err::Fail(msg)
        }
    };
    let convert_error = || Err::Fail(format!("{}.{field} does not convert", owner.name()));
    match kind {
        K::Str(none) => match value {
            V::Str(_) => Ok(value),
            V::None if none => Ok(V::None),
            _ => Err(typed_error()),
        },
        K::Typed(class, none) => match &value {
            V::Obj(o) if o.class.is_a(class) => Ok(value),
            V::None if none => Ok(V::None),
            _ => Err(typed_error()),
        },
        K::Int(none) => match &value {
            V::None if none => Ok(V::None),
            V::Str(s) => PyInt::parse(s)
                .map(|_| value.clone())
                .ok_or_else(convert_error),
            V::True => Ok(V::Str("1".into())),
            _ => Err(convert_error()),
        },
        K::Float(none) => match &value {
            V::None if none => Ok(V::None),
            V::Str(s) => parse_float(s)
                .map(|_| value.clone())
                .ok_or_else(convert_error),
            V::True => Ok(V::Str("1".into())),
            _ => Err(convert_error()),
        },
        K::Bool | K::NestedBool => Ok(value),
        K::MinMax(min, max, none) => {
            let f = match &value {
                V::None if none => return Ok(V::None),
                V::Str(s) => parse_float(s).ok_or_else(convert_error)?,
                V::True => 1.0,
                _ => return Err(convert_error()),
            };
            if f < min || f > max {
                return fail(format!("{}.{field} {f} is out of range", owner.name()));
            }
            Ok(value)
        }
        K::Set(values, none_set) => match &value {
            V::Str(s) if none_set && s == "none" => Ok(V::None),
            V::None if none_set => Ok(V::None),
            V::Str(s) if values.contains(&s.as_str()) => Ok(value),
            _ => fail(format!("{}.{field} is not one of its values", owner.name())),
        },
        K::Seq(class) | K::NestedSeq(class) => match value {
            V::List(items) => {
                for item in &items {
                    match item {
                        V::Obj(o) if o.class.is_a(class) => {}
                        V::None if class == Class::Fill => {
                            return repair("expected <class 'openpyxl.styles.fills.Fill'>")
                        }
                        _ => {}
                    }
                }
                Ok(V::List(items))
            }
            V::None => Ok(V::List(Vec::new())),
            _ => fail(format!("{}.{field} must be a sequence", owner.name())),
        },
        K::Nested(inner) => check(owner, field, *inner, value),
        K::Color(none) => match value {
            V::Str(s) => {
                check_rgb(&s)?;
                Ok(V::Obj(Obj {
                    class: Class::Color,
                    fields: vec![("rgb".into(), V::Str(s))],
                }))
            }
            V::None if none => Ok(V::None),
            V::Obj(o) if o.class == Class::Color => Ok(V::Obj(o)),
            _ => Err(typed_error()),
        },
        K::Rgb => match &value {
            V::Str(s) => {
                check_rgb(s)?;
                Ok(value)
            }
            _ => fail(format!("{}.{field} is not an aRGB string", owner.name())),
        },
    }
}

/// `aRGB_REGEX`: six or eight hex digits.
fn check_rgb(s: &str) -> R<()> {
    if (s.len() == 6 || s.len() == 8) && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        fail(format!("colour '{s}' is not aRGB hex"))
    }
}

/// The keyword arguments `Serialisable.from_tree` collects from a node.
fn collect(node: &Node, class: Class, depth: usize) -> R<Vec<(String, V)>> {
    let mut attrib: Vec<(String, V)> = Vec::new();
    let set = |attrib: &mut Vec<(String, V)>, k: String, v: V| match attrib
        .iter_mut()
        .find(|(key, _)| *key == k)
    {
        Some(slot) => slot.1 = v,
        None => attrib.push((k, v)),
    };
    if class != Class::Stylesheet {
        for (k, v) in &node.attrs {
            if k.starts_with('{') {
                continue;
            }
            set(&mut attrib, python_name(k), V::Str(v.clone()));
        }
    }
    for child in &node.children {
        let tag = python_name(child.local());
        let Some(kind) = class.desc(&tag) else {
            if class.poisons(&tag) {
                return fail(format!("<{tag}> cannot be read into {}", class.name()));
            }
            continue;
        };
        let obj = match kind {
            K::Nested(_) => child.get("val").map_or(V::None, |v| V::Str(v.into())),
            K::NestedBool => child.get("val").map_or(V::True, |v| V::Str(v.into())),
            K::NestedSeq(inner) => {
                let items: R<Vec<V>> = child
                    .children
                    .iter()
                    .map(|c| from_tree(c, inner, depth + 1))
                    .collect();
                V::List(items?)
            }
            K::Typed(inner, _) | K::Seq(inner) => from_tree(child, inner, depth + 1)?,
            K::Color(_) => from_tree(child, Class::Color, depth + 1)?,
            _ => child.text.clone().map_or(V::None, V::Str),
        };
        if let K::Seq(_) = kind {
            match attrib.iter_mut().find(|(k, _)| *k == tag) {
                Some((_, V::List(items))) => items.push(obj),
                Some(slot) => slot.1 = V::List(vec![obj]),
                None => attrib.push((tag, V::List(vec![obj]))),
            }
        } else {
            set(&mut attrib, tag, obj);
        }
    }
    Ok(attrib)
}

/// Refuses keyword arguments the constructor does not take.
fn take_kwargs(class: Class, attrib: &[(String, V)]) -> R<()> {
    for (k, _) in attrib {
        if !class.params().contains(&k.as_str()) {
            return fail(format!(
                "{}() got an unexpected keyword argument '{k}'",
                class.name()
            ));
        }
    }
    Ok(())
}

fn arg<'a>(attrib: &'a [(String, V)], key: &str) -> Option<&'a V> {
    attrib.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `cls.from_tree(node)`; `V::None` where the reference returns `None` (an empty fill).
pub(crate) fn from_tree(node: &Node, class: Class, depth: usize) -> R<V> {
    if depth > 64 {
        return fail("styles nested too deeply");
    }
    match class {
        Class::Fill => {
            let Some(child) = node.children.first() else {
                return Ok(V::None);
            };
            if child.is_comment() {
                return fail("a fill's first child is a comment");
            }
            if child.tag.contains("patternFill") {
                return pattern_fill(child, depth);
            }
            return from_tree(child, Class::GradientFill, depth);
        }
        Class::Font => {
            // An <u> without val means single underline.
            let mut node = node.clone();
            if let Some(u) = node
                .children
                .iter_mut()
                .find(|c| c.tag == "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}u")
            {
                if u.get("val").is_none() {
                    u.attrs.push(("val".into(), "single".into()));
                }
            }
            let attrib = collect(&node, class, depth)?;
            return construct(class, attrib);
        }
        _ => {}
    }
    let attrib = collect(node, class, depth)?;
    construct(class, attrib)
}

/// `PatternFill._from_tree`: attributes as they are, every child read as a colour.
fn pattern_fill(node: &Node, depth: usize) -> R<V> {
    let mut attrib: Vec<(String, V)> = node
        .attrs
        .iter()
        .map(|(k, v)| (k.clone(), V::Str(v.clone())))
        .collect();
    for child in &node.children {
        let color = from_tree(child, Class::Color, depth + 1)?;
        let key = child.local().to_string();
        match attrib.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = color,
            None => attrib.push((key, color)),
        }
    }
    construct(Class::PatternFill, attrib)
}

/// Aliased parameters and the descriptor they set.
fn alias(class: Class, param: &str) -> Option<&'static str> {
    Some(match (class, param) {
        (Class::Font, "size") => "sz",
        (Class::Font, "bold") => "b",
        (Class::Font, "italic") => "i",
        (Class::Font, "underline") => "u",
        (Class::Font, "strikethrough") => "strike",
        (Class::PatternFill, "fill_type") => "patternType",
        (Class::PatternFill, "start_color") => "fgColor",
        (Class::PatternFill, "end_color") => "bgColor",
        (Class::Alignment, "text_rotation") => "textRotation",
        (Class::Alignment, "wrap_text") => "wrapText",
        (Class::Alignment, "shrink_to_fit") => "shrinkToFit",
        (Class::Side, "border_style") => "style",
        _ => return None,
    })
}

/// `cls(**attrib)`: the constructor's checks, parameters in order.
fn construct(class: Class, mut attrib: Vec<(String, V)>) -> R<V> {
    take_kwargs(class, &attrib)?;
    // Aliases given override their targets.
    for param in class.params() {
        if let Some(target) = alias(class, param) {
            if let Some(v) = arg(&attrib, param).cloned().filter(|v| *v != V::None) {
                attrib.retain(|(k, _)| k != target && k != param);
                attrib.push((target.to_string(), v));
            }
        }
    }
    let mut fields = Vec::new();
    match class {
        Class::Color => {
            let given = |k: &str| arg(&attrib, k).filter(|v| **v != V::None).cloned();
            if let Some(v) = given("index").or_else(|| given("indexed")) {
                fields.push(("indexed".into(), check(class, "indexed", K::Int(false), v)?));
            } else if let Some(v) = given("theme") {
                fields.push(("theme".into(), check(class, "theme", K::Int(false), v)?));
            } else if given("auto").is_some() {
            } else {
                let rgb = given("rgb").unwrap_or(V::Str("00000000".into()));
                fields.push(("rgb".into(), check(class, "rgb", K::Rgb, rgb)?));
            }
            if let Some(t) = given("tint") {
                check(class, "tint", K::MinMax(-1.0, 1.0, false), t)?;
            }
        }
        Class::Stop => {
            let (Some(color), Some(position)) = (arg(&attrib, "color"), arg(&attrib, "position"))
            else {
                return fail("Stop() is missing a required argument");
            };
            let position = check(
                class,
                "position",
                K::MinMax(0.0, 1.0, false),
                position.clone(),
            )?;
            fields.push(("position".into(), position));
            fields.push((
                "color".into(),
                check(class, "color", K::Color(false), color.clone())?,
            ));
        }
        Class::Alignment => {
            for param in class.params() {
                let Some(v) = arg(&attrib, param).cloned() else {
                    continue;
                };
                if *param == "textRotation" {
                    if v == V::None {
                        continue;
                    }
                    let V::Str(s) = &v else {
                        return fail("textRotation is not an integer");
                    };
                    let n = PyInt::parse(s)
                        .and_then(|i| i.to_i64())
                        .ok_or_else(|| Err::Fail("textRotation is not an integer".into()))?;
                    if !((0..=180).contains(&n) || n == 255) {
                        return fail(format!("textRotation {n} is out of range"));
                    }
                } else if let Some(kind) = class.desc(param) {
                    check(class, param, kind, v)?;
                }
            }
        }
        _ => {
            for param in class.params() {
                let Some(kind) = class.desc(param) else {
                    continue;
                };
                let value = match arg(&attrib, param) {
                    Some(v) => v.clone(),
                    None => match (class, *param) {
                        (Class::NumberFormat, "numFmtId") | (Class::NamedCellStyle, "xfId") => {
                            V::None
                        }
                        (Class::RgbColor, "rgb")
                        | (Class::NumberFormat, "formatCode")
                        | (Class::NamedCellStyle, "name")
                        | (Class::TableStyle, "name")
                        | (Class::Extension, "uri") => V::None,
                        _ => continue,
                    },
                };
                let value = check(class, param, kind, value)?;
                fields.push((param.to_string(), value));
            }
            if class == Class::GradientFill {
                // _assign_position: stops read from XML must not share a position.
                let mut seen: Vec<f64> = Vec::new();
                let stops = match fields.iter().find(|(k, _)| k == "stop") {
                    Some((_, V::List(items))) => items.clone(),
                    _ => Vec::new(),
                };
                for stop in &stops {
                    let V::Obj(o) = stop else { continue };
                    let V::Str(p) = o.get("position") else {
                        continue;
                    };
                    let Some(p) = parse_float(p) else { continue };
                    if seen.contains(&p) {
                        return fail(format!("duplicate gradient stop position {p}"));
                    }
                    seen.push(p);
                }
            }
        }
    }
    Ok(V::Obj(Obj { class, fields }))
}
