// The host's fatal-signal handlers (CTesseraCrash.h). Only async-signal-safe calls run in the
// handler: the table of plugin libraries is filled before any crash, read without locks (entries
// are published by an atomic count), and the stack is walked by its frame pointers (Swift keeps
// them on Linux), each read checked to lie in a mapped plugin range or to move up the stack.
#define _GNU_SOURCE
#include "CTesseraCrash.h"

#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_LIBRARIES 128
#define MAX_RANGES 8
#define MAX_FRAMES 256

typedef struct {
    uintptr_t low[MAX_RANGES], high[MAX_RANGES];
    int ranges;
    char id[256];
} library_entry;

static library_entry libraries[MAX_LIBRARIES];
static atomic_int library_count;

typedef struct {
    const char *path;
    library_entry *entry;
} lookup;

static int collect_ranges(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    lookup *wanted = data;
    if (!info->dlpi_name || strcmp(info->dlpi_name, wanted->path) != 0) return 0;
    for (int i = 0; i < info->dlpi_phnum && wanted->entry->ranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_X)) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        wanted->entry->low[wanted->entry->ranges] = start;
        wanted->entry->high[wanted->entry->ranges] = start + segment->p_memsz;
        wanted->entry->ranges++;
    }
    return 1;
}

int tessera_crash_register_library(const char *path, const char *pluginID) {
    static atomic_flag writing = ATOMIC_FLAG_INIT;
    while (atomic_flag_test_and_set(&writing)) {}
    int index = atomic_load(&library_count);
    int found = 0;
    if (index < MAX_LIBRARIES) {
        library_entry *entry = &libraries[index];
        memset(entry, 0, sizeof *entry);
        strncpy(entry->id, pluginID, sizeof entry->id - 1);
        lookup wanted = { path, entry };
        dl_iterate_phdr(collect_ranges, &wanted);
        if (entry->ranges > 0) {
            atomic_store(&library_count, index + 1);  // published whole: a handler reads it only after
            found = 1;
        }
    }
    atomic_flag_clear(&writing);
    return found;
}

/// The plugin whose code holds `address`, or NULL.
static const char *plugin_at(uintptr_t address) {
    int count = atomic_load(&library_count);
    for (int i = 0; i < count; i++) {
        for (int r = 0; r < libraries[i].ranges; r++) {
            if (address >= libraries[i].low[r] && address < libraries[i].high[r]) return libraries[i].id;
        }
    }
    return NULL;
}

/// The first plugin found on the stack: the faulting instruction, then each return address.
static const char *crashing_plugin(const ucontext_t *context) {
#if defined(__x86_64__)
    uintptr_t pc = (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
    uintptr_t frame = (uintptr_t)context->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
    uintptr_t pc = (uintptr_t)context->uc_mcontext.pc;
    uintptr_t frame = (uintptr_t)context->uc_mcontext.regs[29];
#else
    uintptr_t pc = 0, frame = 0;
#endif
    const char *plugin = plugin_at(pc);
    for (int depth = 0; !plugin && depth < MAX_FRAMES && frame != 0 && (frame & 7) == 0; depth++) {
        uintptr_t *record = (uintptr_t *)frame;
        uintptr_t next = record[0], returnAddress = record[1];
        plugin = plugin_at(returnAddress);
        if (next <= frame || next - frame > (1u << 24)) break;  // a frame chain only moves up the stack
        frame = next;
    }
    return plugin;
}

static const char *signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    default: return "a fatal signal";
    }
}

static void say(const char *text) {
    size_t length = strlen(text);
    (void)!write(STDOUT_FILENO, text, length);
    (void)!write(STDERR_FILENO, text, length);
}

static void append(char *line, size_t size, const char *text) {
    size_t used = strlen(line);
    if (used + 1 >= size) return;
    strncat(line, text, size - used - 1);
}

static void crashed(int sig, siginfo_t *info, void *raw) {
    (void)info;
    const char *plugin = crashing_plugin((const ucontext_t *)raw);
    char line[640] = "tessera: ";
    char number[8] = {0};
    int n = sig, at = 0;
    char digits[8];
    do { digits[at++] = (char)('0' + n % 10); n /= 10; } while (n > 0 && at < 7);
    for (int i = 0; i < at; i++) number[i] = digits[at - 1 - i];
    if (plugin) {
        append(line, sizeof line, "plugin '");
        append(line, sizeof line, plugin);
        append(line, sizeof line, "' crashed the host (");
    } else {
        append(line, sizeof line, "the host crashed (");
    }
    append(line, sizeof line, signal_name(sig));
    append(line, sizeof line, ", signal ");
    append(line, sizeof line, number);
    append(line, sizeof line, plugin ? ") in its own code, in the host's process; the host ends now so that its supervisor restarts it."
                                       " Run plugins you did not write in the process tier.\n"
                                     : ") outside any plugin's code; the host ends now so that its supervisor restarts it.\n");
    say(line);
    // The signal's own end: the exit status says it, and a core file is written where enabled.
    signal(sig, SIG_DFL);
    raise(sig);
}

void tessera_crash_install_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = crashed;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT };
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &action, NULL);
}
