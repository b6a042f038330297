// What the host says when an in-process plugin crashes it (issue 43, docs/isolation.md): the
// plugin whose code was running and the signal, at once, and then the process ends with that
// signal so that its supervisor restarts it. Without this, Swift's backtracer spent about 24 s
// symbolicating while the host still accepted connections.
#ifndef CTESSERA_CRASH_H
#define CTESSERA_CRASH_H

/// Remembers that the shared object at `path` (as dlopen'ed) is plugin `pluginID`'s code: its
/// mapped address ranges are looked up now. Returns 1 when the library was found mapped, 0 when
/// not (or when the table of 128 libraries is full). Safe to call from any thread.
int tessera_crash_register_library(const char *path, const char *pluginID);

/// Installs the host's handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGABRT (in place
/// of Swift's backtracer). Each writes one line to standard output and standard error naming the
/// plugin whose code was on the crashing thread's stack, then ends the process with the signal.
void tessera_crash_install_handlers(void);

#endif
