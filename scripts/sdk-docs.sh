#!/usr/bin/env bash
# Renders the SDK's DocC documentation with the toolchain's own tools (no package plugin needed):
#   scripts/sdk-docs.sh [OUTPUT]   → OUTPUT (default .build/sdk-docs/TesseraSDK.doccarchive)
# Serve the archive's folder with any static web server (python3 -m http.server) and open
# /documentation/tesserasdk, or run `docc preview` with the same inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/sdk-docs/TesseraSDK.doccarchive}
graphs=.build/sdk-docs/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
# Build the SDK module only (its compiler warnings are not the documentation's), then extract its
# public symbols and their doc comments from the built module.
swift build --package-path sdk --target TesseraSDK >/dev/null 2>&1 || swift build --package-path sdk --target TesseraSDK
bin=$(swift build --package-path sdk --show-bin-path)
swift symbolgraph-extract -module-name TesseraSDK -I "$bin/Modules" -target "$(uname -m)-unknown-linux-gnu" \
  -Xcc -fmodule-map-file="$bin/CTesseraABI.build/module.modulemap" \
  -minimum-access-level public -output-dir "$graphs"
mkdir -p "$(dirname "$out")"
# The catalogue (TesseraSDK.docc: the landing page's topic groups and the articles) is the first
# argument; the symbol graphs add the reference pages that the catalogue curates and links to.
docc convert sdk/Sources/TesseraSDK/TesseraSDK.docc \
  --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name TesseraSDK --fallback-bundle-identifier dev.tessera.sdk \
  --output-path "$out"
echo "wrote $out"
