//! The Notes example plugin for Tessera, over the stable C ABI (tessera_plugin.h). This file is
//! the ABI glue: the exported entry, the plugin's function table, and the functions in it, which
//! turn pointers into Rust values, run the behaviour (notes.rs) and hand the answer back in a
//! buffer. Every one of them runs inside catch_unwind: a panic must never unwind into the host
//! (that is undefined behaviour across `extern "C"`), so it becomes a TESSERA_ERROR "internal".

mod abi;
mod duration;
mod error;
mod host;
mod json;
mod notes;
mod time;

use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use abi::{Buffer, HostApi, PluginApi, SharedPluginApi, C_ABI_MAJOR, C_ABI_MINOR, C_PLUGIN_MAGIC, ERROR, OK};
use error::PluginError;
use host::FfiHost;
use notes::Notes;

/// The strings the table points at: NUL-terminated, and alive as long as the library. The id
/// must equal the manifest's; the migrations create the tables notes.rs reads and writes.
const PLUGIN_ID_C: &str = "dev.tessera.rust-notes\0";
const MIGRATIONS_C: &str = concat!(
    "[{\"version\": 1, \"sql\": \"CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, created_at TEXT NOT NULL); ",
    "CREATE TABLE reminders (id TEXT PRIMARY KEY, text TEXT NOT NULL, due_at TEXT NOT NULL, fired_at TEXT);\"}]\0"
);

static PLUGIN_API: SharedPluginApi = SharedPluginApi(PluginApi {
    size: std::mem::size_of::<PluginApi>() as u32,
    magic: C_PLUGIN_MAGIC,
    c_abi_major: C_ABI_MAJOR,
    c_abi_minor: C_ABI_MINOR,
    plugin_id: PLUGIN_ID_C.as_ptr() as *const c_char,
    migrations: MIGRATIONS_C.as_ptr() as *const c_char,
    create: plugin_create,
    start: plugin_start,
    handle: plugin_handle,
    receive: plugin_receive,
    export_state: plugin_export_state,
    import_state: plugin_import_state,
    stop: plugin_stop,
    destroy: plugin_destroy,
    free_buffer: plugin_free_buffer,
    reserved: [ptr::null_mut(); 8],
});

/// The one exported symbol: the host calls it once per library and gets the table, or NULL if
/// the host speaks another C ABI major.
#[no_mangle]
pub extern "C" fn tessera_c_plugin_entry(host_c_abi_major: u32, _host_c_abi_minor: u32) -> *const PluginApi {
    // Nothing here can panic, but the rule holds for every extern fn: no unwinding into the host.
    catch_unwind(|| {
        // Reading the stamp makes it reachable from an exported symbol, so the linker's section
        // garbage collection cannot drop it (GNU ld does, for #[used] alone, with rustc 1.63).
        // SAFETY: a plain read of an initialised static.
        let stamp_size = unsafe { ptr::read_volatile(&abi::STAMP.size) };
        if host_c_abi_major != C_ABI_MAJOR || stamp_size == 0 {
            return ptr::null();
        }
        // This plugin's minor is 0, which no host of major 1 is older than.
        &PLUGIN_API.0 as *const PluginApi
    })
    .unwrap_or(ptr::null())
}

/// One instance: the host it was made for, and the behaviour with its state.
struct Instance {
    host: FfiHost,
    notes: Notes,
}

// ---------------------------------------------------------------------------------------------
// Crossing helpers

/// Borrowed bytes from a pointer and length (NULL with length 0 is the empty buffer).
///
/// # Safety
/// `data` is NULL or points at `length` readable bytes that outlive the returned slice.
unsafe fn borrowed<'a>(data: *const u8, length: usize) -> &'a [u8] {
    if data.is_null() || length == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(data, length)
    }
}

/// A NUL-terminated string from the host, as text; a name that is not UTF-8 cannot match any of
/// the plugin's, so it is shown with replacement characters rather than refused.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string alive for the call.
unsafe fn borrowed_name(s: *const c_char) -> String {
    if s.is_null() {
        String::new()
    } else {
        CStr::from_ptr(s).to_string_lossy().into_owned()
    }
}

/// The instance behind the host's handle.
///
/// # Safety
/// `instance` is NULL or a pointer `plugin_create` returned and `plugin_destroy` has not freed.
unsafe fn instance<'a>(instance: *mut c_void) -> Result<&'a Instance, PluginError> {
    (instance as *const Instance).as_ref().ok_or_else(|| PluginError::internal("The host passed no instance."))
}

/// Fills an out-buffer with bytes the plugin owns (a Box<[u8]>, given back to plugin_free_buffer).
///
/// # Safety
/// `out` is NULL or points at a writable tessera_buffer_t.
unsafe fn fill(out: *mut Buffer, bytes: Vec<u8>) {
    if out.is_null() {
        return; // nowhere to put it: dropping it here frees it
    }
    if bytes.is_empty() {
        *out = Buffer::empty(); // {NULL, 0}: nothing for the host to free
        return;
    }
    let boxed: Box<[u8]> = bytes.into_boxed_slice();
    let length = boxed.len();
    *out = Buffer { data: Box::into_raw(boxed) as *mut u8, length };
}

/// What a panic says, for the error's message.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

