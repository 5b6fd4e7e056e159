//! `Serialisable.from_tree` and the descriptors' `__set__`, over the
//! stylesheet classes: what each value becomes, and which Python error a bad
//! one raises (classified as the repair or the refusal).

use super::classes::Class;
use crate::xlsx::pynum::{parse_float, PyInt};
use crate::xlsx::xml::Node;

/// An error on the way, already classified.
#[derive(Debug, Clone)]
pub(crate) enum StyleError {
    Repair(String),
    Fail(String),
}

pub(crate) type StyleResult<T> = Result<T, StyleError>;

pub(crate) fn fail<T>(what: impl Into<String>) -> StyleResult<T> {
    Err(StyleError::Fail(what.into()))
}

fn repair<T>(what: impl Into<String>) -> StyleResult<T> {
    Err(StyleError::Repair(what.into()))
}

/// A value handed to a constructor.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyValue {
    None,
    Str(String),
    /// `True` (a `NestedBool` child without `val`).
    True,
    Obj(Obj),
    List(Vec<PyValue>),
}

/// A constructed object: its class and validated fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Obj {
    pub(crate) class: Class,
    pub(crate) fields: Vec<(String, PyValue)>,
}

impl Obj {
    pub(crate) fn get(&self, key: &str) -> &PyValue {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map_or(&PyValue::None, |(_, v)| v)
    }
}

/// How a descriptor checks and converts what it is given.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Descriptor {
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
    Nested(&'static Descriptor),
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
fn check(owner: Class, field: &str, kind: Descriptor, value: PyValue) -> StyleResult<PyValue> {
    let typed_error = || {
        let msg = format!("{}.{field} has the wrong type", owner.name());
        if owner.in_styles() {
            StyleError::Repair(msg)
        } else {
            StyleError::Fail(msg)
        }
    };
    let convert_error = || StyleError::Fail(format!("{}.{field} does not convert", owner.name()));
    match kind {
        Descriptor::Str(none) => match value {
            PyValue::Str(_) => Ok(value),
            PyValue::None if none => Ok(PyValue::None),
            _ => Err(typed_error()),
        },
        Descriptor::Typed(class, none) => match &value {
            PyValue::Obj(o) if o.class.is_a(class) => Ok(value),
            PyValue::None if none => Ok(PyValue::None),
            _ => Err(typed_error()),
        },
        Descriptor::Int(none) => match &value {
            PyValue::None if none => Ok(PyValue::None),
            PyValue::Str(s) => PyInt::parse(s)
                .map(|_| value.clone())
                .ok_or_else(convert_error),
            PyValue::True => Ok(PyValue::Str("1".into())),
            _ => Err(convert_error()),
        },
        Descriptor::Float(none) => match &value {
            PyValue::None if none => Ok(PyValue::None),
            PyValue::Str(s) => parse_float(s)
                .map(|_| value.clone())
                .ok_or_else(convert_error),
            PyValue::True => Ok(PyValue::Str("1".into())),
            _ => Err(convert_error()),
        },
        Descriptor::Bool | Descriptor::NestedBool => Ok(value),
        Descriptor::MinMax(min, max, none) => {
            let f = match &value {
                PyValue::None if none => return Ok(PyValue::None),
                PyValue::Str(s) => parse_float(s).ok_or_else(convert_error)?,
                PyValue::True => 1.0,
                _ => return Err(convert_error()),
            };
            if f < min || f > max {
                return fail(format!("{}.{field} {f} is out of range", owner.name()));
            }
            Ok(value)
        }
        Descriptor::Set(values, none_set) => match &value {
            PyValue::Str(s) if none_set && s == "none" => Ok(PyValue::None),
            PyValue::None if none_set => Ok(PyValue::None),
            PyValue::Str(s) if values.contains(&s.as_str()) => Ok(value),
            _ => fail(format!("{}.{field} is not one of its values", owner.name())),
        },
        Descriptor::Seq(class) | Descriptor::NestedSeq(class) => match value {
            PyValue::List(items) => {
                for item in &items {
                    match item {
                        PyValue::Obj(o) if o.class.is_a(class) => {}
                        PyValue::None if class == Class::Fill => {
                            return repair("expected <class 'openpyxl.styles.fills.Fill'>")
                        }
                        _ => {}
                    }
                }
                Ok(PyValue::List(items))
            }
            PyValue::None => Ok(PyValue::List(Vec::new())),
            _ => fail(format!("{}.{field} must be a sequence", owner.name())),
        },
        Descriptor::Nested(inner) => check(owner, field, *inner, value),
        Descriptor::Color(none) => match value {
            PyValue::Str(s) => {
                check_rgb(&s)?;
                Ok(PyValue::Obj(Obj {
                    class: Class::Color,
                    fields: vec![("rgb".into(), PyValue::Str(s))],
                }))
            }
            PyValue::None if none => Ok(PyValue::None),
            PyValue::Obj(o) if o.class == Class::Color => Ok(PyValue::Obj(o)),
            _ => Err(typed_error()),
        },
        Descriptor::Rgb => match &value {
            PyValue::Str(s) => {
                check_rgb(s)?;
                Ok(value)
            }
            _ => fail(format!("{}.{field} is not an aRGB string", owner.name())),
        },
    }
}

/// `aRGB_REGEX`: six or eight hex digits.
fn check_rgb(s: &str) -> StyleResult<()> {
    if (s.len() == 6 || s.len() == 8) && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        fail(format!("colour '{s}' is not aRGB hex"))
    }
}

