//! CSV as the reference reads it: the decoded text through Python's
//! `csv.reader` (excel dialect, non-strict) over `io.StringIO`, which splits
//! lines at `\n` only; rows with a non-blank cell kept, cells stripped, then
//! the CSV truncation strategy.

use crate::error::{DocumentError, Subject};
use crate::record::Extracted;
use crate::{decode, truncate};
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

/// Every record of `text` as `csv.reader(io.StringIO(text))` yields them.
pub fn read_records(text: &str) -> Result<Vec<Vec<String>>, CsvError> {
    let mut records = Vec::new();
    let mut lines = text.split_inclusive('\n').peekable();
    let mut reader = Reader {
        state: State::StartRecord,
        field: String::new(),
        field_chars: 0,
        fields: Vec::new(),
    };
    loop {
        // One record: lines until the machine is back at the start of a record.
        reader.state = State::StartRecord;
        reader.fields.clear();
        reader.field.clear();
        reader.field_chars = 0;
        loop {
            let Some(line) = lines.next() else {
                if reader.field_chars != 0 || reader.state == State::InQuotedField {
                    reader.save_field();
                    records.push(std::mem::take(&mut reader.fields));
                }
                return Ok(records);
            };
            for c in line.chars() {
                reader.process(Input::Char(c))?;
            }
            reader.process(Input::EndOfLine)?;
            if reader.state == State::StartRecord {
                break;
            }
        }
        records.push(std::mem::take(&mut reader.fields));
    }
}

/// `_parse_csv_smart`: decode, read, keep rows with a non-blank cell, truncate.
pub(crate) fn parse(bytes: &[u8], max_length: i64) -> Result<Extracted, DocumentError> {
    let text = decode::decode(bytes);
    let records = read_records(&text).map_err(|e| DocumentError::failed(Subject::Csv, e))?;
    let rows: Vec<Vec<String>> = records
        .into_iter()
        .filter(|row| {
            row.iter()
                .any(|cell| !ctxguard_core::pyjson::strip(cell).is_empty())
        })
        .map(|row| {
            row.iter()
                .map(|cell| ctxguard_core::pyjson::strip(cell).to_string())
                .collect()
        })
        .collect();
    let (text, info) = truncate::csv_rows(&rows, max_length);
    Ok(Extracted {
        text,
        truncation: info.into_truncation(),
        image: None,
        ocr_fallback: false,
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
    fn fields_are_capped() {
        let huge = "x".repeat(FIELD_SIZE_LIMIT + 1);
        assert_eq!(read_records(&huge), Err(CsvError::FieldTooLarge));
        assert_eq!(
            read_records(&"y".repeat(FIELD_SIZE_LIMIT)).map(|r| r.len()),
            Ok(1)
        );
    }
}
