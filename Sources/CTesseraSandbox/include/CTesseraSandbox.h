// The process tier's sandbox (docs/isolation.md, "The sandbox"): applied by a constructor of
// tessera-plugin-runner before its main runs, while the process still has one thread, so every
// thread the Swift runtime starts later inherits it. Swift reads what was applied from here.
#ifndef CTESSERA_SANDBOX_H
#define CTESSERA_SANDBOX_H

/// What the constructor applied in this process. Each field is 1 when enforced, 0 when the kernel
/// or the privileges lacked it (then `warnings` says why), -1 when not asked for.
typedef struct {
    int applied;           ///< 1 when this process was started as a sandboxed `serve` or `verify` child
    int landlockABI;       ///< the kernel's Landlock ABI version, 0 when it has none
    int landlockFiles;     ///< file system fenced by Landlock
    int landlockTCP;       ///< TCP bind/connect denied by Landlock (ABI 4+)
    int landlockScopes;    ///< abstract Unix sockets and signals scoped to the child (ABI 6+)
    int networkNamespace;  ///< a new, empty network namespace
    int seccomp;           ///< the seccomp filter (socket families other than AF_UNIX, ptrace, exec, io_uring)
    int capabilities;      ///< every capability dropped
    int memoryLimit;       ///< RLIMIT_DATA set
    int cpuLimit;          ///< RLIMIT_CPU set
    char warnings[2048];   ///< one line per mechanism that could not be applied
} tessera_sandbox_report;

/// The report of this process's sandbox (all zero when no sandbox was asked for).
const tessera_sandbox_report *tessera_sandbox_get_report(void);

/// The exit status of a child that died at its memory limit (the host names the limit as the cause).
#define TESSERA_EXIT_MEMORY_LIMIT 86

/// Installs handlers for the fatal signals (SIGABRT, SIGTRAP, SIGILL, SIGSEGV, SIGBUS) that end the
/// process with TESSERA_EXIT_MEMORY_LIMIT when its data usage is at the memory limit (a failed
/// allocation is why it died), and otherwise pass the signal on unchanged. Called from main, after
/// the Swift runtime installed its own handlers. Does nothing without a memory limit.
void tessera_sandbox_report_memory_limit_deaths(void);

#endif
