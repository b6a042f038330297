#!/bin/sh
# Runs the seeded sync property (three devices through a fault-injecting proxy) on more seeds than
# the test suite does: scripts/sync-property.sh [SEEDS] [FIRST_SEED]. A failure names its seed;
# replay it alone with: scripts/sync-property.sh 1 SEED. The same seeds run with the hub's store in
# PostgreSQL too when TESSERA_SYNC_NETWORK_POSTGRES_SEEDS is set (a private server the tests start).
set -e
cd "$(dirname "$0")/.."
swift build --build-tests
TESSERA_SYNC_NETWORK_SEEDS="${1:-5000}" TESSERA_SYNC_NETWORK_FIRST_SEED="${2:-1}" \
    TESSERA_SYNC_NETWORK_POSTGRES_SEEDS="${TESSERA_SYNC_NETWORK_POSTGRES_SEEDS:-0}" \
    swift test --skip-build --filter SyncFaultPropertyTests
