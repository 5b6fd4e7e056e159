//! The chat message model: what real chat payloads carry (OpenAI and LangChain
//! shapes), typed where the governance rules look and preserved verbatim
//! everywhere else, so a rewritten history never loses a field.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// One chat message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user`, `assistant` or `tool` (free text; empty when absent).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
    /// The message body; `None` when the payload had no `content` key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    /// Optional participant or tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Tool calls an assistant message makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// LangChain's side channel; governance markers (`compacted`, ...) live here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_kwargs: Option<Map<String, Value>>,
    /// Every other field, kept as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Message {
    /// A message with a role and plain-text content.
    pub fn new(role: impl Into<String>, text: impl Into<String>) -> Self {
        Message {
            role: role.into(),
            content: Some(Content::Text(text.into())),
            ..Message::default()
        }
    }

    /// A message of a known role with plain-text content.
    pub fn with_role(role: Role, text: impl Into<String>) -> Self {
        Message::new(role.as_str(), text)
    }

    /// A user turn.
    pub fn user(text: impl Into<String>) -> Self {
        Message::with_role(Role::User, text)
    }

    /// An assistant turn.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::with_role(Role::Assistant, text)
    }

    /// A system prompt.
    pub fn system(text: impl Into<String>) -> Self {
        Message::with_role(Role::System, text)
    }

    /// A tool result (its `tool_call_id` is the caller's to set).
    pub fn tool(text: impl Into<String>) -> Self {
        Message::with_role(Role::Tool, text)
    }

    /// The text of the content when it is a plain string.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            Some(Content::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// The message's `id`, when it is a string.
    pub fn id(&self) -> Option<&str> {
        self.extra.get("id").and_then(Value::as_str)
    }

    /// Sets the message's `id`.
    pub fn set_id(&mut self, id: impl Into<String>) {
        self.extra.insert("id".into(), Value::String(id.into()));
    }

    /// The reference's *message text* (SPEC §8): what a summary or a cut of the message reads.
    pub fn message_text(&self) -> String {
        self.content
            .as_ref()
            .map(Content::message_text)
            .unwrap_or_default()
    }

    /// Whether `additional_kwargs[flag]` is the boolean `true`.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.additional_kwargs
            .as_ref()
            .and_then(|k| k.get(flag))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// Sets `additional_kwargs[key] = value`, creating the map when needed.
    pub fn set_kwarg(&mut self, key: &str, value: Value) {
        self.additional_kwargs
            .get_or_insert_with(Map::new)
            .insert(key.to_string(), value);
    }

    /// Who speaks: the `role` field, or LangChain's `type` when there is no role
    /// (`human` is a user, `ai` an assistant); `None` for anything else.
    pub fn role_kind(&self) -> Option<Role> {
        let name = if self.role.is_empty() {
            self.extra.get("type").and_then(Value::as_str)?
        } else {
            self.role.as_str()
        };
        Role::from_name(name)
    }

    /// Whether this is a system prompt (`role: system`, or LangChain's `type: system`).
    pub fn is_system(&self) -> bool {
        self.role_kind() == Some(Role::System)
    }

    /// Whether this is a user turn (`role: user`, or LangChain's `type: human`).
    pub fn is_user(&self) -> bool {
        self.role_kind() == Some(Role::User)
    }

    /// Whether this is an assistant turn (`role: assistant`, or LangChain's `type: ai`).
    pub fn is_assistant(&self) -> bool {
        self.role_kind() == Some(Role::Assistant)
    }

    /// Whether this is a tool result (`role: tool`, or LangChain's `type: tool`).
    pub fn is_tool(&self) -> bool {
        self.role_kind() == Some(Role::Tool)
    }

    /// Text of the content for rendering: a string as is, a part list as its text parts joined.
    pub fn content_as_text(&self) -> String {
        match &self.content {
            None => String::new(),
            Some(Content::Text(t)) => t.clone(),
            Some(Content::Parts(parts)) => parts
                .iter()
                .filter_map(|p| match p {
                    ContentPart::Text { text, .. } => Some(text.as_str()),
                    ContentPart::Bare(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Some(Content::Other(v)) => match v {
                Value::Null => String::new(),
                other => other.to_string(),
            },
        }
    }
}

/// Who speaks in a message, whichever of the OpenAI and LangChain names the payload uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// `system`.
    System,
    /// `user`, LangChain `human`.
    User,
    /// `assistant`, LangChain `ai`.
    Assistant,
    /// `tool`.
    Tool,
}

impl Role {
    /// The role of an OpenAI role name or a LangChain message type.
    pub fn from_name(name: &str) -> Option<Role> {
        match name {
            "system" => Some(Role::System),
            "user" | "human" => Some(Role::User),
            "assistant" | "ai" => Some(Role::Assistant),
            "tool" => Some(Role::Tool),
            _ => None,
        }
    }

    /// The OpenAI role name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// Message content: a string, a list of parts, or anything else (kept verbatim).
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Multimodal parts.
    Parts(Vec<ContentPart>),
    /// `null` or a value of another type; counts as nothing.
    Other(Value),
}

impl Content {
    /// The reference's *message text* (SPEC §8): a string as is; a part list as
    /// the concatenation, with no separator, of its bare strings and of each
    /// object part's `text`, or else its `thinking`, when non-empty.
    pub fn message_text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Parts(parts) => parts.iter().filter_map(ContentPart::message_text).collect(),
            Content::Other(Value::Null) => String::new(),
            Content::Other(other) => crate::pyjson::py_str(other),
        }
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_string())
    }
}

