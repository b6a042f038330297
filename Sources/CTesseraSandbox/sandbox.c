// The process tier's sandbox, applied before tessera-plugin-runner's main (see the header).
// Only what the Linux kernel offers: setrlimit, unshare(CLONE_NEWNET), Landlock, seccomp-bpf.
// Each mechanism falls back to a warning line when the kernel or the privileges lack it.
//
// Arguments read from the runner's command line (`serve ... --library PATH [--data DIR]
// [--memory-limit BYTES] [--cpu-limit SECONDS]`); the host passes them (ChildSandbox.swift).
#define _GNU_SOURCE
#include "CTesseraSandbox.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static tessera_sandbox_report report;

const tessera_sandbox_report *tessera_sandbox_get_report(void) { return &report; }

static void warn(const char *what, int err) {
    size_t used = strlen(report.warnings);
    snprintf(report.warnings + used, sizeof report.warnings - used, "%s: %s\n", what, strerror(err));
}

// MARK: Landlock (the kernel's uapi, declared here: the system header may predate ABI 4-6)

struct ll_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
struct ll_path_beneath_attr { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_ALL_V1 ((1ULL << 13) - 1)
#define LL_FS_REFER (1ULL << 13)
#define LL_FS_TRUNCATE (1ULL << 14)
#define LL_FS_IOCTL_DEV (1ULL << 15)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)
#define LL_READ (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

static int landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

/// Allows `access` beneath `path` (or on it, for a file); a path that does not exist is skipped.
static void allow(int ruleset, const char *path, uint64_t access, uint64_t handled) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= LL_FILE_RIGHTS;
    struct ll_path_beneath_attr rule = { .allowed_access = access & handled, .parent_fd = fd };
    syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
}

/// True when `dir` is `data` or one of its ancestors: allowing it would open the host's data.
static int contains(const char *dir, const char *data) {
    if (!data) return 0;
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return 1;
    return strncmp(dir, data, n) == 0 && (data[n] == '/' || data[n] == 0);
}

/// The folders of every file mapped now (the runtime's libraries, the runner itself): read and
/// execute, so a library the plugin needs beside them still loads. None that holds `data`.
static void allow_mapped_folders(int ruleset, uint64_t handled, const char *data) {
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps) return;
    char line[4096], last[4096] = "";
    while (fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (!path) continue;
        path[strcspn(path, "\n")] = 0;
        char *slash = strrchr(path, '/');
        if (slash == path) continue;
        *slash = 0;
        if (strcmp(path, last) == 0) continue;
        snprintf(last, sizeof last, "%s", path);
        if (contains(path, data)) { warn("landlock: a library folder holds the data directory, not opened", EPERM); continue; }
        allow(ruleset, path, LL_READ | LL_FS_EXECUTE, handled);
    }
    fclose(maps);
}

static void apply_landlock(const char *library, const char *data) {
    int abi = report.landlockABI = landlock_abi();
    if (abi < 1) { warn("landlock: not offered by this kernel; files are not fenced", errno ? errno : ENOSYS); return; }
    uint64_t fs = LL_FS_ALL_V1 | (abi >= 2 ? LL_FS_REFER : 0) | (abi >= 3 ? LL_FS_TRUNCATE : 0) | (abi >= 5 ? LL_FS_IOCTL_DEV : 0);
    struct ll_ruleset_attr attr = {
        .handled_access_fs = fs,
        .handled_access_net = abi >= 4 ? (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) : 0,
        .scoped = abi >= 6 ? (LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL) : 0,
    };
    size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? offsetof(struct ll_ruleset_attr, scoped) : sizeof(uint64_t);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) { warn("landlock: create_ruleset", errno); return; }
    // The plugin's own staged library: read and map it executable, nothing else in its folder.
    allow(ruleset, library, LL_FS_READ_FILE | LL_FS_EXECUTE, fs);
    allow_mapped_folders(ruleset, fs, data);
    // What the dynamic loader, the C library and Foundation read. /proc as a whole, because
    // libdispatch's pool monitor reads /proc/<thread id>/stat (not beneath /proc/self) and traps
    // when it cannot; other processes' sensitive files there (environ, mem, maps, fd, root) are
    // ptrace-gated, which Landlock refuses for any process outside the child's domain.
    const char *readable[] = { "/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo", "/usr/lib/locale",
                               "/dev/urandom", "/proc", "/sys/devices/system/cpu" };
    for (size_t i = 0; i < sizeof readable / sizeof *readable; i++) allow(ruleset, readable[i], LL_READ, fs);
    allow(ruleset, "/dev/null", LL_READ | LL_FS_WRITE_FILE, fs);
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) { warn("landlock: restrict_self", errno); close(ruleset); return; }
    close(ruleset);
    report.landlockFiles = 1;
    report.landlockTCP = abi >= 4;
    report.landlockScopes = abi >= 6;
    if (abi < 4) warn("landlock: ABI below 4, TCP is not fenced by Landlock", ENOSYS);
}

// MARK: Network namespace

static void apply_network_namespace(void) {
    if (unshare(CLONE_NEWNET) == 0) { report.networkNamespace = 1; return; }
    int first = errno;
    // Without CAP_SYS_ADMIN, a user namespace of its own may still be allowed to hold one.
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) { report.networkNamespace = 1; return; }
    warn("network namespace: unshare(CLONE_NEWNET)", first);
}

// MARK: Capabilities

