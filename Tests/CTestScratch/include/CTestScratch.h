#ifndef TESSERA_TEST_SCRATCH_H
#define TESSERA_TEST_SCRATCH_H

/// The test process's scratch folder: `$TMPDIR/tessera-tests-<pid>`, made before the tests start
/// and set as the process's `TMPDIR`, so every temporary file the tests or their child processes
/// make lands in it. It is removed when the process exits; one left by a run that was killed is
/// removed by the next run (see scratch.c). NULL if it could not be made (then `TMPDIR` is unchanged).
const char *tessera_test_scratch_root(void);

/// Removes every `tessera-tests-*` folder in `base` whose `.lock` no process holds (its run ended
/// without removing it) and returns how many it removed. Runs on `TMPDIR` before the tests start.
int tessera_test_sweep_stale(const char *base);

#endif
