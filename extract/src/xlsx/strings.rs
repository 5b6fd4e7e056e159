//! The shared string table as `read_string_table` streams it: every
//! `{main}si` anywhere, when it closes, as its text content with `x005F_`
//! removed (a nested `si` counts on its own, before the one around it).
//! The table is held as openpyxl holds it, whole, but compactly: one arena
//! of text and one end offset per string ([`SharedStrings`]), so its memory
//! is its strings' UTF-8 bytes plus four bytes each.

use super::sheet::MAIN;
use super::text;
use super::xml::{Ev, Node, Reader, XmlError};

/// Why the table could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StringsError(pub String);

impl From<XmlError> for StringsError {
    fn from(e: XmlError) -> Self {
        StringsError(e.0)
    }
}

/// The shared strings: one arena, one end offset each.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SharedStrings {
    text: String,
    ends: Vec<u32>,
}

impl SharedStrings {
    /// How many strings there are.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The string at `index`.
    pub(crate) fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)? as usize;
        let start = match index.checked_sub(1) {
            Some(before) => self.ends[before] as usize,
            None => 0,
        };
        self.text.get(start..end)
    }

    fn push(&mut self, s: &str) -> Result<(), StringsError> {
        self.text.push_str(s);
        let end = u32::try_from(self.text.len())
            .map_err(|_| StringsError("the shared strings pass 4 GiB of text".to_string()))?;
        self.ends.push(end);
        Ok(())
    }
}

/// Reads the table.
pub(crate) fn read(reader: &mut Reader<'_>) -> Result<SharedStrings, StringsError> {
    let si = format!("{{{MAIN}}}si");
    let mut strings = SharedStrings::default();
    // Nodes under construction, innermost last; `None` marks an element outside any `si`.
    let mut stack: Vec<Option<Node>> = Vec::new();
    while let Some(ev) = reader.next()? {
        match ev {
            Ev::Start { tag, attrs } => {
                let inside = stack.iter().any(Option::is_some);
                if inside || *tag == *si {
                    stack.push(Some(Node {
                        tag,
                        attrs,
                        text: None,
                        children: Vec::new(),
                    }));
                } else {
                    stack.push(None);
                }
            }
            Ev::End => {
                let Some(done) = stack.pop().flatten() else {
                    continue;
                };
                let done = if *done.tag == *si {
                    let content = text::content(&done).map_err(|e| StringsError(e.0))?;
                    strings.push(&content.replace("x005F_", ""))?;
                    // `node.clear()`: what stays in the parent is the bare element.
                    Node {
                        tag: done.tag,
                        ..Node::default()
                    }
                } else {
                    done
                };
                if let Some(Some(parent)) = stack.last_mut() {
                    parent.children.push(done);
                }
            }
            Ev::Text(t) => {
                if let Some(Some(top)) = stack.last_mut() {
                    if top.children.is_empty() {
                        top.text.get_or_insert_with(String::new).push_str(&t);
                    }
                }
            }
            Ev::Comment => {}
        }
    }
    Ok(strings)
}

#[cfg(test)]
mod tests {
    use super::super::xml::with_reader;
    use super::*;

    #[test]
    fn strings_are_read_in_order() {
        let xml = format!(
            r#"<sst xmlns="{MAIN}"><si><t>a_x005F_x000D_</t></si><si><r><t>b</t></r><r><t>c</t></r></si><x:si xmlns:x="urn:other"><t>skipped</t></x:si></sst>"#
        );
        let got = with_reader("s.xml", xml.as_bytes(), 64, |r| {
            read(r).map_err(|e| XmlError(e.0))
        });
        let got = got.expect("a table");
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got.get(0), got.get(1), got.get(2)),
            (Some("a_x000D_"), Some("bc"), None)
        );
    }
}
