//! The errors the plugin answers with TESSERA_ERROR: {"code", "message", "field"?}, codes as in
//! docs/errors.md. One type for all of them, so every path out of the plugin says the same shape.

use crate::json::{self, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct PluginError {
    pub code: String,
    pub message: String,
    /// The input field the error is about, if it is about one.
    pub field: Option<String>,
}

impl PluginError {
    pub fn new(code: &str, message: &str) -> PluginError {
        PluginError { code: code.to_string(), message: message.to_string(), field: None }
    }

    /// A person gave something the plugin cannot take, in the input field `field`.
    pub fn invalid_input(field: &str, message: &str) -> PluginError {
        PluginError { field: Some(field.to_string()), ..PluginError::new("invalid_input", message) }
    }

    /// Something that should not happen did: the host answered oddly, or the plugin has a bug.
    pub fn internal(message: &str) -> PluginError {
        PluginError::new("internal", message)
    }

    /// The error the host answered a capability call with, passed on as the plugin's own: same
    /// code and same message. Its `field`, if any, names a field of the plugin's params to the
    /// host, which the plugin's caller never saw, so it is left out. An answer without both is
    /// no error this plugin can pass on.
    pub fn from_host(answer: &[u8]) -> PluginError {
        let parsed = json::parse(answer).ok();
        let code = parsed.as_ref().and_then(|v| v.get("code")).and_then(Value::as_str);
        let message = parsed.as_ref().and_then(|v| v.get("message")).and_then(Value::as_str);
        match (code, message) {
            (Some(code), Some(message)) => PluginError::new(code, message),
            _ => PluginError::host_silent(),
        }
    }

    /// A call to the host failed, or answered bytes that are not JSON, with nothing to pass on.
    pub fn host_silent() -> PluginError {
        PluginError::internal("A call to the host failed without saying why.")
    }

    pub fn to_json(&self) -> Value {
        let mut members = vec![("code", json::string(&self.code)), ("message", json::string(&self.message))];
        if let Some(field) = &self.field {
            members.push(("field", json::string(field)));
        }
        json::object(members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(
            PluginError::invalid_input("text", "A note needs some text.").to_json().to_json(),
            r#"{"code":"invalid_input","message":"A note needs some text.","field":"text"}"#
        );
        assert_eq!(PluginError::internal("x").to_json().to_json(), r#"{"code":"internal","message":"x"}"#);
    }

    #[test]
    fn from_the_host() {
        let e = PluginError::from_host(br#"{"code":"quota_exceeded","message":"Full.","field":"changes"}"#);
        assert_eq!(e, PluginError::new("quota_exceeded", "Full."));
        assert_eq!(PluginError::from_host(b""), PluginError::host_silent());
        assert_eq!(PluginError::from_host(b"{\"code\":\"forbidden\"}"), PluginError::host_silent());
    }
}
