#!/bin/sh
# Runs safe travel's alert guarantee on more seeds than the test suite does:
#   scripts/safetravel-soak.sh [SEEDS] [FIRST_SEED]
# Each seed is one trip of ada's (phone and tablet) guarded by bob and carl, with a watcher beside
# a real hub on loopback (SafeTravelGuaranteeTests): answered a second before the deadline with her
# sync delayed, or not answered, her phone alive or dead, the hosts' sync rounds in a seeded order.
# Every guardian must be told exactly once at the deadline when she did not answer, never when she
# did. A failure names its seed; replay it alone with: scripts/safetravel-soak.sh 1 SEED.
set -e
cd "$(dirname "$0")/.."
swift build --build-tests
TESSERA_SAFETRAVEL_SEEDS="${1:-2000}" TESSERA_SAFETRAVEL_FIRST_SEED="${2:-1}" \
    swift test --skip-build --filter "SafeTravelGuaranteeTests"
