import ArgumentParser

/// The `tessera` command.
///
/// Every command names itself (`commandName`), although ArgumentParser would derive the same name
/// from the type's: deriving it calls `String(describing:)` on the type, and each of those asks the
/// Swift runtime whether the type conforms to three printing protocols, a scan of every protocol
/// conformance in this executable. For the fifty commands of the tree, built on every start, that
/// was nearly half of what `tessera --version` cost: 29 ms before, 16 ms after (docs/benchmarks.md).
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "A plugin host for personal-app modules.",
        discussion: """
            Exit codes: 0 success; 1 the command or operation failed; 2 invalid input; 3 not found; \
            4 forbidden or not granted; 5 plugin not active; 6 invalid deployment or manifest; 7 the plugin's \
            process crashed during the call; 8 the call ran past its deadline; 9 a running host serves the data \
            directory (ask it: --running, --token); 10 no host answers at the URL (swap, restart, reload, list --running); \
            64 usage error.
            """,
        version: "0.1.0",
        subcommands: [Serve.self, Reload.self, Backup.self, Restore.self, Plugins.self, Call.self, Clock.self, Notifications.self, Events.self, Location.self, Token.self, Account.self, Secrets.self, Hub.self, Sync.self, NewPlugin.self, Dev.self, SDK.self]
    )
}
