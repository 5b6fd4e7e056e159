//! [`Fields`]: an object's fields read from a [`serde_json::Value`] by name and
//! type, as serde's derived `Deserialize` reads them, for readers written by
//! hand where the derive's code is too big to ship (the toolbar's module has a
//! 200 KB brotli first-load budget; see `attachment::PreviewReport::from_value`).
//! Every accessor answers `None` where the derive refuses the field: a missing
//! required field, or a value of another JSON type.

pub mod edits;

use serde_json::{Map, Value};

/// The fields of one JSON object.
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a>(pub &'a Map<String, Value>);

impl<'a> Fields<'a> {
    /// The fields of `value`, when it is an object (the derive's other form of a struct, an
    /// array of its fields in order, is not read: no writer here produces it).
    pub fn of(value: &'a Value) -> Option<Self> {
        value.as_object().map(Fields)
    }

    /// Field `name`, when present.
    pub fn get(self, name: &str) -> Option<&'a Value> {
        self.0.get(name)
    }

    /// A `String` field.
    pub fn string(self, name: &str) -> Option<String> {
        self.get(name)?.as_str().map(str::to_string)
    }

    /// An `i64` field (a float or a number past `i64` is refused, as the derive refuses it).
    pub fn integer(self, name: &str) -> Option<i64> {
        self.get(name)?.as_i64()
    }

    /// A `usize` field (negative or too large for this target: refused).
    pub fn count(self, name: &str) -> Option<usize> {
        usize::try_from(self.get(name)?.as_u64()?).ok()
    }

    /// An `f64` field (any JSON number).
    pub fn float(self, name: &str) -> Option<f64> {
        self.get(name)?.as_f64()
    }

    /// A `bool` field.
    pub fn flag(self, name: &str) -> Option<bool> {
        self.get(name)?.as_bool()
    }

    /// An `Option<T>` field: absent or `null` is `None`, anything else must read as a `T`
    /// (the outer `None`: refused).
    pub fn optional<T>(
        self,
        name: &str,
        read: impl FnOnce(&'a Value) -> Option<T>,
    ) -> Option<Option<T>> {
        match self.get(name) {
            None | Some(Value::Null) => Some(None),
            Some(value) => read(value).map(Some),
        }
    }

    /// A `#[serde(default)]` field that is not an `Option`: absent is `T::default()`, anything
    /// else (`null` too) must read as a `T`.
    pub fn defaulted<T: Default>(
        self,
        name: &str,
        read: impl FnOnce(&'a Value) -> Option<T>,
    ) -> Option<T> {
        match self.get(name) {
            None => Some(T::default()),
            Some(value) => read(value),
        }
    }
}

/// An array of `T`s (`None` when it is not an array or one item does not read).
pub fn items<'a, T, C: FromIterator<T>>(
    value: &'a Value,
    read: impl FnMut(&'a Value) -> Option<T>,
) -> Option<C> {
    value.as_array()?.iter().map(read).collect()
}

/// A unit variant's name as the derive reads an enum from a `Value`: the string, or an
/// object of one key whose value is `null`.
pub fn variant(value: &Value) -> Option<&str> {
    match value {
        Value::String(name) => Some(name),
        Value::Object(object) if object.len() == 1 => {
            let (name, unit) = object.iter().next()?;
            unit.is_null().then_some(name.as_str())
        }
        _ => None,
    }
}