/// Runs `body` for a function that answers in `out`: its bytes on success (TESSERA_OK), its
/// error as JSON otherwise (TESSERA_ERROR); a panic becomes an "internal" error.
///
/// # Safety
/// `out` is NULL or points at a writable tessera_buffer_t.
unsafe fn answer<F>(out: *mut Buffer, body: F) -> i32
where
    F: FnOnce() -> Result<Vec<u8>, PluginError>,
{
    if !out.is_null() {
        *out = Buffer::empty(); // an out-parameter: whatever the host left in it is not ours to free
    }
    // AssertUnwindSafe: after a panic the instance's state is still three consistent values
    // (notes.rs recovers its Mutex), and nothing else outlives the call.
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        Err(PluginError::internal(&format!("The plugin failed unexpectedly: {}.", panic_message(&*payload))))
    });
    match outcome {
        Ok(bytes) => {
            fill(out, bytes);
            OK
        }
        Err(error) => {
            fill(out, error.to_json().to_json().into_bytes());
            ERROR
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The table's functions

unsafe extern "C" fn plugin_create(host: *const HostApi, host_context: *mut c_void) -> *mut c_void {
    let made = catch_unwind(|| {
        // SAFETY: the ABI promises `host` valid until destroy; FfiHost::new honours its size.
        match FfiHost::new(host, host_context) {
            Some(host) => Box::into_raw(Box::new(Instance { host, notes: Notes::new() })) as *mut c_void,
            None => ptr::null_mut(), // no call or free_buffer: "NULL if it cannot"
        }
    });
    made.unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn plugin_start(instance_ptr: *mut c_void, config: *const u8, config_length: usize, result: *mut Buffer) -> i32 {
    answer(result, || {
        let instance = instance(instance_ptr)?;
        let config = borrowed(config, config_length);
        Ok(instance.notes.start(&instance.host, config)?.to_json().into_bytes())
    })
}

unsafe extern "C" fn plugin_handle(
    instance_ptr: *mut c_void,
    operation: *const c_char,
    call: *const u8,
    call_length: usize,
    result: *mut Buffer,
) -> i32 {
    answer(result, || {
        let instance = instance(instance_ptr)?;
        let operation = borrowed_name(operation);
        let call = borrowed(call, call_length);
        Ok(instance.notes.handle(&instance.host, &operation, call)?.to_json().into_bytes())
    })
}

unsafe extern "C" fn plugin_receive(
    instance_ptr: *mut c_void,
    kind: *const c_char,
    payload: *const u8,
    payload_length: usize,
    result: *mut Buffer,
) -> i32 {
    answer(result, || {
        let instance = instance(instance_ptr)?;
        let kind = borrowed_name(kind);
        let payload = borrowed(payload, payload_length);
        Ok(match instance.notes.receive(&instance.host, &kind, payload)? {
            Some(value) => value.to_json().into_bytes(),
            None => Vec::new(), // TESSERA_OK with an empty result
        })
    })
}

unsafe extern "C" fn plugin_export_state(instance_ptr: *mut c_void, schema: *mut u32, state: *mut Buffer) -> i32 {
    // On TESSERA_ERROR the error goes in `state`, the only buffer there is.
    answer(state, || {
        let instance = instance(instance_ptr)?;
        let (layout, bytes) = instance.notes.export_state();
        if !schema.is_null() {
            *schema = layout;
        }
        Ok(bytes)
    })
}

unsafe extern "C" fn plugin_import_state(
    instance_ptr: *mut c_void,
    schema: u32,
    state: *const u8,
    state_length: usize,
    result: *mut Buffer,
) -> i32 {
    answer(result, || {
        let instance = instance(instance_ptr)?;
        instance.notes.import_state(schema, borrowed(state, state_length))?;
        Ok(Vec::new())
    })
}

unsafe extern "C" fn plugin_stop(_instance: *mut c_void) {
    // Nothing runs in the background and every write is already the host's: nothing to stop (and
    // an empty body cannot panic, so it needs no catch_unwind).
}

unsafe extern "C" fn plugin_destroy(instance: *mut c_void) {
    if instance.is_null() {
        return;
    }
    // A panic in a destructor must not unwind into the host either; there is no one to tell.
    let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(instance as *mut Instance))));
}

unsafe extern "C" fn plugin_free_buffer(buffer: *mut Buffer) {
    if buffer.is_null() || (*buffer).data.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: {data, length} came from `fill`, which made it from a Box<[u8]> of that length.
        let slice = ptr::slice_from_raw_parts_mut((*buffer).data, (*buffer).length);
        drop(Box::from_raw(slice));
    }));
    *buffer = Buffer::empty();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let mut out = Buffer::empty();
        let status = unsafe { answer(&mut out, || -> Result<Vec<u8>, PluginError> { panic!("boom") }) };
        assert_eq!(status, ERROR);
        let text = unsafe { std::slice::from_raw_parts(out.data, out.length) }.to_vec();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            r#"{"code":"internal","message":"The plugin failed unexpectedly: boom."}"#
        );
        unsafe { plugin_free_buffer(&mut out) };
        assert!(out.data.is_null() && out.length == 0);
    }

    #[test]
    fn entry_checks_the_major() {
        assert!(tessera_c_plugin_entry(2, 0).is_null());
        let api = unsafe { &*tessera_c_plugin_entry(1, 0) };
        assert_eq!(api.magic, C_PLUGIN_MAGIC);
        let id = unsafe { CStr::from_ptr(api.plugin_id) }.to_str().unwrap();
        assert_eq!(id, "dev.tessera.rust-notes");
        let migrations = unsafe { CStr::from_ptr(api.migrations) }.to_str().unwrap();
        assert_eq!(
            migrations,
            "[{\"version\": 1, \"sql\": \"CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, created_at TEXT NOT NULL); CREATE TABLE reminders (id TEXT PRIMARY KEY, text TEXT NOT NULL, due_at TEXT NOT NULL, fired_at TEXT);\"}]"
        );
    }
}
