//! The stylesheet classes of openpyxl as data: each constructor's
//! parameters, each descriptor's kind, the class attributes that break
//! `from_tree`.

use super::engine::K;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
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
    pub(crate) fn name(self) -> &'static str {
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
    pub(crate) fn in_styles(self) -> bool {
        !matches!(self, Class::ExtensionList | Class::Extension)
    }

    /// The constructor's parameters in order.
    pub(crate) fn params(self) -> &'static [&'static str] {
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
    pub(crate) fn desc(self, name: &str) -> Option<K> {
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
    pub(crate) fn poisons(self, name: &str) -> bool {
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
    pub(crate) fn is_a(self, expected: Class) -> bool {
        self == expected
            || (expected == Class::Fill && matches!(self, Class::PatternFill | Class::GradientFill))
    }
}
