//! [`MessageParams`]: the values interpolated into a frontend i18n message
//! (`{{count}}`, `{{max}}`, …), by name. JSON: an object of strings, as the
//! frontend's `t(key, params)` takes it. Held as a short list sorted by name
//! rather than a `BTreeMap`: a message has at most two values, and the
//! toolbar's module, which reads these from every preview report, stays
//! smaller without a map's code.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A message's values by name, sorted by name, each name once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageParams(Vec<(String, String)>);

impl MessageParams {
    /// Whether it holds no value.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value named `name`.
    pub fn get(&self, name: &str) -> Option<&String> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The values in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Sets `name` to `value` (a later value of a name replaces the earlier, as in a map).
    pub fn insert(&mut self, name: String, value: String) {
        match self.0.binary_search_by(|(n, _)| n.as_str().cmp(&name)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (name, value)),
        }
    }
}

impl<N: Into<String>, V: Into<String>> FromIterator<(N, V)> for MessageParams {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> Self {
        let mut params = MessageParams::default();
        for (n, v) in pairs {
            params.insert(n.into(), v.into());
        }
        params
    }
}

impl std::ops::Index<&str> for MessageParams {
    type Output = String;
    /// The value named `name`; panics when there is none, as a map's index does.
    fn index(&self, name: &str) -> &String {
        self.get(name)
            .unwrap_or_else(|| panic!("no message value named {name}"))
    }
}

impl Serialize for MessageParams {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (n, v) in &self.0 {
            map.serialize_entry(n, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for MessageParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Pairs;
        impl<'de> Visitor<'de> for Pairs {
            type Value = MessageParams;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MessageParams, A::Error> {
                let mut params = MessageParams::default();
                while let Some((n, v)) = map.next_entry::<String, String>()? {
                    params.insert(n, v);
                }
                Ok(params)
            }
        }
        deserializer.deserialize_map(Pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_an_object_of_strings_sorted_by_name_each_name_once() {
        let p: MessageParams = [("max", "10"), ("current", "12"), ("max", "11")]
            .into_iter()
            .collect();
        assert_eq!(
            p.iter().collect::<Vec<_>>(),
            [("current", "12"), ("max", "11")]
        );
        let json = serde_json::to_string(&p).expect("JSON");
        assert_eq!(json, r#"{"current":"12","max":"11"}"#);
        let back: MessageParams = serde_json::from_str(r#"{"max":"1","count":"2","max":"3"}"#)
            .expect("an object of strings");
        assert_eq!(
            back.iter().collect::<Vec<_>>(),
            [("count", "2"), ("max", "3")]
        );
        assert_eq!(back["count"], "2");
        assert!(serde_json::from_str::<MessageParams>(r#"{"count":2}"#).is_err());
        assert!(serde_json::from_str::<MessageParams>("[]").is_err());
        assert!(MessageParams::default().is_empty());
    }
}
