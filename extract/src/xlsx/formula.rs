//! Shared formulas as openpyxl expands them in a worksheet's dependent
//! cells: its formula tokenizer (`formula/tokenizer.py`, the Bachtal
//! algorithm with its quirks: a run of white space kept as its first
//! character, `\n` not ending an operand) and its `Translator`, which moves
//! the relative references of the master cell's formula to each dependent.

use super::cell_ref::{column_index, column_letter, coordinate_to_tuple};
use super::pynum::{parse_float, PyInt};

/// Why a formula could not be tokenized or translated (the reference raises).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FormulaError(pub String);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Operand,
    Func,
    Array,
    Paren,
    Sep,
    OpPre,
    OpIn,
    OpPost,
    Space,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sub {
    None,
    Text,
    Number,
    Logical,
    Error,
    Range,
    Open,
    Close,
    Arg,
    Row,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    value: String,
    kind: Kind,
    sub: Sub,
}

impl Token {
    fn new(value: impl Into<String>, kind: Kind) -> Self {
        Token {
            value: value.into(),
            kind,
            sub: Sub::None,
        }
    }

    fn operand(value: String) -> Self {
        let sub = if value.starts_with('"') {
            Sub::Text
        } else if value.starts_with('#') {
            Sub::Error
        } else if value == "TRUE" || value == "FALSE" {
            Sub::Logical
        } else if parse_float(&value).is_some() {
            Sub::Number
        } else {
            Sub::Range
        };
        Token {
            value,
            kind: Kind::Operand,
            sub,
        }
    }

    fn subexp(value: String, func: bool) -> Self {
        let kind = if func {
            Kind::Func
        } else if value == "{" || value == "}" {
            Kind::Array
        } else if value == "(" || value == ")" {
            Kind::Paren
        } else {
            Kind::Func
        };
        let sub = if value == ")" || value == "}" {
            Sub::Close
        } else {
            Sub::Open
        };
        Token { value, kind, sub }
    }
}

const ERROR_CODES: [&str; 8] = [
    "#NULL!",
    "#DIV/0!",
    "#VALUE!",
    "#REF!",
    "#NAME?",
    "#NUM!",
    "#N/A",
    "#GETTING_DATA",
];
const TOKEN_ENDERS: &str = ",;}) +-*/^&=><%";

/// `^[1-9](\.[0-9]+)?[Ee]$`
fn scientific_prefix(token: &[char]) -> bool {
    let n = token.len();
    if n < 2 || !matches!(token[0], '1'..='9') || !matches!(token[n - 1], 'E' | 'e') {
        return false;
    }
    match &token[1..n - 1] {
        [] => true,
        ['.', digits @ ..] => !digits.is_empty() && digits.iter().all(char::is_ascii_digit),
        _ => false,
    }
}

struct Tokenizer {
    chars: Vec<char>,
    items: Vec<Token>,
    stack: Vec<Token>,
    offset: usize,
    token: Vec<char>,
}

impl Tokenizer {
    fn err(&self, what: &str) -> FormulaError {
        let formula: String = self.chars.iter().collect();
        FormulaError(format!("{what} in formula '{formula}'"))
    }

    fn assert_empty_token(&self, can_follow: &[char]) -> Result<(), FormulaError> {
        match self.token.last() {
            Some(c) if !can_follow.contains(c) => Err(self.err("unexpected character")),
            _ => Ok(()),
        }
    }

    fn save_token(&mut self) {
        if !self.token.is_empty() {
            let value: String = self.token.drain(..).collect();
            self.items.push(Token::operand(value));
        }
    }

