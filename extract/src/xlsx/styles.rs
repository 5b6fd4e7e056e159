//! `xl/styles.xml` as `openpyxl.styles.stylesheet.apply_stylesheet` reads
//! it, for the one thing cell values need: which cell formats (`cellXfs`
//! indices) are dates and which of those are elapsed times. The whole
//! stylesheet goes through the reference's descriptor checks
//! (`Serialisable.from_tree` then each class's constructor), because how
//! it fails decides the outcome: a `TypeError` naming an `openpyxl.styles`
//! class makes Wegent retry with an empty stylesheet ([`Outcome::Repair`]);
//! any other error refuses the workbook ([`Outcome::Fail`]).

use super::numfmt::{builtin, is_date_format, is_timedelta_format};
use super::pynum::{parse_float, PyInt};
use super::xml::Node;
use std::collections::{BTreeMap, BTreeSet};

/// What reading the stylesheet came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Read: the date and timedelta formats (empty sets when it defines no cell formats).
    Styles(Formats),
    /// A `TypeError` mentioning `openpyxl.styles`: Wegent retries with an empty stylesheet.
    Repair(String),
    /// Any other error: the workbook is refused.
    Fail(String),
}

/// `wb._date_formats` and `wb._timedelta_formats`: `cellXfs` indices.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Formats {
    /// Indices whose number format is a date or time.
    pub dates: BTreeSet<i64>,
    /// Indices whose number format is an elapsed time (`[h]:mm`).
    pub timedeltas: BTreeSet<i64>,
}

/// An error on the way, already classified.
#[derive(Debug, Clone)]
enum Err {
    Repair(String),
    Fail(String),
}

type R<T> = Result<T, Err>;

fn fail<T>(what: impl Into<String>) -> R<T> {
    Err(Err::Fail(what.into()))
}

fn repair<T>(what: impl Into<String>) -> R<T> {
    Err(Err::Repair(what.into()))
}

/// A value handed to a constructor.
#[derive(Debug, Clone, PartialEq)]
enum V {
    None,
    Str(String),
    /// `True` (a `NestedBool` child without `val`).
    True,
    Obj(Obj),
    List(Vec<V>),
}

/// A constructed object: its class and validated fields.
#[derive(Debug, Clone, PartialEq)]
struct Obj {
    class: Class,
    fields: Vec<(String, V)>,
}

