//! CSV as the reference reads it: the decoded text through Python's
//! `csv.reader` (excel dialect, non-strict) over `io.StringIO`, which splits
//! lines at `\n` only; rows with a non-blank cell kept, cells stripped, then
//! the CSV truncation strategy.

use crate::record::Extracted;
use crate::text_pass::{PassError, TextPass};
use crate::truncate;
use crate::truncate::RowPass;
use thiserror::Error;

/// `csv.field_size_limit()`'s default.
pub const FIELD_SIZE_LIMIT: usize = 131_072;

/// Why `csv.reader` stopped, in the CSV module's own words.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CsvError {
    /// A field grew past [`FIELD_SIZE_LIMIT`] characters.
    #[error("field larger than field limit ({FIELD_SIZE_LIMIT})")]
    FieldTooLarge,
    /// A lone `\r` inside a line (a file with CR-only line ends).
    #[error("new-line character seen in unquoted field - do you need to open the file in universal-newline mode?")]
    BareCarriageReturn,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StartRecord,
    StartField,
    InField,
    InQuotedField,
    QuoteInQuotedField,
    EatCrnl,
}

/// What the state machine is fed: a character of the line, or the end of the line.
#[derive(Clone, Copy)]
enum Input {
    Char(char),
    EndOfLine,
}

/// The reader's working state for one record.
struct Reader {
    state: State,
    field: String,
    field_chars: usize,
    fields: Vec<String>,
}

impl Reader {
    fn save_field(&mut self) {
        self.fields.push(std::mem::take(&mut self.field));
        self.field_chars = 0;
    }

    fn add_char(&mut self, c: char) -> Result<(), CsvError> {
        if self.field_chars >= FIELD_SIZE_LIMIT {
            return Err(CsvError::FieldTooLarge);
        }
        self.field.push(c);
        self.field_chars += 1;
        Ok(())
    }

    fn end_state(input: Input) -> State {
        match input {
            Input::EndOfLine => State::StartRecord,
            Input::Char(_) => State::EatCrnl,
        }
    }

    /// `parse_process_char` of CPython's `_csv.c`, excel dialect.
    fn process(&mut self, input: Input) -> Result<(), CsvError> {
        let c = match input {
            Input::Char(c) => Some(c),
            Input::EndOfLine => None,
        };
        let is_newline = matches!(c, Some('\n' | '\r'));
        match self.state {
            State::StartRecord => match c {
                None => {}
                Some('\n' | '\r') => self.state = State::EatCrnl,
                Some(_) => {
                    self.state = State::StartField;
                    return self.process(input);
                }
            },
            State::StartField => {
                if is_newline || c.is_none() {
                    self.save_field();
                    self.state = Self::end_state(input);
                } else if c == Some('"') {
                    self.state = State::InQuotedField;
                } else if c == Some(',') {
                    self.save_field();
                } else if let Some(c) = c {
                    self.add_char(c)?;
                    self.state = State::InField;
                }
            }
            State::InField => {
                if is_newline || c.is_none() {
                    self.save_field();
                    self.state = Self::end_state(input);
                } else if c == Some(',') {
                    self.save_field();
                    self.state = State::StartField;
                } else if let Some(c) = c {
                    self.add_char(c)?;
                }
            }
            State::InQuotedField => match c {
                None => {}
                Some('"') => self.state = State::QuoteInQuotedField,
                Some(c) => self.add_char(c)?,
            },
            State::QuoteInQuotedField => {
                if c == Some('"') {
                    self.add_char('"')?;
                    self.state = State::InQuotedField;
                } else if c == Some(',') {
                    self.save_field();
                    self.state = State::StartField;
                } else if is_newline || c.is_none() {
                    self.save_field();
                    self.state = Self::end_state(input);
                } else if let Some(c) = c {
                    self.add_char(c)?;
                    self.state = State::InField;
                }
            }
            State::EatCrnl => match c {
                Some('\n' | '\r') => {}
                None => self.state = State::StartRecord,
                Some(_) => return Err(CsvError::BareCarriageReturn),
            },
        }
        Ok(())
    }
}

