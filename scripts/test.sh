#!/usr/bin/env bash
# The README's test command: installs what the tests use (scripts/setup.sh test), builds, and runs
# the whole suite; .ci/run calls exactly this. Extra arguments go to the first `swift test`
# (`scripts/test.sh --filter TesseraSyncTests`), and then only that part runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
swift build --build-tests
# The Rust C-ABI plugin (docs/c-abi.md) beside the Swift products, where its manifest names it
# (after the build: SwiftPM makes .build/debug, a link to the products' folder).
scripts/build-rust-plugin.sh .build/debug
if [ $# -gt 0 ]; then exec swift test --skip-build "$@"; fi
swift test --skip-build --skip SafeTravelGuaranteeTests
# Safe travel's 300 seeds of delivery order on their own: six batches side by side with the machine
# to themselves (about 4 minutes). Inside the whole suite's crowd on two cores each batch took as
# long as the suite, past the 15-minute hang watchdog.
swift test --skip-build --filter SafeTravelGuaranteeTests
swift test --package-path sdk
# Three shipped modules' suites again, in the process tier (docs/isolation.md).
TESSERA_TEST_ISOLATION=process swift test --skip-build --filter "TesseraBabyTests|TesseraFinanceTests|TesseraStressTests"
# A week on the virtual clock, everything at once (issue 43; docs/soak.md): a hub, the safe-travel
# watcher and six devices (three people, two devices each) as real processes with all five modules,
# seven simulated days of work, six SIGKILLs of the hub, the watcher or a device at seeded moments;
# it fails unless every acknowledged write is on every device that should hold it, both devices of
# each person agree, and every notification due was delivered exactly once. About 2.5 minutes on an
# idle two-core machine. The 30-day version: scripts/month-soak.py (no arguments).
rm -rf .build/soak-bin   # a fresh copy of this build's binaries for it to run from
python3 scripts/month-soak.py --days 7 --kills 6 --seed 1 --bin .build/soak-bin
# The Debian package, last: built from the debug build the suite just tested and checked by
# packaging/check-deb.sh (docs/operating.md): its fields and contents, lintian, every ELF file's
# RUNPATH and NEEDED, systemd-analyze verify on the units, every shipped plugin loaded in the
# runner, then a device and a hub served from the unpacked tree until they answer. No --build:
# build-deb.sh only packages what is built. Its own folder under .build-deb/ (ignored by git),
# emptied first, so the one .deb there is this run's and a developer's other packages stay. About
# 2 minutes 15 s on two cores (building 1 min 34 s, mostly compressing; checking 42 s: docs/testing.md).
rm -rf .build-deb/test
packaging/build-deb.sh --build-dir .build/debug --out .build-deb/test
packaging/check-deb.sh .build-deb/test/tessera_*.deb
