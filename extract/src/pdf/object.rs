//! PDF objects as PyPDF2's `generic` module holds them: numbers keep whether
//! they were written as integers (`NumberObject`) or reals (`FloatObject`),
//! strings are bytes, dictionaries resolve nothing until asked.

use super::cmap::ToUnicode;
use super::error::Result;
use indexmap::IndexMap;
use std::cell::OnceCell;
use std::rc::Rc;

/// One PDF object.
#[derive(Debug, Clone)]
pub(crate) enum Object {
    /// `null` (also what a missing object reads as).
    Null,
    /// `true` / `false` (the text path never reads the value).
    Bool,
    /// An integer (`NumberObject`).
    Int(i64),
    /// A real (`FloatObject`).
    Real(f64),
    /// A literal or hexadecimal string, as bytes.
    Str(Rc<[u8]>),
    /// A name, with its leading `/`, `#xx` escapes decoded.
    Name(Rc<str>),
    /// An array.
    Array(Rc<Vec<Object>>),
    /// A dictionary.
    Dict(Rc<Dict>),
    /// A stream: its dictionary and raw bytes.
    Stream(Rc<Stream>),
    /// An indirect reference `id gen R`.
    Ref(i64, i64),
}

/// A dictionary: keys are names (other keys are kept apart and never match),
/// in the order they were first written, as a Python `dict` keeps them (a
/// page's fonts are read in that order, and the first bad one is the error).
#[derive(Debug, Clone, Default)]
pub(crate) struct Dict {
    entries: IndexMap<Rc<str>, Object>,
}

impl Dict {
    /// The raw value of a key (unresolved), like `dict.get`.
    pub(crate) fn get(&self, key: &str) -> Option<&Object> {
        self.entries.get(key)
    }

    /// Whether the key is present (`key in dict`).
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// Sets a key.
    pub(crate) fn insert(&mut self, key: Rc<str>, value: Object) {
        self.entries.insert(key, value);
    }

    /// Removes a key (`del dict[key]`: the others keep their order).
    pub(crate) fn remove(&mut self, key: &str) -> Option<Object> {
        self.entries.shift_remove(key)
    }

    /// The entries, in the order they were first written.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Rc<str>, &Object)> {
        self.entries.iter()
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// A stream object: its dictionary, its raw data and, once asked, its decoded data.
#[derive(Debug)]
pub(crate) struct Stream {
    /// The stream dictionary (without `/Length`).
    pub(crate) dict: Dict,
    /// The bytes between `stream` and `endstream`.
    pub(crate) raw: Rc<[u8]>,
    /// The decoded bytes (`get_data()`), computed once.
    pub(crate) decoded: OnceCell<Result<Rc<[u8]>>>,
    /// The stream read as a `/ToUnicode` map, parsed once however many
    /// fonts, pages and forms name it.
    pub(crate) to_unicode: OnceCell<Result<Rc<ToUnicode>>>,
}

impl Stream {
    /// A stream of `raw` bytes, not yet decoded.
    pub(crate) fn new(dict: Dict, raw: Rc<[u8]>) -> Self {
        Stream {
            dict,
            raw,
            decoded: OnceCell::new(),
            to_unicode: OnceCell::new(),
        }
    }
}

impl Object {
    /// The name's text, if this is a name.
    pub(crate) fn as_name(&self) -> Option<&str> {
        match self {
            Object::Name(n) => Some(n),
            _ => None,
        }
    }

    /// The integer, if this is an integer (`isinstance(x, int)`).
    pub(crate) fn as_int(&self) -> Option<i64> {
        match self {
            Object::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The value as Python's `float(x)` sees a number (ints and reals only).
    pub(crate) fn as_number(&self) -> Option<f64> {
        match self {
            Object::Int(i) => Some(*i as f64),
            Object::Real(r) => Some(*r),
            _ => None,
        }
    }

    /// Python truthiness of the value (`not data.get(key)`): zero, empty strings,
    /// arrays and dictionaries are false; everything else (even `false`) is true.
    pub(crate) fn is_truthy(&self) -> bool {
        match self {
            Object::Int(i) => *i != 0,
            Object::Real(r) => *r != 0.0,
            Object::Str(s) => !s.is_empty(),
            Object::Name(n) => !n.is_empty(),
            Object::Array(a) => !a.is_empty(),
            Object::Dict(d) => d.len() != 0,
            Object::Stream(s) => s.dict.len() != 0,
            Object::Null | Object::Bool | Object::Ref(..) => true,
        }
    }

    /// The dictionary of a dictionary or a stream.
    pub(crate) fn as_dict(&self) -> Option<&Dict> {
        match self {
            Object::Dict(d) => Some(d),
            Object::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }

    /// What kind of object this is, for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Object::Null => "null",
            Object::Bool => "boolean",
            Object::Int(_) => "integer",
            Object::Real(_) => "real",
            Object::Str(_) => "string",
            Object::Name(_) => "name",
            Object::Array(_) => "array",
            Object::Dict(_) => "dictionary",
            Object::Stream(_) => "stream",
            Object::Ref(..) => "reference",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Dict, Object};
    use std::rc::Rc;

    fn keys(d: &Dict) -> Vec<String> {
        d.iter().map(|(k, _)| k.to_string()).collect()
    }

    /// Keys keep the order they were first written, as a Python dict keeps
    /// them: a page's fonts are built in that order, so the first bad one is
    /// the error, the same on every run.
    #[test]
    fn entries_keep_the_order_they_were_written_in() {
        let mut d = Dict::default();
        let names: Vec<String> = (0..64).map(|i| format!("/F{}", (i * 37) % 64)).collect();
        for name in &names {
            d.insert(Rc::from(name.as_str()), Object::Null);
        }
        assert_eq!(keys(&d), names);
        // a value set again keeps its place; a removed key leaves the others in order
        d.insert(Rc::from(names[5].as_str()), Object::Int(1));
        assert_eq!(keys(&d), names);
        assert!(d.remove(&names[3]).is_some());
        let mut rest = names.clone();
        rest.remove(3);
        assert_eq!(keys(&d), rest);
    }
}