impl Obj {
    fn get(&self, key: &str) -> &V {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map_or(&V::None, |(_, v)| v)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Stylesheet,
    NumberFormatList,
    NumberFormat,
    Font,
    Color,
    ColorList,
    RgbColor,
    Fill,
    PatternFill,
    GradientFill,
    Stop,
    Border,
    Side,
    CellStyleList,
    CellStyle,
    Alignment,
    Protection,
    NamedCellStyleList,
    NamedCellStyle,
    DifferentialStyle,
    TableStyleList,
    TableStyle,
    TableStyleElement,
    ExtensionList,
    Extension,
}

/// How a descriptor checks and converts what it is given.
#[derive(Debug, Clone, Copy)]
enum K {
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

const PATTERNS: &[&str] = &[
    "darkDown",
    "darkGray",
    "darkGrid",
    "darkHorizontal",
    "darkTrellis",
    "darkUp",
    "darkVertical",
    "gray0625",
    "gray125",
    "lightDown",
    "lightGray",
    "lightGrid",
    "lightHorizontal",
    "lightTrellis",
    "lightUp",
    "lightVertical",
    "mediumGray",
    "solid",
];
const BORDER_STYLES: &[&str] = &[
    "dashDot",
    "dashDotDot",
    "dashed",
    "dotted",
    "double",
    "hair",
    "medium",
    "mediumDashDot",
    "mediumDashDotDot",
    "mediumDashed",
    "slantDashDot",
    "thick",
    "thin",
];
const HORIZONTAL: &[&str] = &[
    "center",
    "centerContinuous",
    "distributed",
    "fill",
    "general",
    "justify",
    "left",
    "right",
];
const VERTICAL: &[&str] = &["bottom", "center", "distributed", "justify", "top"];
const TABLE_ELEMENTS: &[&str] = &[
    "blankRow",
    "firstColumn",
    "firstColumnStripe",
    "firstColumnSubheading",
    "firstHeaderCell",
    "firstRowStripe",
    "firstRowSubheading",
    "firstSubtotalColumn",
    "firstSubtotalRow",
    "firstTotalCell",
    "headerRow",
    "lastColumn",
    "lastHeaderCell",
    "lastTotalCell",
    "pageFieldLabels",
    "pageFieldValues",
    "secondColumnStripe",
    "secondColumnSubheading",
    "secondRowStripe",
    "secondRowSubheading",
    "secondSubtotalColumn",
    "secondSubtotalRow",
    "thirdColumnSubheading",
    "thirdRowSubheading",
    "thirdSubtotalColumn",
    "thirdSubtotalRow",
    "totalRow",
    "wholeTable",
];

const NESTED_STR: K = K::Str(true);
const NESTED_INT: K = K::Int(true);
const NESTED_FLOAT: K = K::Float(true);
const NESTED_FAMILY: K = K::MinMax(0.0, 14.0, true);
const NESTED_U: K = K::Set(
    &["single", "double", "singleAccounting", "doubleAccounting"],
    true,
);
const NESTED_VERT: K = K::Set(&["superscript", "subscript", "baseline"], true);
const NESTED_SCHEME: K = K::Set(&["major", "minor"], true);

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::NamedCellStyleList => "_NamedCellStyleList",
            Class::NamedCellStyle => "_NamedCellStyle",
            other => match other {
                Class::Stylesheet => "Stylesheet",
                Class::NumberFormatList => "NumberFormatList",
                Class::NumberFormat => "NumberFormat",
                Class::Font => "Font",
                Class::Color => "Color",
                Class::ColorList => "ColorList",
                Class::RgbColor => "RgbColor",
                Class::Fill => "Fill",
                Class::PatternFill => "PatternFill",
                Class::GradientFill => "GradientFill",
                Class::Stop => "Stop",
                Class::Border => "Border",
                Class::Side => "Side",
                Class::CellStyleList => "CellStyleList",
                Class::CellStyle => "CellStyle",
                Class::Alignment => "Alignment",
                Class::Protection => "Protection",
                Class::DifferentialStyle => "DifferentialStyle",
                Class::TableStyleList => "TableStyleList",
                Class::TableStyle => "TableStyle",
                Class::TableStyleElement => "TableStyleElement",
                Class::ExtensionList => "ExtensionList",
                _ => "Extension",
            },
        }
    }

    /// Whether the class lives in `openpyxl.styles` (its `TypeError`s trigger the repair).
    fn in_styles(self) -> bool {
        !matches!(self, Class::ExtensionList | Class::Extension)
    }

    /// The constructor's parameters in order.
    fn params(self) -> &'static [&'static str] {
        match self {
            Class::Stylesheet => &[
                "numFmts",
                "fonts",
                "fills",
                "borders",
                "cellStyleXfs",
                "cellXfs",
                "cellStyles",
                "dxfs",
                "tableStyles",
                "colors",
                "extLst",
            ],
            Class::NumberFormatList => &["count", "numFmt"],
            Class::NumberFormat => &["numFmtId", "formatCode"],
            Class::Font => &[
                "name",
                "sz",
                "b",
                "i",
                "charset",
                "u",
                "strike",
                "color",
                "scheme",
                "family",
                "size",
                "bold",
                "italic",
                "strikethrough",
                "underline",
                "vertAlign",
                "outline",
                "shadow",
                "condense",
                "extend",
            ],
            Class::Color => &["rgb", "indexed", "auto", "theme", "tint", "index", "type"],
            Class::ColorList => &["indexedColors", "mruColors"],
            Class::RgbColor => &["rgb"],
            Class::Fill => &[],
            Class::PatternFill => &[
                "patternType",
                "fgColor",
                "bgColor",
                "fill_type",
                "start_color",
                "end_color",
            ],
            Class::GradientFill => &["type", "degree", "left", "right", "top", "bottom", "stop"],
            Class::Stop => &["color", "position"],
            Class::Border => &[
                "left",
                "right",
                "top",
                "bottom",
                "diagonal",
                "diagonal_direction",
                "vertical",
                "horizontal",
                "diagonalUp",
                "diagonalDown",
                "outline",
                "start",
                "end",
            ],
            Class::Side => &["style", "color", "border_style"],
            Class::CellStyleList => &["count", "xf"],
            Class::CellStyle => &[
                "numFmtId",
                "fontId",
                "fillId",
                "borderId",
                "xfId",
                "quotePrefix",
                "pivotButton",
                "applyNumberFormat",
                "applyFont",
                "applyFill",
                "applyBorder",
                "applyAlignment",
                "applyProtection",
                "alignment",
                "protection",
                "extLst",
            ],
            Class::Alignment => &[
                "horizontal",
                "vertical",
                "textRotation",
                "wrapText",
                "shrinkToFit",
                "indent",
                "relativeIndent",
                "justifyLastLine",
                "readingOrder",
                "text_rotation",
                "wrap_text",
                "shrink_to_fit",
                "mergeCell",
            ],
            Class::Protection => &["locked", "hidden"],
            Class::NamedCellStyleList => &["count", "cellStyle"],
            Class::NamedCellStyle => &[
                "name",
                "xfId",
                "builtinId",
                "iLevel",
                "hidden",
                "customBuiltin",
                "extLst",
            ],
            Class::DifferentialStyle => &[
                "font",
                "numFmt",
                "fill",
                "alignment",
                "border",
                "protection",
                "extLst",
            ],
            Class::TableStyleList => &[
                "count",
                "defaultTableStyle",
                "defaultPivotStyle",
                "tableStyle",
            ],
            Class::TableStyle => &["name", "pivot", "table", "count", "tableStyleElement"],
            Class::TableStyleElement => &["type", "size", "dxfId"],
            Class::ExtensionList => &["ext"],
            Class::Extension => &["uri"],
        }
    }

    /// The descriptor named `name`, if the class has one.
    fn desc(self, name: &str) -> Option<K> {
        use Class as C;
        Some(match (self, name) {
            (C::Stylesheet, "numFmts") => K::Typed(C::NumberFormatList, true),
            (C::Stylesheet, "fonts") => K::NestedSeq(C::Font),
            (C::Stylesheet, "fills") => K::NestedSeq(C::Fill),
            (C::Stylesheet, "borders") => K::NestedSeq(C::Border),
            (C::Stylesheet, "cellStyleXfs" | "cellXfs") => K::Typed(C::CellStyleList, true),
            (C::Stylesheet, "cellStyles") => K::Typed(C::NamedCellStyleList, true),
            (C::Stylesheet, "dxfs") => K::NestedSeq(C::DifferentialStyle),
            (C::Stylesheet, "tableStyles") => K::Typed(C::TableStyleList, true),
            (C::Stylesheet, "colors") => K::Typed(C::ColorList, true),
            (C::NumberFormatList, "numFmt") => K::Seq(C::NumberFormat),
            (C::NumberFormat, "numFmtId") => K::Int(false),
            (C::NumberFormat, "formatCode") => K::Str(false),
            (C::Font, "name") => K::Nested(&NESTED_STR),
            (C::Font, "charset") => K::Nested(&NESTED_INT),
            (C::Font, "family") => K::Nested(&NESTED_FAMILY),
            (C::Font, "sz") => K::Nested(&NESTED_FLOAT),
            (C::Font, "b" | "i" | "strike" | "outline" | "shadow" | "condense" | "extend") => {
                K::NestedBool
            }
            (C::Font, "u") => K::Nested(&NESTED_U),
            (C::Font, "vertAlign") => K::Nested(&NESTED_VERT),
            (C::Font, "scheme") => K::Nested(&NESTED_SCHEME),
            (C::Font | C::Side, "color") => K::Color(true),
            (C::Color | C::RgbColor, "rgb") => K::Rgb,
            (C::Color, "indexed" | "theme") => K::Int(false),
            (C::Color, "auto") => K::Bool,
            (C::Color, "tint") => K::MinMax(-1.0, 1.0, false),
            (C::Color, "type") => K::Str(false),
            (C::ColorList, "indexedColors") => K::NestedSeq(C::RgbColor),
            (C::ColorList, "mruColors") => K::NestedSeq(C::Color),
            (C::PatternFill, "patternType") => K::Set(PATTERNS, true),
            (C::PatternFill, "fgColor" | "bgColor") => K::Color(false),
            (C::GradientFill, "type") => K::Set(&["linear", "path"], false),
            (C::GradientFill, "degree" | "left" | "right" | "top" | "bottom") => K::Float(false),
            (C::GradientFill, "stop") => K::Seq(C::Stop),
            (C::Stop, "color") => K::Color(false),
            (C::Stop, "position") => K::MinMax(0.0, 1.0, false),
            (
                C::Border,
                "start" | "end" | "left" | "right" | "top" | "bottom" | "diagonal" | "vertical"
                | "horizontal",
            ) => K::Typed(C::Side, true),
            (C::Border, "outline" | "diagonalUp" | "diagonalDown") => K::Bool,
            (C::Side, "style") => K::Set(BORDER_STYLES, true),
            (C::CellStyleList, "xf") => K::Seq(C::CellStyle),
            (C::CellStyleList, "alignment") => K::Seq(C::Alignment),
            (C::CellStyleList, "protection") => K::Seq(C::Protection),
            (C::CellStyle, "numFmtId" | "fontId" | "fillId" | "borderId") => K::Int(false),
            (C::CellStyle, "xfId") => K::Int(true),
            (
                C::CellStyle,
                "quotePrefix" | "pivotButton" | "applyNumberFormat" | "applyFont" | "applyFill"
                | "applyBorder" | "applyAlignment" | "applyProtection",
            ) => K::Bool,
            (C::CellStyle | C::DifferentialStyle, "alignment") => K::Typed(C::Alignment, true),
            (C::CellStyle | C::DifferentialStyle, "protection") => K::Typed(C::Protection, true),
            (C::CellStyle | C::NamedCellStyle | C::Stylesheet | C::DifferentialStyle, "extLst") => {
                K::Typed(C::ExtensionList, true)
            }
            (C::Alignment, "horizontal") => K::Set(HORIZONTAL, true),
            (C::Alignment, "vertical") => K::Set(VERTICAL, true),
            (C::Alignment, "textRotation") => K::Int(true),
            (C::Alignment, "wrapText" | "shrinkToFit" | "justifyLastLine") => K::Bool,
            (C::Alignment, "indent") => K::MinMax(0.0, 255.0, false),
            (C::Alignment, "relativeIndent") => K::MinMax(-255.0, 255.0, false),
            (C::Alignment, "readingOrder") => K::MinMax(0.0, f64::INFINITY, false),
            (C::Protection, "locked" | "hidden") => K::Bool,
            (C::NamedCellStyleList, "cellStyle") => K::Seq(C::NamedCellStyle),
            (C::NamedCellStyle, "name") => K::Str(false),
            (C::NamedCellStyle, "xfId") => K::Int(false),
            (C::NamedCellStyle, "builtinId" | "iLevel") => K::Int(true),
            (C::NamedCellStyle, "hidden" | "customBuiltin") => K::Bool,
            (C::DifferentialStyle, "font") => K::Typed(C::Font, true),
            (C::DifferentialStyle, "numFmt") => K::Typed(C::NumberFormat, true),
            (C::DifferentialStyle, "fill") => K::Typed(C::Fill, true),
            (C::DifferentialStyle, "border") => K::Typed(C::Border, true),
            (C::TableStyleList, "defaultTableStyle" | "defaultPivotStyle") => K::Str(true),
            (C::TableStyleList, "tableStyle") => K::Seq(C::TableStyle),
            (C::TableStyle, "name") => K::Str(false),
            (C::TableStyle, "pivot" | "table") => K::Bool,
            (C::TableStyle, "count") => K::Int(true),
            (C::TableStyle, "tableStyleElement") => K::Seq(C::TableStyleElement),
            (C::TableStyleElement, "type") => K::Set(TABLE_ELEMENTS, false),
            (C::TableStyleElement, "size" | "dxfId") => K::Int(true),
            (C::ExtensionList, "ext") => K::Seq(C::Extension),
            (C::Extension, "uri") => K::Str(false),
            _ => return None,
        })
    }

    /// Class attributes that are neither descriptors nor `None`: a child of that name crashes `from_tree`.
    fn poisons(self, name: &str) -> bool {
        matches!(name, "from_tree" | "to_tree" | "idx_base")
            || (name == "tagname"
                && !matches!(
                    self,
                    Class::Side
                        | Class::ExtensionList
                        | Class::Extension
                        | Class::NumberFormatList
                        | Class::NumberFormat
                ))
            || (self == Class::Font && name.starts_with("UNDERLINE_"))
    }

    /// Whether `expected` accepts an object of this class (`isinstance`).
    fn is_a(self, expected: Class) -> bool {
        self == expected
            || (expected == Class::Fill && matches!(self, Class::PatternFill | Class::GradientFill))
    }
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
fn from_tree(node: &Node, class: Class, depth: usize) -> R<V> {
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
                        (Class::NumberFormat, "formatCode")
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
                for stop in list(
                    &Obj {
                        class,
                        fields: fields.clone(),
                    },
                    "stop",
                ) {
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

/// An integer field (absent or `None` as `default`).
fn int_field(obj: &Obj, key: &str, default: i64) -> R<Option<i64>> {
    match obj.get(key) {
        V::None => Ok(Some(default)),
        V::Str(s) => Ok(PyInt::parse(s).and_then(|i| i.to_i64())),
        V::True => Ok(Some(1)),
        _ => Ok(Some(default)),
    }
}

fn list<'a>(obj: &'a Obj, key: &str) -> &'a [V] {
    match obj.get(key) {
        V::List(items) => items,
        _ => &[],
    }
}

