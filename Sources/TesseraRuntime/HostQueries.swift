import TesseraManifest

/// Read-only questions about the host's plugins, for the edges that describe them (the HTTP API's
/// OpenAPI document). Everything here comes from manifests: no plugin code runs to answer.
extension PluginHost {
    /// The manifest plugin `id` was read from, once the host found it valid; `nil` for an unknown id
    /// or a manifest that was refused.
    public func manifest(of id: String) -> PluginManifest? {
        registry[id]?.withState { $0.manifest }
    }

    /// The manifests of the plugins the deployment enables, in listing order. A plugin that is
    /// enabled but did not reach `active` is included: its operations exist, and a call says why it
    /// is unavailable.
    public func enabledManifests() -> [PluginManifest] {
        registry.all.compactMap { slot in
            guard deployment.entry(for: slot.id)?.enabled == true else { return nil }
            return slot.withState { $0.manifest }
        }
    }
}
