#!/bin/sh
# Runs safe travel's alert guarantee on more seeds than the test suite does:
#   scripts/safetravel-soak.sh [SEEDS] [FIRST_SEED]
# Each seed is one deadline of ada's (phone and tablet) guarded by bob and carl, with a watcher
# beside a real hub on loopback (SafeTravelGuaranteeTests): her trip's arrival or a check-in bob
# asks, answered a second before the deadline on either device with its network gone for a while,
# or not answered; her phone alive or dead; the hosts' sync rounds in a seeded order. Every
# guardian must be told exactly once at the deadline when she did not answer, never when she did.
# The seeds run 300 at a time (six batches of 50 side by side, as in the suite), with a line of
# progress after each; a failure names its seed; replay it alone with: scripts/safetravel-soak.sh 1 SEED.
set -e
cd "$(dirname "$0")/.."
total="${1:-2000}"
first="${2:-1}"
chunk=300
swift build --build-tests
done_seeds=0
while [ "$done_seeds" -lt "$total" ]; do
    count=$((total - done_seeds))
    [ "$count" -gt "$chunk" ] && count=$chunk
    start=$((first + done_seeds))
    TESSERA_SAFETRAVEL_SEEDS="$count" TESSERA_SAFETRAVEL_FIRST_SEED="$start" \
        swift test --skip-build --filter "SafeTravelGuaranteeTests" > /tmp/safetravel-soak.$$.log 2>&1 || {
        grep -E "✘|seed" /tmp/safetravel-soak.$$.log | head -40
        echo "safetravel-soak: a seed in $start…$((start + count - 1)) failed (the whole output: /tmp/safetravel-soak.$$.log)" >&2
        exit 1
    }
    done_seeds=$((done_seeds + count))
    echo "safetravel-soak: seeds $start…$((start + count - 1)) passed ($done_seeds of $total)"
done
rm -f /tmp/safetravel-soak.$$.log
