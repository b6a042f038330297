//! Rust mirrors of the C ABI's types (sdk/Sources/CTesseraABI/include/tessera_plugin.h and
//! tessera_abi.h), field for field, and the stamp record the host reads from the file. Only the
//! layout lives here; what the functions do is in lib.rs and host.rs.
//!
//! `std::os::raw` rather than `std::ffi` for `c_char`: `std::ffi::c_char` arrived in Rust 1.64,
//! and this crate builds with Debian's 1.63.

use std::mem::size_of;
use std::os::raw::{c_char, c_void};

/// TESSERA_C_ABI_MAJOR / MINOR: the C ABI version this plugin is built against.
pub const C_ABI_MAJOR: u32 = 1;
pub const C_ABI_MINOR: u32 = 0;
/// TESSERA_C_PLUGIN_MAGIC, 'TSSC' little-endian.
pub const C_PLUGIN_MAGIC: u32 = 0x4353_5354;
/// TESSERA_STAMP_MAGIC, 'TSST' little-endian.
pub const STAMP_MAGIC: u32 = 0x5453_5354;
/// TESSERA_TOOLCHAIN_MAX.
pub const TOOLCHAIN_MAX: usize = 120;

/// TESSERA_OK / TESSERA_ERROR.
pub const OK: i32 = 0;
pub const ERROR: i32 = 1;

/// tessera_stamp_t.
#[repr(C)]
pub struct Stamp {
    pub magic: u32,
    pub size: u32,
    pub sdk_abi_major: u32,
    pub sdk_abi_minor: u32,
    pub toolchain: [u8; TOOLCHAIN_MAX],
    pub reserved: [u32; 4],
}

/// The stamp, as TESSERA_C_PLUGIN_STAMP writes it in C: no compiler named (empty toolchain), SDK
/// ABI 0.0, the C ABI version in reserved[0] and [1]. The host reads it from the ELF section
/// "tessera_stamp" before it loads the library (gate 1). `#[used]` keeps rustc from dropping a
/// static nothing references; lib.rs's entry also reads it, so the linker keeps the section too.
#[used]
#[link_section = "tessera_stamp"]
pub static STAMP: Stamp = Stamp {
    magic: STAMP_MAGIC,
    size: size_of::<Stamp>() as u32,
    sdk_abi_major: 0,
    sdk_abi_minor: 0,
    toolchain: [0; TOOLCHAIN_MAX],
    reserved: [C_ABI_MAJOR, C_ABI_MINOR, 0, 0],
};

/// tessera_buffer_t: bytes owned by whichever side filled them.
#[repr(C)]
pub struct Buffer {
    pub data: *mut u8,
    pub length: usize,
}

impl Buffer {
    pub const fn empty() -> Buffer {
        Buffer { data: std::ptr::null_mut(), length: 0 }
    }
}

/// The host's `call`: method, params (JSON), result out-parameter.
pub type HostCallFn =
    unsafe extern "C" fn(host_context: *mut c_void, method: *const c_char, params: *const u8, params_length: usize, result: *mut Buffer) -> i32;
/// The host's `free_buffer`.
pub type HostFreeFn = unsafe extern "C" fn(buffer: *mut Buffer);
/// The host's `log`.
pub type HostLogFn = unsafe extern "C" fn(host_context: *mut c_void, level: i32, message: *const u8, length: usize);

/// tessera_host_api_t. Function pointers are `Option`s: a C function pointer may be NULL, and
/// `Option<extern fn>` has exactly its layout, with NULL as `None`.
#[repr(C)]
pub struct HostApi {
    pub size: u32,
    pub c_abi_major: u32,
    pub c_abi_minor: u32,
    pub protocol_version: u32,
    pub host_version: *const c_char,
    pub call: Option<HostCallFn>,
    pub free_buffer: Option<HostFreeFn>,
    pub log: Option<HostLogFn>,
    pub reserved: [*mut c_void; 8],
}

/// tessera_plugin_api_t.
#[repr(C)]
pub struct PluginApi {
    pub size: u32,
    pub magic: u32,
    pub c_abi_major: u32,
    pub c_abi_minor: u32,
    pub plugin_id: *const c_char,
    pub migrations: *const c_char,
    pub create: unsafe extern "C" fn(host: *const HostApi, host_context: *mut c_void) -> *mut c_void,
    pub start: unsafe extern "C" fn(instance: *mut c_void, config: *const u8, config_length: usize, result: *mut Buffer) -> i32,
    pub handle: unsafe extern "C" fn(
        instance: *mut c_void,
        operation: *const c_char,
        call: *const u8,
        call_length: usize,
        result: *mut Buffer,
    ) -> i32,
    pub receive: unsafe extern "C" fn(
        instance: *mut c_void,
        kind: *const c_char,
        payload: *const u8,
        payload_length: usize,
        result: *mut Buffer,
    ) -> i32,
    pub export_state: unsafe extern "C" fn(instance: *mut c_void, schema: *mut u32, state: *mut Buffer) -> i32,
    pub import_state:
        unsafe extern "C" fn(instance: *mut c_void, schema: u32, state: *const u8, state_length: usize, result: *mut Buffer) -> i32,
    pub stop: unsafe extern "C" fn(instance: *mut c_void),
    pub destroy: unsafe extern "C" fn(instance: *mut c_void),
    pub free_buffer: unsafe extern "C" fn(buffer: *mut Buffer),
    pub reserved: [*mut c_void; 8],
}

/// The table is a static the host reads from any thread; its raw pointers point at constant
/// strings and functions, never written after the build, so sharing it is sound.
#[repr(transparent)]
pub struct SharedPluginApi(pub PluginApi);
unsafe impl Sync for SharedPluginApi {}

// The sizes the C compiler gives these structs on a 64-bit target (LP64); a mismatch stops the
// build rather than a host. Offsets are checked against the header by the C harness as well.
const _: () = assert!(size_of::<Stamp>() == 152);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<Buffer>() == 16);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<HostApi>() == 112);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<PluginApi>() == 168);
