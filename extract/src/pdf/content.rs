//! Content streams as PyPDF2's `ContentStream` reads them: operands (any
//! object, strings as bytes) up to an operator (a word starting with a letter,
//! `'` or `"`), inline images skipped to their `EI`. Read lazily, one
//! operation at a time, so a stream of 100 MB of operators costs time in
//! proportion and memory for one operation.

use super::error::{fail, Result};
use super::lexer::{self, is_name_delimiter, is_pdf_whitespace, Cursor};
use super::object::Object;

/// How many operands one operator may collect (PyPDF2 has no bound; a
/// stream of numbers without an operator is hostile).
const MAX_OPERANDS: usize = 1 << 16;

/// The operations of one content stream.
pub(crate) struct Operations<'a> {
    cur: Cursor<'a>,
    operands: Vec<Object>,
}

impl<'a> Operations<'a> {
    /// Reads from the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Operations {
            cur: Cursor::new(data, 0),
            operands: Vec::new(),
        }
    }

    /// The next `(operands, operator)`, `None` at the end, or the error PyPDF2 raises.
    pub(crate) fn next_op(&mut self) -> Result<Option<(Vec<Object>, &'a [u8])>> {
        loop {
            self.cur.skip_whitespace();
            let Some(peek) = self.cur.peek() else {
                return Ok(None);
            };
            if peek.is_ascii_alphabetic() || peek == b'\'' || peek == b'"' {
                let op = self.cur.until(is_name_delimiter, true)?;
                if op == b"BI" {
                    if !self.operands.is_empty() {
                        return fail("operands before an inline image");
                    }
                    self.skip_inline_image()?;
                    continue;
                }
                return Ok(Some((std::mem::take(&mut self.operands), op)));
            } else if peek == b'%' {
                while let Some(b) = self.cur.next() {
                    if b == b'\r' || b == b'\n' {
                        break;
                    }
                }
            } else {
                if self.operands.len() >= MAX_OPERANDS {
                    return fail("too many operands without an operator in a content stream");
                }
                let obj = lexer::read_object(&mut self.cur, None)?;
                self.operands.push(obj);
            }
        }
    }

    /// `_read_inline_image`: the settings up to `ID`, then data up to a blank,
    /// `EI` and a blank.
    fn skip_inline_image(&mut self) -> Result<()> {
        loop {
            self.cur.skip_whitespace();
            match self.cur.peek() {
                Some(b'I') => break,
                None => return fail("Unexpected end of stream"),
                Some(_) => {}
            }
            lexer::read_object(&mut self.cur, None)?;
            self.cur.skip_whitespace();
            lexer::read_object(&mut self.cur, None)?;
        }
        let id = self.cur.take(3);
        if id.get(..2) != Some(b"ID") {
            return fail("inline image without ID");
        }
        let data = self.cur.data;
        let mut i = self.cur.pos;
        loop {
            let Some(off) = memchr::memchr(b'E', &data[i.min(data.len())..]) else {
                return fail("Unexpected end of stream");
            };
            let e = i + off;
            // PyPDF2 checks the byte before `E` within its read (none at the start).
            let before_blank = e > self.cur.pos && is_pdf_whitespace(data[e - 1]);
            if data.get(e + 1) == Some(&b'I') && before_blank {
                let mut k = e + 2;
                let mut blank = false;
                while data.get(k).copied().is_some_and(is_pdf_whitespace) {
                    blank = true;
                    k += 1;
                }
                if blank {
                    self.cur.pos = k;
                    return Ok(());
                }
                i = k;
            } else {
                i = e + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_come_with_their_operands() {
        let mut ops = Operations::new(b"BT /F1 12 Tf (Hi) Tj [(a) -200 (b)] TJ ET");
        let mut names = Vec::new();
        while let Some((operands, op)) = ops.next_op().expect("valid") {
            names.push((String::from_utf8_lossy(op).into_owned(), operands.len()));
        }
        let expect = [("BT", 0), ("Tf", 2), ("Tj", 1), ("TJ", 1), ("ET", 0)];
        assert_eq!(names, expect.map(|(a, b)| (a.to_string(), b)));
    }

    #[test]
    fn a_trailing_number_fails_as_pypdf2_does() {
        let mut ops = Operations::new(b"BT 12");
        assert!(matches!(ops.next_op(), Ok(Some(_))));
        assert!(ops.next_op().is_err());
    }

    #[test]
    fn inline_images_are_skipped() {
        let mut ops = Operations::new(b"BI /W 2 /H 2 ID \x00E\x01EIx EI Q\n q");
        let (_, op) = ops.next_op().expect("valid").expect("an operator");
        assert_eq!(op, b"Q");
    }
}