impl From<&String> for Content {
    fn from(text: &String) -> Self {
        Content::Text(text.clone())
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

/// One element of a part list.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentPart {
    /// `{"type": "text", "text": ...}`; `rest` keeps the other keys.
    Text {
        /// The text.
        text: String,
        /// The part's other keys, in order.
        rest: Map<String, Value>,
    },
    /// `{"type": "image_url", ...}`, counted as 170 tokens.
    Image(Map<String, Value>),
    /// `{"type": "input_video" | "video_url" | "video", ...}`, counted as 3600 tokens.
    Video(Map<String, Value>),
    /// A bare string in the list.
    Bare(String),
    /// Any other element, counted as nothing.
    Other(Value),
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart::Text {
            text: text.into(),
            rest: Map::new(),
        }
    }

    /// This part's share of the message text: a bare string, or an object's
    /// `text`, else its `thinking`, when truthy (Python's `str()` of it).
    fn message_text(&self) -> Option<String> {
        let from_map = |map: &Map<String, Value>| {
            ["text", "thinking"]
                .iter()
                .filter_map(|key| map.get(*key))
                .find(|v| crate::pyjson::is_truthy(v))
                .map(crate::pyjson::py_str)
        };
        match self {
            ContentPart::Bare(text) => Some(text.clone()),
            ContentPart::Text { text, .. } if !text.is_empty() => Some(text.clone()),
            ContentPart::Text { rest, .. } => from_map(rest),
            ContentPart::Image(map) | ContentPart::Video(map) => from_map(map),
            ContentPart::Other(Value::Object(map)) => from_map(map),
            ContentPart::Other(_) => None,
        }
    }

    fn from_value(value: Value) -> Self {
        match value {
            Value::String(s) => ContentPart::Bare(s),
            Value::Object(mut map) => match map.get("type").and_then(Value::as_str) {
                Some("text") if map.get("text").is_some_and(Value::is_string) => {
                    let text = match map.shift_remove("text") {
                        Some(Value::String(s)) => s,
                        _ => String::new(),
                    };
                    ContentPart::Text { text, rest: map }
                }
                Some("image_url") => ContentPart::Image(map),
                Some("input_video" | "video_url" | "video") => ContentPart::Video(map),
                _ => ContentPart::Other(Value::Object(map)),
            },
            other => ContentPart::Other(other),
        }
    }