/// Drops every capability (effective, permitted, inheritable; the ambient set follows). Root
/// without CAP_SYS_PTRACE cannot read a non-dumpable process's /proc files (the host makes itself
/// non-dumpable: ChildSandbox.swift), nor override file permissions.
static void drop_capabilities(void) {
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct none[2] = {{0, 0, 0}, {0, 0, 0}};
    if (syscall(SYS_capset, &header, none) == 0) { report.capabilities = 1; return; }
    warn("capabilities: capset", errno);
}

// MARK: seccomp

#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define DENY(nr, err) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err))

static void apply_seccomp(void) {
#ifdef SANDBOX_AUDIT_ARCH
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        // socket and socketpair: only AF_UNIX (the host's socket is one; nothing else is needed).
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socketpair, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        DENY(__NR_ptrace, EPERM),
        DENY(__NR_process_vm_readv, EPERM),
        DENY(__NR_process_vm_writev, EPERM),
        DENY(__NR_execve, EPERM),
        DENY(__NR_execveat, EPERM),
#ifdef __NR_io_uring_setup
        DENY(__NR_io_uring_setup, ENOSYS),
#endif
        // No new process (issue 43: a forked child kept the host socket and outlived quarantine):
        // fork and vfork refused; clone3, whose flags seccomp cannot read, ENOSYS, so glibc falls
        // back to clone; clone only with CLONE_THREAD, which threads have and processes do not.
#ifdef __NR_fork
        DENY(__NR_fork, EPERM),
#endif
#ifdef __NR_vfork
        DENY(__NR_vfork, EPERM),
#endif
#ifdef __NR_clone3
        DENY(__NR_clone3, ENOSYS),
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = { .len = sizeof filter / sizeof *filter, .filter = filter };
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) { warn("seccomp: PR_SET_SECCOMP", errno); return; }
    report.seccomp = 1;
#else
    warn("seccomp: no filter for this architecture", ENOSYS);
#endif
}

// MARK: Limits

static void apply_limit(int resource, unsigned long long value, int *flag, const char *what) {
    // The CPU limit's hard value is one second above the soft one: SIGXCPU first, which names the cause.
    struct rlimit limit = { .rlim_cur = value, .rlim_max = resource == RLIMIT_CPU ? value + 1 : value };
    if (setrlimit(resource, &limit) == 0) { *flag = 1; return; }
    *flag = 0;
    warn(what, errno);
}

// MARK: Naming a death at the memory limit

static unsigned long long memory_limit_bytes;
static const int fatal_signals[] = { SIGABRT, SIGTRAP, SIGILL, SIGSEGV, SIGBUS };
static struct sigaction previous[sizeof fatal_signals / sizeof *fatal_signals];

/// The data segment's size now, from /proc/self/statm (field 6, pages): open, read and close
/// are async-signal-safe.
static unsigned long long data_bytes(void) {
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[256];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    char *p = text;
    for (int field = 0; field < 5 && p; field++) { p = strchr(p, ' '); if (p) p++; }
    if (!p) return 0;
    unsigned long long pages = 0;
    for (; *p >= '0' && *p <= '9'; p++) pages = pages * 10 + (unsigned long long)(*p - '0');
    return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

static void on_fatal_signal(int sig) {
    // Within an eighth of the limit (at least 8 MiB): an allocation failed for want of room.
    unsigned long long headroom = memory_limit_bytes / 8 > (8ULL << 20) ? memory_limit_bytes / 8 : (8ULL << 20);
    if (data_bytes() + headroom >= memory_limit_bytes) _exit(TESSERA_EXIT_MEMORY_LIMIT);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        if (fatal_signals[i] == sig) sigaction(sig, &previous[i], NULL);
    raise(sig);
}

void tessera_sandbox_report_memory_limit_deaths(void) {
    struct rlimit limit;
    if (report.memoryLimit != 1 || getrlimit(RLIMIT_DATA, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
    memory_limit_bytes = limit.rlim_cur;
    struct sigaction action = { .sa_handler = on_fatal_signal, .sa_flags = SA_NODEFER };
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) sigaction(fatal_signals[i], &action, &previous[i]);
}

// MARK: The constructor

static const char *argument(int argc, char **argv, const char *name) {
    for (int i = 1; i + 1 < argc; i++) if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return NULL;
}

__attribute__((constructor)) static void tessera_sandbox_apply(int argc, char **argv, char **envp) {
    (void)envp;
    report.memoryLimit = report.cpuLimit = -1;
    const char *library = NULL;
    // `verify PATH` (`tessera plugins verify --load`) loads a library only to check it: the same
    // sandbox as a serving child (issue 43), with no data directory and no limits.
    if (argc >= 3 && strcmp(argv[1], "verify") == 0) library = argv[2];
    else if (argc >= 2 && strcmp(argv[1], "serve") == 0) library = argument(argc, argv, "--library");
    if (!library) return;
    report.applied = 1;
    const char *memory = argument(argc, argv, "--memory-limit"), *cpu = argument(argc, argv, "--cpu-limit");
    if (memory) apply_limit(RLIMIT_DATA, strtoull(memory, NULL, 10), &report.memoryLimit, "memory limit: setrlimit(RLIMIT_DATA)");
    if (cpu) apply_limit(RLIMIT_CPU, strtoull(cpu, NULL, 10), &report.cpuLimit, "CPU limit: setrlimit(RLIMIT_CPU)");
    apply_network_namespace();
    drop_capabilities();
    // Landlock and seccomp need no_new_privs without CAP_SYS_ADMIN; it is right in any case.
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) warn("no_new_privs", errno);
    apply_landlock(library, argument(argc, argv, "--data"));
    apply_seccomp();
}
