// One scratch folder per test process, removed when the process ends.
//
// Why: the tests make hundreds of temporary folders (data directories, a PostgreSQL cluster,
// plugin builds, browser profiles), many from child processes. Removing each in its own test
// misses every one a failing or killed test leaves, and those filled a shared disk until a CI
// run failed with "No space left on device". Pointing TMPDIR at one folder per process catches
// them all, including the children's (they inherit TMPDIR), and one removal frees them.
//
// This runs as a constructor, before Swift Testing or XCTest start, because NSTemporaryDirectory()
// and every child process read TMPDIR. The folder holds `.lock` with an flock for the process's
// whole life; a later run removes any scratch folder whose lock it can take (its process is gone:
// killed, timed out, crashed), so a killed run's files do not outlive the next run.
#define _GNU_SOURCE
#include "CTestScratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static char scratch_root[4096];
static int scratch_ready = 0;
static pid_t scratch_owner = 0;
static unsigned long long removed_bytes = 0;

static const char prefix[] = "tessera-tests-";

const char *tessera_test_scratch_root(void) { return scratch_ready ? scratch_root : NULL; }

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw) {
    (void)flag; (void)ftw;
    if (!S_ISDIR(info->st_mode)) removed_bytes += (unsigned long long)info->st_blocks * 512ULL;
    remove(path);
    return 0;  // keep going: remove what can be removed
}

static void remove_tree(const char *path) {
    nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS);
}

int tessera_test_sweep_stale(const char *base) {
    int removed = 0;
    DIR *dir = opendir(base);
    if (!dir) return 0;
    struct dirent *entry;
    char path[4096], lock[4200];
    while ((entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, prefix, sizeof prefix - 1) != 0) continue;
        snprintf(path, sizeof path, "%s/%s", base, entry->d_name);
        snprintf(lock, sizeof lock, "%s/.lock", path);
        int fd = open(lock, O_RDWR | O_CLOEXEC);
        if (fd < 0) continue;  // being made right now, or not ours
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            unsigned long long before = removed_bytes;
            remove_tree(path);
            removed++;
            fprintf(stderr, "test scratch: removed %s, left by an earlier run that did not finish (%.1f MB)\n",
                    path, (double)(removed_bytes - before) / 1e6);
        }
        close(fd);
    }
    closedir(dir);
    return removed;
}

static void remove_at_exit(void) {
    // A child made by fork() without exec inherits this handler: only the owner removes.
    if (!scratch_ready || getpid() != scratch_owner) return;
    removed_bytes = 0;
    remove_tree(scratch_root);
    fprintf(stderr, "test scratch: removed %s (%.1f MB)\n", scratch_root, (double)removed_bytes / 1e6);
}

__attribute__((constructor)) static void make_scratch_root(void) {
    // Opting out, to look at what a run leaves: TESSERA_TEST_KEEP_TMP=1.
    const char *keep = getenv("TESSERA_TEST_KEEP_TMP");
    const char *tmp = getenv("TMPDIR");
    char base[2048];
    snprintf(base, sizeof base, "%s", (tmp && *tmp) ? tmp : "/tmp");
    size_t length = strlen(base);
    while (length > 1 && base[length - 1] == '/') base[--length] = '\0';
    // A test process started by another test process (a child test run) shares its parent's folder.
    if (strstr(base, prefix) != NULL) return;

    tessera_test_sweep_stale(base);
    snprintf(scratch_root, sizeof scratch_root, "%s/%s%d", base, prefix, (int)getpid());
    remove_tree(scratch_root);  // a folder left by an earlier process with the same pid
    // 0755: the PostgreSQL test server runs as the `postgres` user and needs to reach its folder.
    if (mkdir(scratch_root, 0755) != 0) return;
    chmod(scratch_root, 0755);  // whatever the umask
    char lock[4200];
    snprintf(lock, sizeof lock, "%s/.lock", scratch_root);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) { remove_tree(scratch_root); return; }
    // The descriptor stays open, and locked, until the process ends.

    struct statvfs disk;
    if (statvfs(base, &disk) == 0) {
        double free_mb = (double)disk.f_bavail * (double)disk.f_frsize / 1e6;
        if (free_mb < 3000) {
            fprintf(stderr, "test scratch: warning: only %.0f MB free in %s; a whole test run writes about 1.6 GB there\n",
                    free_mb, base);
        }
    }
    char value[4200];
    snprintf(value, sizeof value, "%s/", scratch_root);
    setenv("TMPDIR", value, 1);
    scratch_ready = 1;
    scratch_owner = getpid();
    if (!(keep && strcmp(keep, "1") == 0)) atexit(remove_at_exit);
}