fn sub<'a>(obj: &'a Obj, key: &str) -> Option<&'a Obj> {
    match obj.get(key) {
        V::Obj(o) => Some(o),
        _ => None,
    }
}

/// A Python list index (negative from the end).
fn py_index(len: usize, idx: i64) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let i = if idx < 0 { idx + len } else { idx };
    (0..len).contains(&i).then_some(i as usize)
}

/// The constructed stylesheet's post-processing: style arrays, number formats, named styles.
fn finish(sheet: &Obj) -> R<Formats> {
    let cell_xfs: Vec<&Obj> = sub(sheet, "cellXfs")
        .map(|l| {
            list(l, "xf")
                .iter()
                .filter_map(|v| if let V::Obj(o) = v { Some(o) } else { None })
                .collect()
        })
        .unwrap_or_default();
    // StyleArray is an array of C ints.
    for xf in &cell_xfs {
        for key in ["fontId", "fillId", "borderId", "numFmtId", "xfId"] {
            if let V::Str(s) = xf.get(key) {
                let fits = PyInt::parse(s)
                    .and_then(|i| i.to_i64())
                    .is_some_and(|v| i32::try_from(v).is_ok());
                if !fits {
                    return fail(format!("cell format {key} {s} does not fit a C int"));
                }
            }
        }
    }
    let mut custom: BTreeMap<i64, String> = BTreeMap::new();
    if let Some(numfmts) = sub(sheet, "numFmts") {
        for nf in list(numfmts, "numFmt") {
            if let V::Obj(nf) = nf {
                let id = int_field(nf, "numFmtId", 0)?;
                if let (Some(id), V::Str(code)) = (id, nf.get("formatCode")) {
                    custom.insert(id, code.clone());
                }
            }
        }
    }
    let mut formats = Formats::default();
    for (idx, xf) in cell_xfs.iter().enumerate() {
        let id = int_field(xf, "numFmtId", 0)?.unwrap_or(0);
        let fmt = custom.get(&id).map(String::as_str).or_else(|| builtin(id));
        if let Some(fmt) = fmt {
            let idx = idx as i64;
            if is_date_format(fmt) {
                formats.dates.insert(idx);
            }
            if is_timedelta_format(fmt) {
                formats.timedeltas.insert(idx);
            }
        }
    }
    // _merge_named_styles: every named style's xf, font, fill and border must exist.
    let style_xfs: Vec<&Obj> = sub(sheet, "cellStyleXfs")
        .map(|l| {
            list(l, "xf")
                .iter()
                .filter_map(|v| if let V::Obj(o) = v { Some(o) } else { None })
                .collect()
        })
        .unwrap_or_default();
    let named: Vec<&Obj> = sub(sheet, "cellStyles")
        .map(|l| {
            list(l, "cellStyle")
                .iter()
                .filter_map(|v| if let V::Obj(o) = v { Some(o) } else { None })
                .collect()
        })
        .unwrap_or_default();
    let mut refs: Vec<(i64, String)> = Vec::new();
    for n in &named {
        let xf_id = int_field(n, "xfId", 0)?.unwrap_or(0);
        let name = match n.get("name") {
            V::Str(s) => s.clone(),
            _ => String::new(),
        };
        refs.push((xf_id, name));
    }
    refs.sort_by_key(|(id, _)| *id);
    let (mut ids, mut names) = (BTreeSet::new(), BTreeSet::new());
    let count = |key: &str| list(sheet, key).len();
    for (xf_id, name) in refs {
        if ids.contains(&xf_id) || names.contains(&name) {
            continue;
        }
        ids.insert(xf_id);
        names.insert(name);
        let xf = py_index(style_xfs.len(), xf_id)
            .and_then(|i| style_xfs.get(i))
            .ok_or_else(|| {
                Err::Fail(format!("named style refers to missing cell style {xf_id}"))
            })?;
        for (key, part) in [
            ("fontId", "fonts"),
            ("fillId", "fills"),
            ("borderId", "borders"),
        ] {
            let id = int_field(xf, key, 0)?.unwrap_or(0);
            if py_index(count(part), id).is_none() {
                return fail(format!("named style refers to missing {part} entry {id}"));
            }
        }
    }
    if cell_xfs.is_empty() {
        return Ok(Formats::default());
    }
    Ok(formats)
}

