#!/usr/bin/env bash
# Builds the Rust C-ABI plugin (Plugins/RustNotes, docs/c-abi.md) with cargo, offline and with the
# standard library only, and puts its library beside the Swift products, where manifests name
# libraries: scripts/build-rust-plugin.sh [BUILD_DIR] (default .build/debug). Debian's cargo (1.63
# on bookworm) builds it, as does a newer one from rustup.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-.build/debug}
command -v cargo >/dev/null || { echo "cargo is not installed: scripts/setup.sh test installs it (apt install cargo)" >&2; exit 1; }
export CARGO_TARGET_DIR=$PWD/.build/rust
cargo build --release --offline --quiet --manifest-path Plugins/RustNotes/Cargo.toml
# The Swift products' folder, made by `swift build` (SwiftPM makes .build/debug a link to the real
# one, and a folder made here first would stand in its way).
[ -d "$build_dir" ] || { echo "$build_dir does not exist: run swift build first" >&2; exit 1; }
install -m 0755 .build/rust/release/libtessera_rust_notes.so "$build_dir/libtessera_rust_notes.so"
echo "built $build_dir/libtessera_rust_notes.so ($(cargo --version))"
