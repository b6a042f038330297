import TesseraSDK
import TesseraSafeTravel

// The one symbol the host looks up, in a target of its own (see Plugins/Hello/Entry).

/// Hands the host a factory for this plugin.
@_cdecl("tessera_plugin_entry")
public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    PluginExport.descriptor(id: "cz.tessera.safetravel") { SafeTravelPlugin() }
}