    fn parse(formula: &str) -> Result<Vec<Token>, FormulaError> {
        let mut t = Tokenizer {
            chars: formula.chars().collect(),
            items: Vec::new(),
            stack: Vec::new(),
            offset: 0,
            token: Vec::new(),
        };
        match t.chars.first() {
            None => return Ok(Vec::new()),
            Some('=') => t.offset = 1,
            Some(_) => {
                // A literal: translation returns it unchanged.
                return Ok(vec![Token::new(formula, Kind::Operand)]);
            }
        }
        while t.offset < t.chars.len() {
            let c = t.chars[t.offset];
            if matches!(c, '+' | '-') && !t.token.is_empty() && scientific_prefix(&t.token) {
                t.token.push(c);
                t.offset += 1;
                continue;
            }
            if TOKEN_ENDERS.contains(c) {
                t.save_token();
            }
            let consumed = match c {
                '"' | '\'' => t.string()?,
                '[' => t.brackets()?,
                '#' => t.error()?,
                ' ' | '\n' => t.whitespace(),
                '+' | '-' | '*' | '/' | '^' | '&' | '=' | '>' | '<' | '%' => t.operator(),
                '{' | '(' => t.opener()?,
                ')' | '}' => t.closer()?,
                ';' | ',' => t.separator(),
                _ => {
                    t.token.push(c);
                    1
                }
            };
            t.offset += consumed;
        }
        t.save_token();
        Ok(t.items)
    }

    fn string(&mut self) -> Result<usize, FormulaError> {
        self.assert_empty_token(&[':'])?;
        let delim = self.chars[self.offset];
        let mut i = self.offset + 1;
        loop {
            match self.chars.get(i) {
                None => {
                    let what = if delim == '"' { "string" } else { "link" };
                    return Err(self.err(&format!("end reached while parsing a {what}")));
                }
                Some(&c) if c == delim => {
                    if self.chars.get(i + 1) == Some(&delim) {
                        i += 2;
                    } else {
                        i += 1;
                        break;
                    }
                }
                Some(_) => i += 1,
            }
        }
        let text: String = self.chars[self.offset..i].iter().collect();
        if delim == '"' {
            self.items.push(Token::operand(text));
        } else {
            self.token.extend(text.chars());
        }
        Ok(i - self.offset)
    }

    fn brackets(&mut self) -> Result<usize, FormulaError> {
        let mut open = 0i64;
        for (idx, &c) in self.chars[self.offset..].iter().enumerate() {
            match c {
                '[' => open += 1,
                ']' => open -= 1,
                _ => continue,
            }
            if open == 0 {
                let end = idx + 1;
                let text: Vec<char> = self.chars[self.offset..self.offset + end].to_vec();
                self.token.extend(text);
                return Ok(end);
            }
        }
        Err(self.err("unmatched '['"))
    }

    fn error(&mut self) -> Result<usize, FormulaError> {
        self.assert_empty_token(&['!'])?;
        let rest: String = self.chars[self.offset..].iter().collect();
        for code in ERROR_CODES {
            if rest.starts_with(code) {
                let value: String = self.token.drain(..).collect::<String>() + code;
                self.items.push(Token::operand(value));
                return Ok(code.chars().count());
            }
        }
        Err(self.err("invalid error code"))
    }

    fn whitespace(&mut self) -> usize {
        let first = self.chars[self.offset];
        self.items.push(Token::new(first.to_string(), Kind::Space));
        self.chars[self.offset..]
            .iter()
            .take_while(|c| matches!(c, ' ' | '\n'))
            .count()
    }

    fn operator(&mut self) -> usize {
        let two: String = self.chars[self.offset..].iter().take(2).collect();
        if matches!(two.as_str(), ">=" | "<=" | "<>") {
            self.items.push(Token::new(two, Kind::OpIn));
            return 2;
        }
        let c = self.chars[self.offset];
        let kind = if c == '%' {
            Kind::OpPost
        } else if "*/^&=><".contains(c) {
            Kind::OpIn
        } else if self.items.is_empty() {
            Kind::OpPre
        } else {
            let prev = self.items.iter().rev().find(|i| i.kind != Kind::Space);
            let infix = prev.is_some_and(|p| {
                p.sub == Sub::Close || p.kind == Kind::OpPost || p.kind == Kind::Operand
            });
            if infix {
                Kind::OpIn
            } else {
                Kind::OpPre
            }
        };
        self.items.push(Token::new(c.to_string(), kind));
        1
    }