/// The keyword arguments `Serialisable.from_tree` collects from a node.
fn collect(node: &Node, class: Class, depth: usize) -> StyleResult<Vec<(String, PyValue)>> {
    let mut attrib: Vec<(String, PyValue)> = Vec::new();
    let set = |attrib: &mut Vec<(String, PyValue)>, k: String, v: PyValue| match attrib
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
            set(&mut attrib, python_name(k), PyValue::Str(v.clone()));
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
            Descriptor::Nested(_) => child
                .get("val")
                .map_or(PyValue::None, |v| PyValue::Str(v.into())),
            Descriptor::NestedBool => child
                .get("val")
                .map_or(PyValue::True, |v| PyValue::Str(v.into())),
            Descriptor::NestedSeq(inner) => {
                let items: StyleResult<Vec<PyValue>> = child
                    .children
                    .iter()
                    .map(|c| from_tree(c, inner, depth + 1))
                    .collect();
                PyValue::List(items?)
            }
            Descriptor::Typed(inner, _) | Descriptor::Seq(inner) => {
                from_tree(child, inner, depth + 1)?
            }
            Descriptor::Color(_) => from_tree(child, Class::Color, depth + 1)?,
            _ => child.text.clone().map_or(PyValue::None, PyValue::Str),
        };
        if let Descriptor::Seq(_) = kind {
            match attrib.iter_mut().find(|(k, _)| *k == tag) {
                Some((_, PyValue::List(items))) => items.push(obj),
                Some(slot) => slot.1 = PyValue::List(vec![obj]),
                None => attrib.push((tag, PyValue::List(vec![obj]))),
            }
        } else {
            set(&mut attrib, tag, obj);
        }
    }
    Ok(attrib)
}

/// Refuses keyword arguments the constructor does not take.
fn take_kwargs(class: Class, attrib: &[(String, PyValue)]) -> StyleResult<()> {
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

fn arg<'a>(attrib: &'a [(String, PyValue)], key: &str) -> Option<&'a PyValue> {
    attrib.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `cls.from_tree(node)`; `PyValue::None` where the reference returns `None` (an empty fill).
pub(crate) fn from_tree(node: &Node, class: Class, depth: usize) -> StyleResult<PyValue> {
    if depth > 64 {
        return fail("styles nested too deeply");
    }
    match class {
        Class::Fill => {
            let Some(child) = node.children.first() else {
                return Ok(PyValue::None);
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
                .find(|c| &*c.tag == "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}u")
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
fn pattern_fill(node: &Node, depth: usize) -> StyleResult<PyValue> {
    let mut attrib: Vec<(String, PyValue)> = node
        .attrs
        .iter()
        .map(|(k, v)| (k.clone(), PyValue::Str(v.clone())))
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
fn construct(class: Class, mut attrib: Vec<(String, PyValue)>) -> StyleResult<PyValue> {
    take_kwargs(class, &attrib)?;
    // Aliases given override their targets.
    for param in class.params() {
        if let Some(target) = alias(class, param) {
            if let Some(v) = arg(&attrib, param).cloned().filter(|v| *v != PyValue::None) {
                attrib.retain(|(k, _)| k != target && k != param);
                attrib.push((target.to_string(), v));
            }
        }
    }
    let mut fields = Vec::new();
    match class {
        Class::Color => {
            let given = |k: &str| arg(&attrib, k).filter(|v| **v != PyValue::None).cloned();
            if let Some(v) = given("index").or_else(|| given("indexed")) {
                fields.push((
                    "indexed".into(),
                    check(class, "indexed", Descriptor::Int(false), v)?,
                ));
            } else if let Some(v) = given("theme") {
                fields.push((
                    "theme".into(),
                    check(class, "theme", Descriptor::Int(false), v)?,
                ));
            } else if given("auto").is_some() {
            } else {
                let rgb = given("rgb").unwrap_or(PyValue::Str("00000000".into()));
                fields.push(("rgb".into(), check(class, "rgb", Descriptor::Rgb, rgb)?));
            }
            if let Some(t) = given("tint") {
                check(class, "tint", Descriptor::MinMax(-1.0, 1.0, false), t)?;
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
                Descriptor::MinMax(0.0, 1.0, false),
                position.clone(),
            )?;
            fields.push(("position".into(), position));
            fields.push((
                "color".into(),
                check(class, "color", Descriptor::Color(false), color.clone())?,
            ));
        }
        Class::Alignment => {
            for param in class.params() {
                let Some(v) = arg(&attrib, param).cloned() else {
                    continue;
                };
                if *param == "textRotation" {
                    if v == PyValue::None {
                        continue;
                    }
                    let PyValue::Str(s) = &v else {
                        return fail("textRotation is not an integer");
                    };
                    let n = PyInt::parse(s)
                        .and_then(|i| i.to_i64())
                        .ok_or_else(|| StyleError::Fail("textRotation is not an integer".into()))?;
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
                            PyValue::None
                        }
                        (Class::RgbColor, "rgb")
                        | (Class::NumberFormat, "formatCode")
                        | (Class::NamedCellStyle, "name")
                        | (Class::TableStyle, "name")
                        | (Class::Extension, "uri") => PyValue::None,
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
                    Some((_, PyValue::List(items))) => items.clone(),
                    _ => Vec::new(),
                };
                for stop in &stops {
                    let PyValue::Obj(o) = stop else { continue };
                    let PyValue::Str(p) = o.get("position") else {
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
    Ok(PyValue::Obj(Obj { class, fields }))
}
