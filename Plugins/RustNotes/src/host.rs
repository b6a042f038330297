//! Talking to the host: the `Host` trait the behaviour (notes.rs) is written against, and its
//! implementation over the host's C table (tessera_host_api_t), which copies the host's buffers
//! out and gives them straight back with the host's own free_buffer.

use std::ffi::CString;
use std::mem::{size_of, MaybeUninit};
use std::os::raw::c_void;
use std::ptr;

use crate::abi::{Buffer, HostApi, HostCallFn, HostFreeFn, HostLogFn, C_ABI_MAJOR, OK};
use crate::error::PluginError;
use crate::json::{self, Value};

/// TESSERA_LOG_DEBUG … TESSERA_LOG_ERROR.
#[allow(dead_code)] // Debug and Error are part of the ABI's set; this plugin happens not to use them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LogLevel {
    Debug = 0,
    Info = 1,
    Warning = 2,
    Error = 3,
}

impl LogLevel {
    /// The level's name in the capability protocol's `log` method.
    fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
        }
    }
}

/// What the plugin needs of its host.
pub trait Host {
    /// Calls a capability method with JSON parameters; the host's error comes back as the
    /// plugin's own (same code and message).
    fn call(&self, method: &str, params: &Value) -> Result<Value, PluginError>;
    /// Writes a line to the host's log. Never fails.
    fn log(&self, level: LogLevel, message: &str);
}

/// The host of one instance, as the C table handed to `create` describes it.
pub struct FfiHost {
    context: *mut c_void,
    call: HostCallFn,
    free_buffer: HostFreeFn,
    /// None if the host's table is too old to have `log`, or leaves it NULL.
    log: Option<HostLogFn>,
}

/// The pointer to a struct field's type, to learn the field's size without reading it.
fn pointee_size<T>(_: *const T) -> usize {
    size_of::<T>()
}

/// Where a field of tessera_host_api_t ends, in bytes from the struct's start. Rust 1.63 has no
/// offset_of!, so this takes the field's address in an uninitialised probe (addr_of! reads
/// nothing) and subtracts the probe's.
macro_rules! host_field_end {
    ($field:ident) => {{
        let probe = MaybeUninit::<HostApi>::uninit();
        let base = probe.as_ptr();
        // SAFETY: addr_of! only computes an address inside the probe; nothing is read.
        let field = unsafe { ptr::addr_of!((*base).$field) };
        (field as usize - base as usize) + pointee_size(field)
    }};
}

/// Where `call`, `free_buffer` and `log` end: a host whose `size` is smaller did not write them.
fn host_field_ends() -> (usize, usize, usize) {
    (host_field_end!(call), host_field_end!(free_buffer), host_field_end!(log))
}

impl FfiHost {
    /// Reads the host's table under the ABI's size rule: a field the host's `size` does not cover
    /// was not written by that host and is not read. A host of another C ABI major, or one without
    /// `call` and `free_buffer`, is None (and `create` answers NULL); one without `log` still
    /// works, logging through the protocol's "log" method instead.
    ///
    /// # Safety
    /// `host` is NULL or points at a table at least `host.size` bytes long, valid until `destroy`.
    pub unsafe fn new(host: *const HostApi, context: *mut c_void) -> Option<FfiHost> {
        if host.is_null() {
            return None;
        }
        let size = ptr::read(ptr::addr_of!((*host).size)) as usize;
        if size < 8 || ptr::read(ptr::addr_of!((*host).c_abi_major)) != C_ABI_MAJOR {
            return None;
        }
        let (call_end, free_end, log_end) = host_field_ends();
        let call = if size >= call_end { ptr::read(ptr::addr_of!((*host).call)) } else { None };
        let free_buffer = if size >= free_end { ptr::read(ptr::addr_of!((*host).free_buffer)) } else { None };
        let log = if size >= log_end { ptr::read(ptr::addr_of!((*host).log)) } else { None };
        match (call, free_buffer) {
            (Some(call), Some(free_buffer)) => Some(FfiHost { context, call, free_buffer, log }),
            _ => None,
        }
    }

    /// Copies out a buffer the host filled and gives it back to the host at once, so no path
    /// (an error, a panic later on) can leak it or free it with the wrong allocator.
    fn take(&self, buffer: &mut Buffer) -> Vec<u8> {
        if buffer.data.is_null() {
            return Vec::new();
        }
        // SAFETY: the host filled {data, length} with memory of its own, alive until freed here.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.data, buffer.length) }.to_vec();
        // SAFETY: this is the host's buffer, handed back to the host's own free_buffer, once.
        unsafe { (self.free_buffer)(buffer) };
        *buffer = Buffer::empty();
        bytes
    }
}

impl Host for FfiHost {
    fn call(&self, method: &str, params: &Value) -> Result<Value, PluginError> {
        // Method names are the plugin's own constants; a NUL in one would be a bug here.
        let method_c = CString::new(method).map_err(|_| PluginError::internal("A method name held a NUL byte."))?;
        let params_text = params.to_json();
        let mut result = Buffer::empty();
        // SAFETY: the host's function with its own context; every pointer lives through the call.
        let status =
            unsafe { (self.call)(self.context, method_c.as_ptr(), params_text.as_ptr(), params_text.len(), &mut result) };
        let answer = self.take(&mut result);
        if status != OK {
            return Err(PluginError::from_host(&answer));
        }
        if answer.is_empty() {
            return Ok(Value::Null); // an empty answer can only mean "nothing", i.e. null
        }
        json::parse(&answer).map_err(|_| PluginError::host_silent())
    }

    fn log(&self, level: LogLevel, message: &str) {
        match self.log {
            // SAFETY: the host's function with its own context; the message lives through the call.
            Some(log) => unsafe { log(self.context, level as i32, message.as_ptr(), message.len()) },
            // A host whose table predates `log` still answers the protocol's "log" method.
            None => {
                let params = json::object(vec![("level", json::string(level.name())), ("message", json::string(message))]);
                let _ = self.call("log", &params); // logging never fails the caller
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_ends_match_the_header() {
        // size, 3 x u32, host_version at 16, call at 24, free_buffer at 32, log at 40 (LP64).
        assert_eq!(host_field_ends(), (32, 40, 48));
    }
}