/// Reads a parsed `xl/styles.xml`.
pub(crate) fn read(root: &Node) -> Outcome {
    let result = from_tree(root, Class::Stylesheet, 0).and_then(|v| match v {
        V::Obj(o) => finish(&o),
        _ => fail("the stylesheet did not construct"),
    });
    match result {
        Ok(formats) => Outcome::Styles(formats),
        Err(Err::Repair(m)) => Outcome::Repair(m),
        Err(Err::Fail(m)) => Outcome::Fail(m),
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml::parse_tree;
    use super::*;

    const NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

    fn outcome(inner: &str) -> Outcome {
        let xml = format!(r#"<styleSheet xmlns="{NS}">{inner}</styleSheet>"#);
        read(&parse_tree("xl/styles.xml", xml.as_bytes(), 64).expect("xml"))
    }

    const BASE: &str = r#"<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>"#;

    #[test]
    fn date_formats_are_indexed() {
        let o = outcome(&format!(
            r#"<numFmts count="1"><numFmt numFmtId="164" formatCode="[h]:mm"/></numFmts>{BASE}<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="30"/></cellXfs>"#
        ));
        let Outcome::Styles(f) = o else {
            panic!("{o:?}")
        };
        assert_eq!(f.dates, BTreeSet::from([1, 2]));
        assert_eq!(f.timedeltas, BTreeSet::from([2]));
    }

    #[test]
    fn damage_is_classified_as_the_reference_raises() {
        let xfs = r#"<cellXfs count="1"><xf numFmtId="0"/></cellXfs>"#;
        let empty_fill = BASE.replace("<fill><patternFill/></fill>", "<fill/>");
        assert!(matches!(
            outcome(&format!("{empty_fill}{xfs}")),
            Outcome::Repair(_)
        ));
        let no_code = r#"<numFmts><numFmt numFmtId="164"/></numFmts>"#;
        assert!(matches!(
            outcome(&format!("{no_code}{BASE}{xfs}")),
            Outcome::Repair(_)
        ));
        let bad_id = r#"<cellXfs count="1"><xf numFmtId="x"/></cellXfs>"#;
        assert!(matches!(
            outcome(&format!("{BASE}{bad_id}")),
            Outcome::Fail(_)
        ));
        let bad_color = BASE.replace("<sz val=\"11\"/>", "<color rgb=\"nope\"/>");
        assert!(matches!(
            outcome(&format!("{bad_color}{xfs}")),
            Outcome::Fail(_)
        ));
        let missing_xf = BASE.replace("xfId=\"0\" builtinId", "xfId=\"3\" builtinId");
        assert!(matches!(
            outcome(&format!("{missing_xf}{xfs}")),
            Outcome::Fail(_)
        ));
    }

    #[test]
    fn no_cell_formats_means_defaults() {
        assert_eq!(outcome(""), Outcome::Styles(Formats::default()));
    }
}
