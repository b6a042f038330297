/// Where a plugin is in its life. Every state off the happy path carries a reason.
///
/// `discovered → validated → loaded → resolved → starting → active → draining → stopped`, plus
/// `rejected` (a gate or a check failed), `failed` (start threw), `quarantined` (crash loop),
/// `disabled` (by the operator), `standby` (a new generation started but not yet serving, during a
/// swap) and `retired` (replaced; its image stays mapped).
public enum LifecycleState: String, Sendable, Hashable, CaseIterable, Codable {
    case discovered, validated, loaded, resolved, starting, active, draining, stopped
    case rejected, failed, quarantined, disabled, standby, retired

    /// Whether the state is off the happy path and so must carry a reason.
    public var needsReason: Bool {
        switch self {
        case .rejected, .failed, .quarantined, .disabled: return true
        default: return false
        }
    }
}
