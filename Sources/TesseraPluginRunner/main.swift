// tessera-plugin-runner: the child process of the process tier (docs/isolation.md). The host
// starts it; it loads one plugin library and answers the host over the socket on fd 3.
// By the time this runs, CTesseraSandbox's constructor has fenced the process (`serve --library`).
import CTesseraSandbox
import TesseraIsolation

tessera_sandbox_report_memory_limit_deaths()
await PluginRunner.main(CommandLine.arguments, sandbox: sandboxReport())

/// What the constructor applied, as the host's log and `GET /v1/plugins` show it.
func sandboxReport() -> SandboxReport {
    let r = tessera_sandbox_get_report().pointee
    let warnings = withUnsafeBytes(of: r.warnings) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    func state(_ v: Int32) -> SandboxReport.State { v > 0 ? .enforced : v == 0 ? .missing : .notAsked }
    return SandboxReport(applied: r.applied == 1, landlockABI: Int(r.landlockABI), mechanisms: [
        "landlock.files": state(r.landlockFiles), "landlock.tcp": state(r.landlockTCP), "landlock.scopes": state(r.landlockScopes),
        "networkNamespace": state(r.networkNamespace), "seccomp": state(r.seccomp), "capabilities": state(r.capabilities),
        "memoryLimit": state(r.memoryLimit), "cpuLimit": state(r.cpuLimit),
    ], warnings: warnings.split(separator: "\n").map(String.init))
}
