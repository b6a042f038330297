import Synchronization

/// The host's plugins by id, in the order they were listed.
final class SlotRegistry: Sendable {
    private let table = Mutex<(slots: [String: PluginSlot], order: [String])>(([:], []))

    subscript(id: String) -> PluginSlot? { table.withLock { $0.slots[id] } }

    /// The slot for `id`, made if absent.
    func slot(for id: String) -> PluginSlot {
        table.withLock { t in
            if let existing = t.slots[id] { return existing }
            let slot = PluginSlot(id: id)
            t.slots[id] = slot
            t.order.append(id)
            return slot
        }
    }

    var all: [PluginSlot] { table.withLock { t in t.order.compactMap { t.slots[$0] } } }
}
