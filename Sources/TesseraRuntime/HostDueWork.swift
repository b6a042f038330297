import TesseraClock

extension PluginHost {
    /// Adds work that falls due on the host's clock to its timer loop (the same loop as plugin
    /// timers: the system clock runs it on time, a virtual clock when advanced). A hub adds its
    /// file collector this way (docs/hub.md, "Files").
    public func addDueWork(_ work: any DueWork) {
        timers.add(work)
        timers.wakeup.kick()
    }
}
