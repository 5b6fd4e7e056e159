//! A cell as openpyxl's `parse_cell` looks at it (three attributes and the
//! first `<v>`, `<f>` and `<is>` children), whether it comes from a tree the
//! parser built or from the row scanner, so that both are read by one function.

use super::xml::Node;

/// A cell's attributes and the children `parse_cell` reads.
pub(crate) struct CellView<'x> {
    /// `r`, the coordinate.
    pub r: Option<&'x str>,
    /// `s`, the style index.
    pub s: Option<&'x str>,
    /// `t`, the data type.
    pub t: Option<&'x str>,
    /// The text of the first `<v>` (`None` without one, or when it has none).
    pub v: Option<&'x str>,
    /// The first `<f>`.
    pub f: Option<FormulaView<'x>>,
    /// The first `<is>`.
    pub is: Option<Inline<'x>>,
}

/// A formula element: its text and the attributes `parse_formula` reads.
pub(crate) struct FormulaView<'x> {
    /// Its text (`None` when it has none).
    pub text: Option<&'x str>,
    /// `t`: `array`, `shared`, `dataTable` or another.
    pub t: Option<&'x str>,
    /// `ref`.
    pub reference: Option<&'x str>,
    /// `si`, the shared formula's index.
    pub si: Option<&'x str>,
    /// Every attribute, for a `dataTable` formula (which keeps them all); the
    /// row scanner leaves such formulas to the parser and gives none.
    pub attrs: &'x [(String, String)],
}

/// An inline string: the element, or its content already read.
pub(crate) enum Inline<'x> {
    /// The `<is>` element, read by `text::content`.
    Node(&'x Node),
    /// The content of an `<is>` the row scanner read (plain text and runs, no properties).
    Text(&'x str),
}

impl<'x> CellView<'x> {
    /// The view of a cell element built by the parser; `tags` are `{main}v`, `{main}f`, `{main}is`.
    pub(crate) fn of(el: &'x Node, tags: &[String; 3]) -> Self {
        let f = el.find(&tags[1]).map(|f| FormulaView {
            text: f.text.as_deref(),
            t: f.get("t"),
            reference: f.get("ref"),
            si: f.get("si"),
            attrs: &f.attrs,
        });
        CellView {
            r: el.get("r"),
            s: el.get("s"),
            t: el.get("t"),
            v: el.find(&tags[0]).and_then(|v| v.text.as_deref()),
            f,
            is: el.find(&tags[2]).map(Inline::Node),
        }
    }
}
