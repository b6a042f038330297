#!/usr/bin/env bash
# Installs what Tessera needs on a Debian machine, and nothing it already has.
#
#   scripts/setup.sh build   the packages the build needs (the README's first command)
#   scripts/setup.sh test    those and every program and Python module the tests start (the second)
#   scripts/setup.sh bench   the build's packages and the anchors `tessera-bench` runs beside Tessera
#   scripts/setup.sh check   installs nothing: one line naming what the tests would miss, exit 1 if any
#
# This file is the one list of the project's system packages and PyPI tools: the test
# `everyProgramTheTestsStartIsInTheSetUpList` (Tests/TesseraLoaderTests/TestToolsTests.swift) reads
# the table below and fails when a test starts a program that is not in it. Without root and
# without a password-less sudo, it installs nothing and prints the exact apt-get line to run.
# It is quick when everything is there: one dpkg-query and a few python3 starts (under a second).
set -euo pipefail

# One line a package:
#   group   build (to build and serve), test (to run the tests) or bench (only for tessera-bench)
#   source  apt (Debian's package) or pip (PyPI)
#   name    the package
#   uses    what the project starts or imports from it, comma-separated: a program on PATH, an
#           absolute path (a glob where the folder holds a version), python:MODULE for an import in
#           the python3 on PATH, debian-python:MODULE for one in Debian's /usr/bin/python3 (where
#           python3-* packages install), toolchain:PROGRAM for one of the Swift toolchain's, - for
#           headers and libraries
#   why     what needs it
PACKAGES='
build apt  libsqlite3-dev          -                                 the system SQLite every store is written with
build apt  libcrypt-dev            -                                 yescrypt, the hub password hashes (Sources/CCrypt)
build apt  libjs-leaflet           -                                 the map under the safe travel route, served by the host from /usr/share/javascript/leaflet (never a CDN)
test  apt  coreutils               env,sha256sum,chown,md5sum        checksums the tests compare with the host; the PostgreSQL test folder handed to postgres; the md5sums of the package packaging/build-deb.sh builds
test  apt  bash                    bash                              scripts the tests run (sdk-docs.sh)
test  apt  git                     git                               tessera sdk export commits and tags the exported SDK (SDKExportTests), and SwiftPM clones it by its file URL
test  apt  dash                    sh                                starts serve with its stdout named as the journal stream, as systemd does (ServeAsServiceTests)
test  apt  tar                     tar                               lists a backup archive as any tar reads it (BackupRestoreTests)
test  apt  binutils                readelf,nm,strip,ar               the loader tests read ELF notes and symbols (and archive the C of a static SDK copy with ar); packaging/build-deb.sh strips the packaged ELF files, and both packaging/ scripts read their NEEDED and RUNPATH
test  apt  gcc                     cc                                the loader tests build a small C library
test  apt  cargo                   cargo,rustc                       scripts/build-rust-plugin.sh builds the Rust C-ABI plugin (Plugins/RustNotes) with the standard library only
test  apt  libc-bin                ldd,/usr/sbin/ldconfig,getent     the loader tests read which libraries a plugin links; packaging/ checks every packaged NEEDED is packaged or a system library (ldconfig -p); packaging/check-deb.sh looks up the user nobody it runs the unpacked host as (getent)
test  apt  util-linux              runuser,setpriv                   the PostgreSQL test server runs as the postgres user; packaging/check-deb.sh runs the unpacked host as nobody (setpriv)
test  apt  python3                 python3                           the SMTP test server and the checks written in Python
test  apt  gpsd                    /usr/sbin/gpsd                    the location feed against a real gpsd
test  apt  gpsd-clients            gpsfake                           feeds gpsd an NMEA log in the location tests
test  apt  postgresql              /usr/lib/postgresql/*/bin/initdb,/usr/lib/postgresql/*/bin/pg_ctl,/usr/lib/postgresql/*/bin/createdb   the hub PostgreSQL store against a real server
test  apt  python3-aiosmtpd        debian-python:aiosmtpd            the SMTP server the hub mail tests send to
test  apt  chromium                /usr/lib/chromium/chromium        the console tests drive a real headless browser
test  apt  mosquitto               /usr/sbin/mosquitto,mosquitto_passwd   the MQTT broker OwnTracks apps publish to, in the location tests
test  apt  mosquitto-clients       mosquitto_pub                     publishes OwnTracks messages to the broker, as the app does
test  apt  openssl                 openssl                           makes the certificate authority and certificate of the TLS broker in the MQTT tests
test  apt  poppler-utils           pdftotext,pdftoppm                the baby diary PDF tests read and render the PDFs
test  apt  dpkg                    dpkg,dpkg-deb                     packaging/build-deb.sh builds the Debian package and packaging/check-deb.sh reads and unpacks it (the last phase of scripts/test.sh)
test  apt  dpkg-dev                dpkg-shlibdeps                    packaging/build-deb.sh works out the Depends of the package from the libraries its files link
test  apt  patchelf                patchelf                          packaging/build-deb.sh sets the RUNPATH of the packaged binaries and libraries to the Swift runtime shipped in the package
test  apt  gzip                    gzip                              packaging/build-deb.sh compresses the changelog and the man page of the package
test  apt  lintian                 lintian                           packaging/check-deb.sh lints the package (no error or warning)
test  apt  systemd                 systemd-analyze                   packaging/check-deb.sh verifies the two units of the package (systemd-analyze verify)
bench apt  golang-go               go                                the Go anchors beside the process tier echo in tessera-bench isolation: a JSON round trip to a child over a Unix socket
bench apt  wrk                     wrk                               the HTTP load generator of tessera-bench http (the edge, the kept-work route and the plain route, 64 and 256 connections)
test  pip  openapi-spec-validator  python:openapi_spec_validator     checks /openapi.json against OpenAPI 3.1
test  pip  schemathesis            python:schemathesis               fuzzes the API against its OpenAPI document
build tool swift                   toolchain:swift,toolchain:swiftc,toolchain:clang   the Swift 6.3.1 toolchain (sdk/.swift-version), not a package
'

usage() { echo "usage: scripts/setup.sh build|test|bench|check" >&2; exit 2; }
[ $# -eq 1 ] || usage
mode=$1
case "$mode" in build|test|bench|check) ;; *) usage ;; esac

# The rows of the groups this mode needs, without blank lines.
rows() {
  local groups="build"
  case "$mode" in test) groups="build test" ;; bench) groups="build bench" ;; esac
  printf '%s\n' "$PACKAGES" | awk -v groups="$groups" 'NF && index(" " groups " ", " " $1 " ")'
}

# Does PYTHON find MODULE? (Found, not imported: an import of schemathesis takes seconds.)
importable() {
  "$1" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$2') is None)" >/dev/null 2>&1
}

# Is one `uses` entry there?
present() {
  case "$1" in
    -) return 0 ;;
    python:*) importable python3 "${1#python:}" ;;
    debian-python:*) importable /usr/bin/python3 "${1#debian-python:}" ;;
    toolchain:*) command -v "${1#toolchain:}" >/dev/null 2>&1 ;;
    /*) compgen -G "$1" >/dev/null ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

# Debian packages of the mode that dpkg does not list as installed.
missing_apt() {
  local names
  names=$(rows | awk '$2 == "apt" { print $3 }')
  local installed
  installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' $names 2>/dev/null | awk '$2 ~ /^ii/ { print $1 }')
  for name in $names; do
    printf '%s\n' "$installed" | grep -qx "$name" || echo "$name"
  done
}

# PyPI packages of the mode whose module does not import.
missing_pip() {
  rows | awk '$2 == "pip" { print $3, $4 }' | while read -r name uses; do
    present "$uses" || echo "$name"
  done
}

# Every `uses` entry of the mode that is not there, as "package (entry)".
missing_uses() {
  rows | awk '{ print $3, $4 }' | while read -r name uses; do
    IFS=, read -ra entries <<<"$uses"
    for entry in "${entries[@]}"; do present "$entry" || echo "$name ($entry)"; done
  done
}

install_apt() {
  [ $# -gt 0 ] || return 0
  local line="apt-get install -y $*"
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: $*"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "setup: installing Debian packages with sudo: $*"
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "setup: Tessera needs Debian packages this user cannot install; run \`sudo apt-get update && sudo $line\`, then this command again." >&2
    exit 1
  fi
}

install_pip() {
  [ $# -gt 0 ] || return 0
  echo "setup: installing from PyPI: $*"
  if [ "$(id -u)" = 0 ]; then python3 -m pip install -q "$@"
  else python3 -m pip install -q --user "$@"; fi
}

if [ "$mode" = check ]; then
  mode=test
  gone=$(missing_uses | paste -sd, - | sed 's/,/, /g')
  if [ -n "$gone" ]; then
    echo "setup: the tests need what is missing here: $gone; run scripts/setup.sh test" >&2
    exit 1
  fi
  exit 0
fi

# shellcheck disable=SC2046
install_apt $(missing_apt)
[ "$mode" = build ] || install_pip $(missing_pip)

gone=$(missing_uses | paste -sd, - | sed 's/,/, /g')
if [ -n "$gone" ]; then
  echo "setup: still missing after installing: $gone" >&2
  exit 1
fi
