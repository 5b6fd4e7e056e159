//! Typed access to a case's input fields, with errors that name the field.

use super::CaseError;
use crate::message::{parse_messages, Message};
use crate::tokens::TokenCounter;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The model cases without a `model` field are evaluated under.
const DEFAULT_MODEL: &str = "gpt-4";

/// One case's input, as a JSON object.
pub(crate) struct Case<'a> {
    value: &'a Value,
}

impl<'a> Case<'a> {
    pub(crate) fn new(value: &'a Value) -> Self {
        Case { value }
    }

    /// A required field (a missing field reads as `null`, which only optional types accept).
    pub(crate) fn field<T: DeserializeOwned>(&self, name: &'static str) -> Result<T, CaseError> {
        let v = self.value.get(name).cloned().unwrap_or(Value::Null);
        serde_json::from_value(v).map_err(|e| field_error(name, e))
    }

    /// An optional field: missing and `null` are both `None`.
    pub(crate) fn opt_field<T: DeserializeOwned>(
        &self,
        name: &'static str,
    ) -> Result<Option<T>, CaseError> {
        match self.value.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => serde_json::from_value(v.clone())
                .map(Some)
                .map_err(|e| field_error(name, e)),
        }
    }

    /// The raw JSON of a field (`null` when missing).
    pub(crate) fn raw(&self, name: &str) -> &'a Value {
        self.value.get(name).unwrap_or(&Value::Null)
    }

    /// A list of chat messages.
    pub(crate) fn messages(&self, name: &'static str) -> Result<Vec<Message>, CaseError> {
        parse_messages(self.raw(name)).map_err(|e| field_error(name, e))
    }

    /// The case's model id.
    pub(crate) fn model(&self) -> Result<String, CaseError> {
        Ok(self
            .opt_field("model")?
            .unwrap_or_else(|| DEFAULT_MODEL.to_string()))
    }

    /// The token counter of the case's model.
    pub(crate) fn counter(&self) -> Result<TokenCounter, CaseError> {
        Ok(TokenCounter::for_model(&self.model()?))
    }
}

pub(crate) fn field_error(field: &'static str, detail: impl std::fmt::Display) -> CaseError {
    CaseError::Field {
        field,
        detail: detail.to_string(),
    }
}
