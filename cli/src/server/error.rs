//! Errors at the HTTP boundary: every one is answered as JSON
//! `{"error": message}` (with `index` and `field` for a rejected event), so a
//! publisher or a browser never has to parse text.

use super::session_id::InvalidSessionId;
use super::store::StoreError;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// An error answered with its status and a JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppError {
    status: StatusCode,
    body: ErrorBody,
}

/// The JSON of an error response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorBody {
    /// What went wrong, in words.
    pub error: String,
    /// The rejected event's position in the request (0-based), when one was rejected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The rejected field (`context_metrics.used_input_tokens`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl AppError {
    /// An error of `status` saying `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        AppError {
            status,
            body: ErrorBody {
                error: message.into(),
                index: None,
                field: None,
            },
        }
    }

    /// A 400.
    pub fn bad_request(message: impl Into<String>) -> Self {
        AppError::new(StatusCode::BAD_REQUEST, message)
    }

    /// A 400 naming the rejected event and, when known, its field.
    pub fn invalid_event(index: usize, field: Option<String>, message: impl Into<String>) -> Self {
        let mut e = AppError::bad_request(message);
        e.body.index = Some(index);
        e.body.field = field;
        e
    }

    /// A 401: no credential, or one that does not verify.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        AppError::new(StatusCode::UNAUTHORIZED, message)
    }

    /// A 403: a valid credential that does not grant this.
    pub fn forbidden(message: impl Into<String>) -> Self {
        AppError::new(StatusCode::FORBIDDEN, message)
    }

    /// A 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        AppError::new(StatusCode::NOT_FOUND, message)
    }

    /// The 404 of a session the store does not hold (never created, forgotten, evicted or idle).
    pub fn unknown_session(id: &impl std::fmt::Display) -> Self {
        AppError::not_found(format!("unknown session \"{id}\""))
    }

    /// A 405.
    pub fn method_not_allowed(method: &Method) -> Self {
        AppError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("method {method} not allowed here"),
        )
    }

    /// A 413 for a body over `limit_bytes`.
    pub fn payload_too_large(limit_bytes: usize) -> Self {
        AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body is over {limit_bytes} bytes (--max-body-bytes)"),
        )
    }

    /// A 503.
    pub fn unavailable(message: impl Into<String>) -> Self {
        AppError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }

    /// The status answered.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The body answered.
    #[cfg(test)]
    pub fn body(&self) -> &ErrorBody {
        &self.body
    }
}

impl From<InvalidSessionId> for AppError {
    fn from(e: InvalidSessionId) -> Self {
        AppError::bad_request(e.to_string())
    }
}

/// An invalid session id in a route's path answers 400 with its reason.
impl IntoResponse for InvalidSessionId {
    fn into_response(self) -> Response {
        AppError::from(self).into_response()
    }
}

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        AppError::unavailable(e.to_string())
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"ctxguard\""),
            );
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}