/// `csv.reader(io.StringIO(text))` fed the text in pieces: each record is
/// handed on as it ends, so a file is read without holding its rows.
pub(crate) struct RecordReader {
    reader: Reader,
    /// A record ended: the next line starts a fresh one.
    fresh: bool,
    /// Characters of the current line were fed and its `\n` not yet.
    line_open: bool,
}

impl RecordReader {
    /// Before the first record.
    pub(crate) fn new() -> Self {
        RecordReader {
            reader: Reader {
                state: State::StartRecord,
                field: String::new(),
                field_chars: 0,
                fields: Vec::new(),
            },
            fresh: true,
            line_open: false,
        }
    }

    fn start_record(&mut self) {
        let r = &mut self.reader;
        r.state = State::StartRecord;
        r.fields.clear();
        r.field.clear();
        r.field_chars = 0;
        self.fresh = false;
    }

    /// The end of a line (`\n` already fed, or the end of the text); a record
    /// complete with it goes to `on`.
    fn end_line(
        &mut self,
        on: &mut dyn FnMut(&[String]) -> Result<(), PassError>,
    ) -> Result<(), PassError> {
        self.line_open = false;
        self.reader.process(Input::EndOfLine)?;
        if self.reader.state == State::StartRecord {
            on(&self.reader.fields)?;
            self.fresh = true;
        }
        Ok(())
    }

    /// Reads `piece`, handing each record it completes to `on`.
    pub(crate) fn feed(
        &mut self,
        piece: &str,
        on: &mut dyn FnMut(&[String]) -> Result<(), PassError>,
    ) -> Result<(), PassError> {
        for c in piece.chars() {
            if self.fresh {
                self.start_record();
            }
            self.line_open = true;
            self.reader.process(Input::Char(c))?;
            if c == '\n' {
                self.end_line(on)?;
            }
        }
        Ok(())
    }

    /// The end of the text: a last line without `\n`, and a record left open.
    pub(crate) fn finish(
        mut self,
        on: &mut dyn FnMut(&[String]) -> Result<(), PassError>,
    ) -> Result<(), PassError> {
        if self.line_open {
            self.end_line(on)?;
        }
        if self.fresh {
            self.start_record();
        }
        let r = &mut self.reader;
        if r.field_chars != 0 || r.state == State::InQuotedField {
            r.save_field();
            on(&r.fields)?;
        }
        Ok(())
    }
}

/// Every record of `text` as `csv.reader(io.StringIO(text))` yields them.
pub fn read_records(text: &str) -> Result<Vec<Vec<String>>, CsvError> {
    let mut records = Vec::new();
    let mut reader = RecordReader::new();
    let mut on = |fields: &[String]| {
        records.push(fields.to_vec());
        Ok(())
    };
    let read = reader
        .feed(text, &mut on)
        .and_then(|()| reader.finish(&mut on));
    match read {
        Ok(()) => Ok(records),
        Err(PassError::Csv(e)) => Err(e),
        // Text in memory fails no other way; a reader error is not a CSV's.
        Err(_) => Ok(records),
    }
}

/// The rows `_parse_csv_smart` keeps (a non-blank cell), cells stripped, read
/// from a text in passes.
pub(crate) struct CsvRows<'t> {
    text: &'t dyn TextPass,
}

impl RowPass for CsvRows<'_> {
    fn pass(
        &self,
        each: &mut dyn FnMut(&[&str]) -> Result<(), PassError>,
    ) -> Result<(), PassError> {
        let mut reader = RecordReader::new();
        let mut on = |fields: &[String]| {
            let stripped: Vec<&str> = fields
                .iter()
                .map(|f| ctxguard_core::pyjson::strip(f))
                .collect();
            if stripped.iter().any(|cell| !cell.is_empty()) {
                each(&stripped)?;
            }
            Ok(())
        };
        self.text.pass(&mut |piece| reader.feed(piece, &mut on))?;
        reader.finish(&mut on)
    }
}

