//! Comparing a case's output with its `expected`: the first differing path,
//! numbers by value, and the reference's fresh random ids, which the cases
//! record as a placeholder.

use super::CaseError;
use serde_json::Value;

/// How a case records an id the reference drew at random (a fresh uuid4):
/// any fresh, distinct uuid4 in the output matches it.
pub const UUID4_PLACEHOLDER: &str = "<uuid4>";

/// The first place where `actual` differs from `expected`, as `path: expected … got …`.
pub fn first_difference(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let p = format!("{path}.{k}");
                match a.get(k) {
                    None => return Some(format!("{p}: expected {} got nothing", brief(ev))),
                    Some(av) => {
                        if let Some(d) = first_difference(ev, av, &p) {
                            return Some(d);
                        }
                    }
                }
            }
            a.iter()
                .find(|(k, _)| !e.contains_key(*k))
                .map(|(k, av)| format!("{path}.{k}: expected nothing got {}", brief(av)))
        }
        (Value::Array(e), Value::Array(a)) => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                if let Some(d) = first_difference(ev, av, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (e.len() != a.len())
                .then(|| format!("{path}: expected {} items got {}", e.len(), a.len()))
        }
        (Value::String(e), Value::String(a)) if e == UUID4_PLACEHOLDER => {
            (!is_uuid4(a)).then(|| format!("{path}: expected a fresh uuid4 got {}", brief(actual)))
        }
        (Value::String(e), Value::String(a)) if e != a => {
            let at = e.chars().zip(a.chars()).take_while(|(x, y)| x == y).count();
            let snippet = |s: &str| -> String {
                let from = at.saturating_sub(20);
                serde_json::to_string(&s.chars().skip(from).take(60).collect::<String>())
                    .unwrap_or_default()
            };
            Some(format!(
                "{path}: expected …{} got …{} (strings differ from char {at})",
                snippet(e),
                snippet(a)
            ))
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => None,
        (e, a) if e == a => None,
        (e, a) => Some(format!("{path}: expected {} got {}", brief(e), brief(a))),
    }
}

/// Checks that the ids standing for [`UUID4_PLACEHOLDER`] are distinct and
/// appear nowhere in the case's input (so they are fresh).
pub(super) fn fresh_ids(expected: &Value, actual: &Value, case: &Value) -> Result<(), CaseError> {
    let mut ids = Vec::new();
    collect_placeheld(expected, actual, &mut ids);
    if ids.is_empty() {
        return Ok(());
    }
    let mut inputs = case.clone();
    if let Some(map) = inputs.as_object_mut() {
        map.remove("expected");
    }
    let input_text = inputs.to_string();
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(CaseError::Mismatch(format!(
                "fresh ids: {id} is given to two messages"
            )));
        }
        if input_text.contains(id) {
            return Err(CaseError::Mismatch(format!(
                "fresh ids: {id} already appears in the input"
            )));
        }
    }
    Ok(())
}

fn collect_placeheld<'a>(expected: &Value, actual: &'a Value, out: &mut Vec<&'a str>) {
    match (expected, actual) {
        (Value::String(e), Value::String(a)) if e == UUID4_PLACEHOLDER => out.push(a),
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                if let Some(av) = a.get(k) {
                    collect_placeheld(ev, av, out);
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for (ev, av) in e.iter().zip(a) {
                collect_placeheld(ev, av, out);
            }
        }
        _ => {}
    }
}

/// Whether `s` is a random (version 4, RFC 4122 variant) UUID in canonical lower-case form.
fn is_uuid4(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        })
        && b[14] == b'4'
        && matches!(b[19], b'8' | b'9' | b'a' | b'b')
}

fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_take_fresh_distinct_uuid4s() {
        let id_a = "0b6f3c1e-2d4a-4f6b-9c8d-7e5f4a3b2c1d";
        let id_b = "1b6f3c1e-2d4a-4f6b-8c8d-7e5f4a3b2c1d";
        let expected = json!({"messages": [{"id": "<uuid4>"}, {"id": "<uuid4>"}]});
        let case = json!({"messages": [{"id": "m1"}]});
        let ok = json!({"messages": [{"id": id_a}, {"id": id_b}]});
        assert_eq!(first_difference(&expected, &ok, "$"), None);
        assert_eq!(fresh_ids(&expected, &ok, &case), Ok(()));
        let twice = json!({"messages": [{"id": id_a}, {"id": id_a}]});
        assert!(fresh_ids(&expected, &twice, &case).is_err());
        let reused = json!({"messages": [{"id": id_a}]});
        let case_with_a = json!({"messages": [{"id": id_a}]});
        assert!(fresh_ids(
            &json!({"messages": [{"id": "<uuid4>"}]}),
            &reused,
            &case_with_a
        )
        .is_err());
        let not_v4 = json!({"messages": [{"id": "m1"}, {"id": id_b}]});
        assert!(first_difference(&expected, &not_v4, "$")
            .is_some_and(|d| d.starts_with("$.messages[0].id: expected a fresh uuid4")));
        assert!(!is_uuid4("0b6f3c1e-2d4a-3f6b-9c8d-7e5f4a3b2c1d"));
        assert!(!is_uuid4("0B6F3C1E-2D4A-4F6B-9C8D-7E5F4A3B2C1D"));
    }
}