    fn opener(&mut self) -> Result<usize, FormulaError> {
        let token = if self.chars[self.offset] == '{' {
            self.assert_empty_token(&[])?;
            Token::subexp("{".into(), false)
        } else if !self.token.is_empty() {
            let value: String = self.token.drain(..).collect::<String>() + "(";
            Token::subexp(value, false)
        } else {
            Token::subexp("(".into(), false)
        };
        self.items.push(token.clone());
        self.stack.push(token);
        Ok(1)
    }

    fn closer(&mut self) -> Result<usize, FormulaError> {
        let open = self
            .stack
            .pop()
            .ok_or_else(|| self.err("a closing bracket without an opening one"))?;
        let value = if open.kind == Kind::Array { "}" } else { ")" };
        let token = Token::subexp(value.into(), open.kind == Kind::Func);
        if !token.value.starts_with(self.chars[self.offset]) {
            return Err(self.err("mismatched ( and { pair"));
        }
        self.items.push(token);
        Ok(1)
    }

    fn separator(&mut self) -> usize {
        let c = self.chars[self.offset];
        let token = if c == ';' {
            Token {
                value: ";".into(),
                kind: Kind::Sep,
                sub: Sub::Row,
            }
        } else {
            match self.stack.last() {
                None => Token::new(",", Kind::OpIn),
                Some(top) if top.kind == Kind::Paren => Token::new(",", Kind::OpIn),
                Some(_) => Token {
                    value: ",".into(),
                    kind: Kind::Sep,
                    sub: Sub::Arg,
                },
            }
        };
        self.items.push(token);
        1
    }
}

/// A shared formula's master: its tokens and origin.
#[derive(Debug, Clone)]
pub(crate) struct Translator {
    tokens: Vec<Token>,
    literal: bool,
    row: PyInt,
    col: u32,
}

fn out_of_range() -> FormulaError {
    FormulaError("a shared formula's reference moves off the sheet".into())
}

/// `\$?[1-9][0-9]{0,6}` matched whole.
fn is_row_part(s: &str) -> bool {
    let s = s.strip_prefix('$').unwrap_or(s);
    let b = s.as_bytes();
    !b.is_empty() && b.len() <= 7 && matches!(b[0], b'1'..=b'9') && b.iter().all(u8::is_ascii_digit)
}

/// `\$?[A-Za-z]{1,3}` matched whole.
fn is_col_part(s: &str) -> bool {
    let s = s.strip_prefix('$').unwrap_or(s);
    (1..=3).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphabetic())
}

fn translate_row(row: &str, delta: i64) -> Result<String, FormulaError> {
    if row.starts_with('$') {
        return Ok(row.to_string());
    }
    let n: i64 = row.parse().map_err(|_| out_of_range())?;
    let moved = n + delta;
    if moved <= 0 {
        return Err(out_of_range());
    }
    Ok(moved.to_string())
}

fn translate_col(col: &str, delta: i64) -> Result<String, FormulaError> {
    if col.starts_with('$') {
        return Ok(col.to_string());
    }
    let index = column_index(col).ok_or_else(out_of_range)?;
    column_letter(i64::from(index) + delta).ok_or_else(out_of_range)
}

fn translate_range(range: &str, rdelta: i64, cdelta: i64) -> Result<String, FormulaError> {
    let (ws, range) = match range.rfind('!') {
        Some(i) => (&range[..=i], &range[i + 1..]),
        None => ("", range),
    };
    if let Some((a, b)) = range.split_once(':') {
        if !b.contains(':') && is_row_part(a) && is_row_part(b) {
            return Ok(format!(
                "{ws}{}:{}",
                translate_row(a, rdelta)?,
                translate_row(b, rdelta)?
            ));
        }
        if !b.contains(':') && is_col_part(a) && is_col_part(b) {
            return Ok(format!(
                "{ws}{}:{}",
                translate_col(a, cdelta)?,
                translate_col(b, cdelta)?
            ));
        }
        let pieces: Result<Vec<String>, FormulaError> = range
            .split(':')
            .map(|p| translate_range(p, rdelta, cdelta))
            .collect();
        return Ok(format!("{ws}{}", pieces?.join(":")));
    }
    // (\$?[A-Za-z]{1,3})(\$?[1-9][0-9]{0,6})$
    let split = range
        .char_indices()
        .find(|&(i, c)| i > 0 && (c == '$' || c.is_ascii_digit()))
        .map(|(i, _)| i);
    if let Some(i) = split {
        let (col, row) = range.split_at(i);
        if is_col_part(col) && is_row_part(row) {
            return Ok(format!(
                "{ws}{}{}",
                translate_col(col, cdelta)?,
                translate_row(row, rdelta)?
            ));
        }
    }
    Ok(range.to_string())
}

