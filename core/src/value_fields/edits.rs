//! Every path in a JSON value and the value with one path edited: how the
//! tests of a hand-written reader compare it with serde's derive on every
//! field deleted, nulled or given another type.

use serde_json::{json, Value};

/// Every path to a value in `value` (object keys and array indices), each
/// after the paths below it.
pub fn paths(value: &Value) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    collect(value, &[], &mut out);
    out
}

fn collect(value: &Value, at: &[Value], out: &mut Vec<Vec<Value>>) {
    let children: Vec<(Value, &Value)> = match value {
        Value::Object(object) => object
            .iter()
            .map(|(k, v)| (Value::String(k.clone()), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (json!(i), v))
            .collect(),
        _ => Vec::new(),
    };
    for (step, child) in children {
        let mut path = at.to_vec();
        path.push(step);
        collect(child, &path, out);
        out.push(path);
    }
}

/// `value` with the value at `path` (one of [`paths`]) replaced, or removed
/// when `new` is `None`.
pub fn edited(value: &Value, path: &[Value], new: Option<&Value>) -> Value {
    let mut out = value.clone();
    let Some((last, parents)) = path.split_last() else {
        return new.cloned().unwrap_or(Value::Null);
    };
    let index = |step: &Value| step.as_u64().unwrap_or(u64::MAX) as usize;
    let mut at = &mut out;
    for step in parents {
        at = match step {
            Value::String(key) => &mut at[key.as_str()],
            other => &mut at[index(other)],
        };
    }
    match (last, new) {
        (Value::String(key), Some(v)) => at[key.as_str()] = v.clone(),
        (Value::String(key), None) => {
            if let Some(object) = at.as_object_mut() {
                object.remove(key);
            }
        }
        (other, Some(v)) => at[index(other)] = v.clone(),
        (other, None) => {
            if let Some(items) = at.as_array_mut().filter(|a| index(other) < a.len()) {
                items.remove(index(other));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_is_found_and_edited_in_place() {
        let value = json!({"a": [1, {"b": 2}], "c": 3});
        let paths = paths(&value);
        assert_eq!(paths.len(), 5);
        assert_eq!(
            edited(
                &value,
                &[json!("a"), json!(1), json!("b")],
                Some(&json!("x"))
            ),
            json!({"a": [1, {"b": "x"}], "c": 3})
        );
        assert_eq!(
            edited(&value, &[json!("a"), json!(0)], None),
            json!({"a": [{"b": 2}], "c": 3})
        );
        assert_eq!(
            edited(&value, &[json!("c")], None),
            json!({"a": [1, {"b": 2}]})
        );
    }
}
