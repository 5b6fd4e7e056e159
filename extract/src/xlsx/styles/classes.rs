//! The stylesheet classes of openpyxl as data: each constructor's
//! parameters, each descriptor's kind, the class attributes that break
//! `from_tree`.

use super::engine::Descriptor;

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

const NESTED_STR: Descriptor = Descriptor::Str(true);
const NESTED_INT: Descriptor = Descriptor::Int(true);
const NESTED_FLOAT: Descriptor = Descriptor::Float(true);
const NESTED_FAMILY: Descriptor = Descriptor::MinMax(0.0, 14.0, true);
const NESTED_U: Descriptor = Descriptor::Set(
    &["single", "double", "singleAccounting", "doubleAccounting"],
    true,
);
const NESTED_VERT: Descriptor = Descriptor::Set(&["superscript", "subscript", "baseline"], true);
const NESTED_SCHEME: Descriptor = Descriptor::Set(&["major", "minor"], true);

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
    pub(crate) fn desc(self, name: &str) -> Option<Descriptor> {
        use Class as C;
        Some(match (self, name) {
            (C::Stylesheet, "numFmts") => Descriptor::Typed(C::NumberFormatList, true),
            (C::Stylesheet, "fonts") => Descriptor::NestedSeq(C::Font),
            (C::Stylesheet, "fills") => Descriptor::NestedSeq(C::Fill),
            (C::Stylesheet, "borders") => Descriptor::NestedSeq(C::Border),
            (C::Stylesheet, "cellStyleXfs" | "cellXfs") => {
                Descriptor::Typed(C::CellStyleList, true)
            }
            (C::Stylesheet, "cellStyles") => Descriptor::Typed(C::NamedCellStyleList, true),
            (C::Stylesheet, "dxfs") => Descriptor::NestedSeq(C::DifferentialStyle),
            (C::Stylesheet, "tableStyles") => Descriptor::Typed(C::TableStyleList, true),
            (C::Stylesheet, "colors") => Descriptor::Typed(C::ColorList, true),
            (C::NumberFormatList, "numFmt") => Descriptor::Seq(C::NumberFormat),
            (C::NumberFormat, "numFmtId") => Descriptor::Int(false),
            (C::NumberFormat, "formatCode") => Descriptor::Str(false),
            (C::Font, "name") => Descriptor::Nested(&NESTED_STR),
            (C::Font, "charset") => Descriptor::Nested(&NESTED_INT),
            (C::Font, "family") => Descriptor::Nested(&NESTED_FAMILY),
            (C::Font, "sz") => Descriptor::Nested(&NESTED_FLOAT),
            (C::Font, "b" | "i" | "strike" | "outline" | "shadow" | "condense" | "extend") => {
                Descriptor::NestedBool
            }
            (C::Font, "u") => Descriptor::Nested(&NESTED_U),
            (C::Font, "vertAlign") => Descriptor::Nested(&NESTED_VERT),
            (C::Font, "scheme") => Descriptor::Nested(&NESTED_SCHEME),
            (C::Font | C::Side, "color") => Descriptor::Color(true),
            (C::Color | C::RgbColor, "rgb") => Descriptor::Rgb,
            (C::Color, "indexed" | "theme") => Descriptor::Int(false),
            (C::Color, "auto") => Descriptor::Bool,
            (C::Color, "tint") => Descriptor::MinMax(-1.0, 1.0, false),
            (C::Color, "type") => Descriptor::Str(false),
            (C::ColorList, "indexedColors") => Descriptor::NestedSeq(C::RgbColor),
            (C::ColorList, "mruColors") => Descriptor::NestedSeq(C::Color),
            (C::PatternFill, "patternType") => Descriptor::Set(PATTERNS, true),
            (C::PatternFill, "fgColor" | "bgColor") => Descriptor::Color(false),
            (C::GradientFill, "type") => Descriptor::Set(&["linear", "path"], false),
            (C::GradientFill, "degree" | "left" | "right" | "top" | "bottom") => {
                Descriptor::Float(false)
            }
            (C::GradientFill, "stop") => Descriptor::Seq(C::Stop),
            (C::Stop, "color") => Descriptor::Color(false),
            (C::Stop, "position") => Descriptor::MinMax(0.0, 1.0, false),
            (
                C::Border,
                "start" | "end" | "left" | "right" | "top" | "bottom" | "diagonal" | "vertical"
                | "horizontal",
            ) => Descriptor::Typed(C::Side, true),
            (C::Border, "outline" | "diagonalUp" | "diagonalDown") => Descriptor::Bool,
            (C::Side, "style") => Descriptor::Set(BORDER_STYLES, true),
            (C::CellStyleList, "xf") => Descriptor::Seq(C::CellStyle),
            (C::CellStyleList, "alignment") => Descriptor::Seq(C::Alignment),
            (C::CellStyleList, "protection") => Descriptor::Seq(C::Protection),
            (C::CellStyle, "numFmtId" | "fontId" | "fillId" | "borderId") => Descriptor::Int(false),
            (C::CellStyle, "xfId") => Descriptor::Int(true),
            (
                C::CellStyle,
                "quotePrefix" | "pivotButton" | "applyNumberFormat" | "applyFont" | "applyFill"
                | "applyBorder" | "applyAlignment" | "applyProtection",
            ) => Descriptor::Bool,
            (C::CellStyle | C::DifferentialStyle, "alignment") => {
                Descriptor::Typed(C::Alignment, true)
            }
            (C::CellStyle | C::DifferentialStyle, "protection") => {
                Descriptor::Typed(C::Protection, true)
            }
            (C::CellStyle | C::NamedCellStyle | C::Stylesheet | C::DifferentialStyle, "extLst") => {
                Descriptor::Typed(C::ExtensionList, true)
            }
            (C::Alignment, "horizontal") => Descriptor::Set(HORIZONTAL, true),
            (C::Alignment, "vertical") => Descriptor::Set(VERTICAL, true),
            (C::Alignment, "textRotation") => Descriptor::Int(true),
            (C::Alignment, "wrapText" | "shrinkToFit" | "justifyLastLine") => Descriptor::Bool,
            (C::Alignment, "indent") => Descriptor::MinMax(0.0, 255.0, false),
            (C::Alignment, "relativeIndent") => Descriptor::MinMax(-255.0, 255.0, false),
            (C::Alignment, "readingOrder") => Descriptor::MinMax(0.0, f64::INFINITY, false),
            (C::Protection, "locked" | "hidden") => Descriptor::Bool,
            (C::NamedCellStyleList, "cellStyle") => Descriptor::Seq(C::NamedCellStyle),
            (C::NamedCellStyle, "name") => Descriptor::Str(false),
            (C::NamedCellStyle, "xfId") => Descriptor::Int(false),
            (C::NamedCellStyle, "builtinId" | "iLevel") => Descriptor::Int(true),
            (C::NamedCellStyle, "hidden" | "customBuiltin") => Descriptor::Bool,
            (C::DifferentialStyle, "font") => Descriptor::Typed(C::Font, true),
            (C::DifferentialStyle, "numFmt") => Descriptor::Typed(C::NumberFormat, true),
            (C::DifferentialStyle, "fill") => Descriptor::Typed(C::Fill, true),
            (C::DifferentialStyle, "border") => Descriptor::Typed(C::Border, true),
            (C::TableStyleList, "defaultTableStyle" | "defaultPivotStyle") => Descriptor::Str(true),
            (C::TableStyleList, "tableStyle") => Descriptor::Seq(C::TableStyle),
            (C::TableStyle, "name") => Descriptor::Str(false),
            (C::TableStyle, "pivot" | "table") => Descriptor::Bool,
            (C::TableStyle, "count") => Descriptor::Int(true),
            (C::TableStyle, "tableStyleElement") => Descriptor::Seq(C::TableStyleElement),
            (C::TableStyleElement, "type") => Descriptor::Set(TABLE_ELEMENTS, false),
            (C::TableStyleElement, "size" | "dxfId") => Descriptor::Int(true),
            (C::ExtensionList, "ext") => Descriptor::Seq(C::Extension),
            (C::Extension, "uri") => Descriptor::Str(false),
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