impl Translator {
    /// `Translator(formula, origin)`: tokenizes now, as the reference does.
    pub(crate) fn new(formula: &str, origin: &str) -> Result<Self, FormulaError> {
        let (row, col) = coordinate_to_tuple(origin)
            .ok_or_else(|| FormulaError(format!("invalid cell coordinate '{origin}'")))?;
        let literal = !formula.starts_with('=') && !formula.is_empty();
        Ok(Translator {
            tokens: Tokenizer::parse(formula)?,
            literal,
            row,
            col,
        })
    }

    /// `translate_formula(dest)`; `dest` absent (a cell without `r`) moves nothing.
    pub(crate) fn translate(&self, dest: Option<&str>) -> Result<String, FormulaError> {
        if self.tokens.is_empty() {
            return Ok(String::new());
        }
        if self.literal {
            return Ok(self.tokens[0].value.clone());
        }
        let (mut rdelta, mut cdelta) = (0i64, 0i64);
        if let Some(dest) = dest.filter(|d| !d.is_empty()) {
            let (row, col) = coordinate_to_tuple(dest)
                .ok_or_else(|| FormulaError(format!("invalid cell coordinate '{dest}'")))?;
            let (Some(to), Some(from)) = (row.to_i64(), self.row.to_i64()) else {
                return Err(out_of_range());
            };
            rdelta = to - from;
            cdelta = i64::from(col) - i64::from(self.col);
        }
        let mut out = String::from("=");
        for token in &self.tokens {
            if token.kind == Kind::Operand && token.sub == Sub::Range {
                out.push_str(&translate_range(&token.value, rdelta, cdelta)?);
            } else {
                out.push_str(&token.value);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(formula: &str, from: &str, to: &str) -> Result<String, FormulaError> {
        Translator::new(formula, from)?.translate(Some(to))
    }

    #[test]
    fn references_move_with_the_cell() {
        assert_eq!(
            moved("=A1+B$1*$C1", "D1", "E3").as_deref(),
            Ok("=B3+C$1*$C3")
        );
        assert_eq!(
            moved("=SUM(A1:B2)", "C1", "C2").as_deref(),
            Ok("=SUM(A2:B3)")
        );
        assert_eq!(moved("=Sheet2!A1", "B1", "B2").as_deref(), Ok("=Sheet2!A2"));
        assert_eq!(moved("=SUM(1:2)", "A1", "A3").as_deref(), Ok("=SUM(3:4)"));
        assert_eq!(moved("=SUM(A:B)", "A1", "B1").as_deref(), Ok("=SUM(B:C)"));
        assert_eq!(
            moved("=\"A1\"&name", "A1", "A2").as_deref(),
            Ok("=\"A1\"&name")
        );
        assert_eq!(moved("=A1  +  1", "A1", "A2").as_deref(), Ok("=A2 + 1"));
        assert_eq!(moved("=1E+5+A1", "A1", "A2").as_deref(), Ok("=1E+5+A2"));
        assert!(moved("=A2", "A2", "A1").is_ok());
        assert!(moved("=A1", "A2", "A1").is_err());
        assert!(moved("=(A1", "A1", "A2").is_ok());
        assert!(moved("=A1)", "A1", "A2").is_err());
        assert!(moved("=\"open", "A1", "A2").is_err());
    }
}
