import CTesseraCrash

/// What the host says when an in-process plugin crashes it (issue 43): the plugin whose code was
/// on the crashing thread's stack and the signal, at once, on standard output and standard error;
/// then the process ends with that signal, so that a supervisor restarts it. Swift's own
/// backtracer, which these handlers replace in `tessera serve` and `tessera dev`, spent about 24 s
/// symbolicating a debug build while the host still accepted connections.
public enum CrashReport {
    /// Installs the handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGABRT. Test
    /// processes keep Swift's backtracer (its trace is what a failing test needs).
    public static func installHandlers() { tessera_crash_install_handlers() }

    /// Remembers that the library dlopen'ed at `path` is `pluginID`'s code.
    static func register(library path: String, pluginID: String) {
        _ = tessera_crash_register_library(path, pluginID)
    }
}
