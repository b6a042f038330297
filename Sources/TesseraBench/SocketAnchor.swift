import Foundation

/// The anchors the process tier's round trip is read against: the same 191 bytes sent to another
/// process over a Unix socket pair and back, in C, in the same run (`tessera-bench isolation`).
///
/// - `direct`: each side blocks in `read(2)` and answers from the same thread — two wake-ups per
///   round trip, the floor of any two-process design on this machine now.
/// - `hand-off`: each side reads on one thread and hands the message to another (a semaphore), as
///   the tier does (a reader thread per connection; the call runs elsewhere) — four wake-ups.
/// - `polling`: as `direct`, but each side polls its socket without ever sleeping (non-blocking
///   reads in a loop) — no wake-up at all, the floor for the tier's lanes, which poll before they
///   sleep (docs/isolation.md, "Polling before sleeping").
///
/// Compiled here with the system's `cc -O2`, like the dlopen anchor.
func socketRoundTripAnchors(scratch: String, roundTrips: Int) throws -> (direct: Summary, handOff: Summary, polling: Summary) {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let source = scratch + "/socket-anchor.c", program = scratch + "/socket-anchor"
    try Data(socketAnchorSource.utf8).write(to: URL(fileURLWithPath: source))
    try runTool("/usr/bin/cc", ["-O2", "-pthread", "-o", program, source])
    func samples(_ mode: String) throws -> Summary {
        let output = try runTool(program, [mode, String(roundTrips)])
        return Summary(output.split(separator: "\n").compactMap { Double($0) })
    }
    return (try samples("direct"), try samples("hand-off"), try samples("polling"))
}

/// Prints the nanoseconds of each round trip, one per line.
private let socketAnchorSource = #"""
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { SIZE = 191 };
static int fd;
static sem_t received;
static char message[SIZE];
static int polling;

static long long nanoseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void read_all(int from, char *buffer) {
    for (int done = 0; done < SIZE;) {
        ssize_t n = recv(from, buffer + done, SIZE - done, polling ? MSG_DONTWAIT : 0);
        if (n < 0 && polling && errno == EAGAIN) continue;
        if (n <= 0) exit(0);
        done += (int)n;
    }
}

/* hand-off: the thread that did not read answers (child) or wakes the caller (parent). */
static void *answer_after_hand_off(void *unused) {
    for (;;) { sem_wait(&received); if (write(fd, message, SIZE) != SIZE) exit(1); }
    return unused;
}
static void *read_then_hand_off(void *unused) {
    char buffer[SIZE];
    for (;;) { read_all(fd, buffer); sem_post(&received); }
    return unused;
}

int main(int argc, char **argv) {
    int handOff = argc > 1 && strcmp(argv[1], "hand-off") == 0;
    polling = argc > 1 && strcmp(argv[1], "polling") == 0;
    int count = argc > 2 ? atoi(argv[2]) : 10000;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return 1;
    sem_init(&received, 0, 0);
    pid_t child = fork();
    if (child == 0) {
        fd = pair[1];
        close(pair[0]);
        if (handOff) {
            pthread_t answerer;
            pthread_create(&answerer, NULL, answer_after_hand_off, NULL);
            for (;;) { read_all(fd, message); sem_post(&received); }
        }
        char buffer[SIZE];
        for (;;) { read_all(fd, buffer); if (write(fd, buffer, SIZE) != SIZE) return 1; }
    }
    fd = pair[0];
    close(pair[1]);
    memset(message, 'x', SIZE);
    long long *samples = malloc(sizeof(long long) * count);
    if (handOff) {
        pthread_t reader;
        pthread_create(&reader, NULL, read_then_hand_off, NULL);
    }
    for (int i = 0; i < count; i++) {
        long long start = nanoseconds();
        if (write(fd, message, SIZE) != SIZE) return 1;
        if (handOff) sem_wait(&received); else read_all(fd, message);
        samples[i] = nanoseconds() - start;
    }
    for (int i = 0; i < count; i++) printf("%lld\n", samples[i]);
    /* shutdown, not close: a reader thread blocked in read(2) keeps a closed descriptor's socket
       open, and the child would wait for its end forever. */
    shutdown(fd, SHUT_RDWR);
    waitpid(child, NULL, 0);
    return 0;
}
"""#
