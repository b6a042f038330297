import TesseraHello
import TesseraSDK

// The one symbol the host looks up, in a target of its own: a test binary links the plugin's
// module (and other plugins' modules) but not this, so no two `tessera_plugin_entry` meet there.

/// Hands the host a factory for this plugin.
@_cdecl("tessera_plugin_entry")
public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    PluginExport.descriptor(id: "dev.tessera.hello") { HelloPlugin() }
}