/// `_parse_csv_smart` over a text read in passes: read, keep rows with a
/// non-blank cell, truncate (a second pass when rows are dropped from the middle).
pub(crate) fn parse_text(text: &dyn TextPass, max_length: i64) -> Result<Extracted, PassError> {
    let (text, info) = truncate::csv_stream(&CsvRows { text }, max_length)?;
    Ok(Extracted {
        text,
        truncation: info.into_truncation(),
        image: None,
        ocr_fallback: false,
    })
}

/// `_parse_csv_smart` on an upload held in memory: decode, read, keep rows
/// with a non-blank cell, truncate (the tests' whole-upload oracle: uploads
/// are read from their source).
#[cfg(test)]
pub(crate) fn parse(
    bytes: &[u8],
    max_length: i64,
) -> Result<Extracted, crate::error::DocumentError> {
    use crate::error::{DocumentError, Subject};
    let text = crate::decode::decode(bytes);
    parse_text(&text.as_str(), max_length).map_err(|e| match e {
        PassError::Csv(e) => DocumentError::failed(Subject::Csv, e),
        other => DocumentError::failed(Subject::Document, other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Vec<String>> {
        read_records(text).expect("valid CSV")
    }

    #[test]
    fn quotes_commas_and_embedded_newlines() {
        assert_eq!(
            rows("a,\"b,c\",\"d\"\"e\"\n\"multi\nline\",x\n"),
            [vec!["a", "b,c", "d\"e"], vec!["multi\nline", "x"]]
        );
    }

    #[test]
    fn blank_lines_are_empty_records_and_crlf_ends_lines() {
        assert_eq!(
            rows("a\r\n\r\nb"),
            [vec!["a"], vec![], vec!["b"]] as [Vec<&str>; 3]
        );
        assert_eq!(rows(""), Vec::<Vec<String>>::new());
        assert_eq!(rows("x,"), [vec!["x", ""]]);
    }

    #[test]
    fn an_unterminated_quote_keeps_the_rest() {
        assert_eq!(rows("\"open\nstill"), [vec!["open\nstill"]]);
        assert_eq!(rows("a\"b\",c"), [vec!["a\"b\"", "c"]]);
        assert_eq!(rows("\"q\"tail,z"), [vec!["qtail", "z"]]);
    }

    #[test]
    fn cr_only_files_fail_like_python() {
        assert_eq!(read_records("a\rb\r"), Err(CsvError::BareCarriageReturn));
        assert_eq!(
            CsvError::BareCarriageReturn.to_string(),
            "new-line character seen in unquoted field - do you need to open the file in universal-newline mode?"
        );
    }

    #[test]
    fn records_read_in_pieces_are_the_records_of_the_whole() {
        let texts = [
            "a,\"b,c\",\"d\"\"e\"\n\"multi\nline\",x\n",
            "a\r\n\r\nb",
            "\"open\nstill",
            "x,",
            "q\"tail,z\n\n  , \n\"\"",
            "注释,🦀\r\nend",
        ];
        for text in texts {
            let whole = read_records(text);
            for step in 1..5 {
                let mut records = Vec::new();
                let mut reader = RecordReader::new();
                let mut on = |fields: &[String]| {
                    records.push(fields.to_vec());
                    Ok(())
                };
                let chars: Vec<char> = text.chars().collect();
                for piece in chars.chunks(step) {
                    let piece: String = piece.iter().collect();
                    reader.feed(&piece, &mut on).expect("valid CSV");
                }
                reader.finish(&mut on).expect("valid CSV");
                assert_eq!(Ok(records), whole, "{text:?} in pieces of {step}");
            }
        }
    }

    #[test]
    fn fields_are_capped() {
        let huge = "x".repeat(FIELD_SIZE_LIMIT + 1);
        assert_eq!(read_records(&huge), Err(CsvError::FieldTooLarge));
        assert_eq!(
            read_records(&"y".repeat(FIELD_SIZE_LIMIT)).map(|r| r.len()),
            Ok(1)
        );
    }
}