    fn to_value(&self) -> Value {
        match self {
            ContentPart::Text { text, rest } => {
                let mut map = Map::new();
                // Keep "type" first as payloads write it, then "text", then the rest.
                if let Some(t) = rest.get("type") {
                    map.insert("type".into(), t.clone());
                }
                map.insert("text".into(), Value::String(text.clone()));
                for (k, v) in rest {
                    if k != "type" {
                        map.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(map)
            }
            ContentPart::Image(map) | ContentPart::Video(map) => Value::Object(map.clone()),
            ContentPart::Bare(s) => Value::String(s.clone()),
            ContentPart::Other(v) => v.clone(),
        }
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(t) => serializer.serialize_str(t),
            Content::Parts(parts) => {
                Value::Array(parts.iter().map(ContentPart::to_value).collect())
                    .serialize(serializer)
            }
            Content::Other(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(deserializer)? {
            Value::String(s) => Content::Text(s),
            Value::Array(items) => {
                Content::Parts(items.into_iter().map(ContentPart::from_value).collect())
            }
            other => Content::Other(other),
        })
    }
}

/// A tool call in either of the shapes chat payloads use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolCall {
    /// OpenAI: `{id, type: "function", function: {name, arguments}}`.
    Function {
        /// Call id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The function being called.
        function: FunctionCall,
        /// Other keys (`type`, `index`, ...).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// LangChain: `{name, args, id}`.
    Flat {
        /// Tool name.
        name: String,
        /// Arguments as an object (or a JSON string).
        #[serde(default)]
        args: Value,
        /// Call id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Other keys.
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// Anything else, kept verbatim and counted as nothing.
    Other(Value),
}

/// The `function` object of an OpenAI tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// Function name.
    #[serde(default)]
    pub name: String,
    /// Arguments: a JSON string, or (in some payloads) an object.
    #[serde(default)]
    pub arguments: Value,
    /// Other keys.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolCall {
    /// The call id, whichever shape carries it.
    pub fn id(&self) -> Option<&str> {
        match self {
            ToolCall::Function { id, .. } | ToolCall::Flat { id, .. } => id.as_deref(),
            ToolCall::Other(v) => v.get("id").and_then(Value::as_str),
        }
    }

    /// The tool name, whichever shape carries it.
    pub fn name(&self) -> Option<&str> {
        match self {
            ToolCall::Function { function, .. } => Some(&function.name),
            ToolCall::Flat { name, .. } => Some(name),
            ToolCall::Other(v) => v.get("name").and_then(Value::as_str),
        }
    }

    /// `{id, name, args}` with JSON-string arguments parsed, for comparing calls across shapes.
    pub fn normalized(&self) -> Value {
        let args = match self {
            ToolCall::Function { function, .. } => parse_args(&function.arguments),
            ToolCall::Flat { args, .. } => parse_args(args),
            ToolCall::Other(v) => v.get("args").map(parse_args).unwrap_or(Value::Null),
        };
        serde_json::json!({
            "id": self.id(),
            "name": self.name(),
            "args": args,
        })
    }
}

fn parse_args(args: &Value) -> Value {
    match args {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| args.clone()),
        other => other.clone(),
    }
}

/// Parses a JSON array of chat messages, naming the failing index on error.
pub fn parse_messages(value: &Value) -> crate::Result<Vec<Message>> {
    let items = value
        .as_array()
        .ok_or_else(|| crate::Error::invalid("messages", "expected an array of message objects"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            Message::deserialize(item)
                .map_err(|e| crate::Error::invalid("messages", format!("message {i}: {e}")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_unknown_fields_and_parts() {
        let raw = json!({
            "role": "user",
            "content": [{"type": "text", "text": "hi", "cache": 1}, "bare", {"type": "image_url", "image_url": {"url": "x"}}, 5],
            "id": "m1",
            "additional_kwargs": {"compacted": true}
        });
        let msg: Message = serde_json::from_value(raw.clone()).expect("valid message");
        assert!(msg.has_flag("compacted"));
        assert_eq!(serde_json::to_value(&msg).expect("serialises"), raw);
    }

    #[test]
    fn roles_read_the_role_then_the_langchain_type() {
        let ai: Message =
            serde_json::from_value(json!({"type": "ai", "content": "x"})).expect("message");
        assert!(ai.is_assistant());
        let human: Message =
            serde_json::from_value(json!({"role": "human", "content": "x"})).expect("message");
        assert!(human.is_user());
        let typed_tool: Message =
            serde_json::from_value(json!({"type": "tool", "content": "x"})).expect("message");
        assert!(typed_tool.is_tool());
        let user_typed_ai: Message =
            serde_json::from_value(json!({"role": "user", "type": "ai"})).expect("message");
        assert!(user_typed_ai.is_user(), "an explicit role wins");
        assert_eq!(Message::new("critic", "x").role_kind(), None);
    }

    #[test]
    fn tool_call_shapes_normalise_alike() {
        let a: ToolCall = serde_json::from_value(json!({"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}})).expect("openai shape");
        let b: ToolCall =
            serde_json::from_value(json!({"id": "c1", "name": "f", "args": {"x": 1}}))
                .expect("flat shape");
        assert!(matches!(a, ToolCall::Function { .. }));
        assert!(matches!(b, ToolCall::Flat { .. }));
        assert_eq!(a.normalized(), b.normalized());
    }
}
