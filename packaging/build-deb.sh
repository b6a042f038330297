#!/usr/bin/env bash
# Builds the Debian package tessera_<version>_<arch>.deb from binaries that are already built.
#
#   packaging/build-deb.sh [--build-dir DIR] [--out DIR] [--version V] [--build] [--no-strip]
#                          [--maintainer "Name <mail>"] [--swift-lib DIR]
#
#   --build-dir DIR   the SwiftPM build folder to package (default: .build/release if it exists,
#                     else .build/debug)
#   --out DIR         where the .deb goes (default: .build-deb/ in the repository, ignored by git)
#   --version V       the package version (default: tesseraVersion in Sources/TesseraLoader/HostIdentity.swift)
#   --build           run `swift build -c release` first and package .build/release (never done
#                     without this flag)
#   --no-strip        keep symbols and debug info (a much larger package; lintian then complains)
#   --maintainer M    the control file's Maintainer (default: $DEBFULLNAME <$DEBEMAIL>, else the
#                     last commit's author)
#   --swift-lib DIR   the toolchain's runtime folder (default: the one in tessera's RUNPATH,
#                     e.g. /opt/swift/usr/lib/swift/linux)
#
# Needs Debian's dpkg, binutils (readelf, strip), patchelf, libc-bin (ldconfig) and coreutils;
# dpkg-dev's dpkg-shlibdeps when present (versioned Depends), else Depends from `dpkg -S`.
# packaging/check-deb.sh checks the result; docs/operating.md says what goes where and why.
#
# The installed layout (all the host looks for is found from /proc/self/exe, the deployment and
# the manifests, so nothing depends on the current folder):
#   /usr/bin/tessera                    symlink to /usr/lib/tessera/bin/tessera
#   /usr/lib/tessera/bin/               tessera, tessera-plugin-runner and libTesseraFoundationOnDemand.so:
#                                       the host looks for the runner and that library beside its own
#                                       executable (PluginRunnerExecutable, OnDemandFoundation)
#   /usr/lib/tessera/sdk/               libTesseraSDK.so, the SDK the host and every plugin share
#   /usr/lib/tessera/swift/             the toolchain's Swift runtime, Foundation and libdispatch: only
#                                       the libraries the files above need (one shared copy; plugins
#                                       must never carry a static one, and the loader refuses those)
#   /usr/lib/tessera/plugins/           the shipped plugins' libraries (the deployments' libraryPaths)
#   /usr/lib/tessera/manifests/         their manifests (the deployments' manifestDirectories), with
#                                       ui.folder rewritten to the absolute folder below
#   /usr/share/tessera/ui/<manifest>/   each module's console pages (the manifest's ui.folder)
#   /usr/share/tessera/schema/          the JSON Schemas the deployments' and manifests' $schema name
#   /etc/tessera/{device,hub}.json      the deployments (conffiles), data in /var/lib/tessera/{device,hub}
#   /lib/systemd/system/tessera{,-hub}.service
#
# How the binaries find the Swift runtime: RUNPATH, set with patchelf (Debian's patchelf package),
# rather than a wrapper script that sets LD_LIBRARY_PATH. A wrapper's LD_LIBRARY_PATH would leak
# into every process the host starts (the plugin runner, which is fine, but also anything a plugin's
# HTTP client or a test starts), would be lost by anything that runs /usr/lib/tessera/bin/tessera
# directly, and would make /proc/self/exe and the process name the real binary's anyway. RUNPATH is
# per file and needs nothing at run time:
#   bin/*              $ORIGIN/../sdk:$ORIGIN/../swift   (relative, so the unpacked tree runs as is:
#                                                         check-deb.sh starts it from a temporary root)
#   sdk/libTesseraSDK.so   $ORIGIN/../swift
#   swift/*            $ORIGIN
#   plugins/*          /usr/lib/tessera/sdk:/usr/lib/tessera/swift   (absolute: the host copies a
#                      plugin into its data directory's content-addressed stage before dlopen, so
#                      $ORIGIN would be that stage; in practice every library a shipped plugin
#                      needs is already loaded by the host or the runner, and is found by name)
set -euo pipefail
# ldconfig is in /usr/sbin, which a user's PATH on Debian lacks (root's has it).
PATH=$PATH:/usr/sbin:/sbin

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
packaging=$repo/packaging

usage() { sed -n '4,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit "${1:-64}"; }
die() { echo "build-deb: $*" >&2; exit 1; }
say() { echo "build-deb: $*"; }

build_dir='' out_dir=$repo/.build-deb version='' do_build=0 do_strip=1 maintainer='' swift_lib=''
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) [ $# -ge 2 ] || usage; build_dir=$2; shift 2 ;;
    --build-dir=*) build_dir=${1#*=}; shift ;;
    --out) [ $# -ge 2 ] || usage; out_dir=$2; shift 2 ;;
    --out=*) out_dir=${1#*=}; shift ;;
    --version) [ $# -ge 2 ] || usage; version=$2; shift 2 ;;
    --version=*) version=${1#*=}; shift ;;
    --maintainer) [ $# -ge 2 ] || usage; maintainer=$2; shift 2 ;;
    --maintainer=*) maintainer=${1#*=}; shift ;;
    --swift-lib) [ $# -ge 2 ] || usage; swift_lib=$2; shift 2 ;;
    --swift-lib=*) swift_lib=${1#*=}; shift ;;
    --build) do_build=1; shift ;;
    --no-strip) do_strip=0; shift ;;
    -h|--help) usage 0 ;;
    *) echo "build-deb: unknown argument: $1" >&2; usage ;;
  esac
done

# --- Tools -------------------------------------------------------------------------------------
missing=()
for tool in dpkg-deb:dpkg readelf:binutils strip:binutils patchelf:patchelf ldconfig:libc-bin gzip:gzip md5sum:coreutils; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  die "missing tools; install them with: apt-get install -y $(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')"
fi

# --- The build ---------------------------------------------------------------------------------
if [ "$do_build" = 1 ]; then
  say "swift build -c release (asked with --build)"
  (cd "$repo" && swift build -c release)
  [ -n "$build_dir" ] || build_dir=$repo/.build/release
fi
if [ -z "$build_dir" ]; then
  if [ -d "$repo/.build/release" ]; then build_dir=$repo/.build/release; else build_dir=$repo/.build/debug; fi
fi
[ -d "$build_dir" ] || die "no build folder $build_dir: build first (swift build -c release), or pass --build or --build-dir"
build_dir=$(cd "$build_dir" && pwd -P)
for f in tessera tessera-plugin-runner libTesseraFoundationOnDemand.so libTesseraSDK.so; do
  [ -f "$build_dir/$f" ] || die "$build_dir/$f is missing: build every product first (swift build -c release)"
done
case $build_dir in */debug) say "warning: packaging a debug build ($build_dir); a release is built with swift build -c release" ;; esac

if [ -z "$version" ]; then
  version=$(sed -n 's/^public let tesseraVersion = "\(.*\)"$/\1/p' "$repo/Sources/TesseraLoader/HostIdentity.swift")
  [ -n "$version" ] || die "cannot read tesseraVersion from Sources/TesseraLoader/HostIdentity.swift; pass --version"
fi
[[ $version =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "--version: expected a Debian version (a digit first), found '$version'"
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || say "warning: building for $arch (the project builds and tests on amd64)"

if [ -z "$maintainer" ]; then
  if [ -n "${DEBFULLNAME:-}" ] && [ -n "${DEBEMAIL:-}" ]; then maintainer="$DEBFULLNAME <$DEBEMAIL>"
  else maintainer=$(git -C "$repo" log -1 --format='%an <%ae>' 2>/dev/null || true); fi
  [ -n "$maintainer" ] || maintainer="Tessera maintainers <root@localhost>"
fi
# Reproducible timestamps (changelog date, file times in the package): the last commit's time.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

if [ -z "$swift_lib" ]; then
  runpath=$(readelf -d "$build_dir/tessera" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  IFS=: read -r -a entries <<<"$runpath"
  for entry in "${entries[@]}"; do
    if [ "${entry#/}" != "$entry" ] && [ -f "$entry/libswiftCore.so" ]; then swift_lib=$entry; break; fi
  done
  [ -n "$swift_lib" ] || die "cannot find the Swift runtime from tessera's RUNPATH ($runpath); pass --swift-lib"
fi
[ -f "$swift_lib/libswiftCore.so" ] || die "--swift-lib $swift_lib: no libswiftCore.so there"
say "version $version ($arch), from $build_dir, Swift runtime from $swift_lib"

# --- Staging -----------------------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
# debian/tessera: the layout dpkg-shlibdeps expects for the package being built.
root=$work/debian/tessera
mkdir -p "$root/DEBIAN"
L=$root/usr/lib/tessera
mkdir -p "$L/bin" "$L/sdk" "$L/swift" "$L/plugins" "$L/manifests" \
         "$root/usr/bin" "$root/usr/share/tessera/ui" "$root/usr/share/tessera/schema" \
         "$root/usr/share/doc/tessera" "$root/usr/share/man/man1" "$root/usr/share/lintian/overrides" \
         "$root/etc/tessera" "$root/lib/systemd/system"

install -m 0755 "$build_dir/tessera" "$build_dir/tessera-plugin-runner" "$L/bin/"
install -m 0644 "$build_dir/libTesseraFoundationOnDemand.so" "$L/bin/"
install -m 0644 "$build_dir/libTesseraSDK.so" "$L/sdk/"
ln -s ../lib/tessera/bin/tessera "$root/usr/bin/tessera"

# The shipped plugins: every manifest in manifests/*.json, its library by name from the build
# folder, its console pages to /usr/share/tessera/ui/<manifest name>.
for manifest in "$repo"/manifests/*.json; do
  base=$(basename "$manifest" .json)
  flat=$(tr -d ' \t\r\n' <"$manifest")
  library=$(printf '%s' "$flat" | grep -o '"library":{"name":"[^"]*"' | sed 's/.*"name":"//; s/"$//' || true)
  [ -n "$library" ] || die "$manifest: no \$.library.name (a library given by path is not packaged yet)"
  so=lib$library.so
  [ -f "$build_dir/$so" ] || die "$build_dir/$so is missing (named by $manifest): build every product first"
  install -m 0644 "$build_dir/$so" "$L/plugins/"
  sed -e 's#"\$schema": *"[^"]*plugin-manifest.schema.json"#"$schema": "/usr/share/tessera/schema/plugin-manifest.schema.json"#' \
      "$manifest" >"$L/manifests/$base.json"
  folder=$(printf '%s' "$flat" | grep -o '"ui":{"folder":"[^"]*"' | sed 's/.*"folder":"//; s/"$//' || true)
  if [ -z "$folder" ] && grep -q '"ui":{' <<<"$flat"; then
    die "$manifest: \$.ui has no folder as its first key (this script reads it only there)"
  fi
  if [ -n "$folder" ]; then
    case $folder in /*) source_ui=$folder ;; *) source_ui=$repo/manifests/$folder ;; esac
    [ -f "$source_ui/index.html" ] || die "$manifest: ui folder $source_ui has no index.html"
    mkdir -p "$root/usr/share/tessera/ui/$base"
    cp -R "$source_ui/." "$root/usr/share/tessera/ui/$base/"
    pattern=$(printf '%s' "$folder" | sed 's/[.[\*^$#]/\\&/g')
    sed -i "s#\"folder\": *\"$pattern\"#\"folder\": \"/usr/share/tessera/ui/$base\"#" "$L/manifests/$base.json"
    grep -q "\"folder\": \"/usr/share/tessera/ui/$base\"" "$L/manifests/$base.json" \
      || die "$manifest: could not rewrite ui.folder ($folder) to /usr/share/tessera/ui/$base"
  fi
  say "plugin $base: $so${folder:+, pages from $folder}"
done
# Every plugin a packaged deployment names has a packaged manifest.
for deployment in "$packaging"/etc/*.json; do
  for id in $(tr -d ' \t\r\n' <"$deployment" | grep -o '{"id":"[^"]*"' | sed 's/.*"id":"//; s/"$//'); do
    grep -lq "\"id\": *\"$id\"" "$L"/manifests/*.json || die "$deployment names plugin $id, which no manifests/*.json declares"
  done
done
install -m 0644 "$repo"/manifests/schema/*.json "$root/usr/share/tessera/schema/"
install -m 0644 "$packaging/etc/device.json" "$packaging/etc/hub.json" "$root/etc/tessera/"
install -m 0644 "$packaging/systemd/tessera.service" "$packaging/systemd/tessera-hub.service" "$root/lib/systemd/system/"

# --- The Swift runtime: the closure of what the ELF files above need from the toolchain --------
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
queue=()
for f in "$L"/bin/* "$L"/sdk/*.so "$L"/plugins/*.so; do
  [ -L "$f" ] && continue
  while read -r lib; do queue+=("$lib"); done < <(needed "$f")
done
while [ ${#queue[@]} -gt 0 ]; do
  lib=${queue[0]}; queue=("${queue[@]:1}")
  [ -e "$L/swift/$lib" ] && continue
  [ -f "$swift_lib/$lib" ] || continue       # a system library, or the SDK (sdk/)
  install -m 0644 "$(readlink -f "$swift_lib/$lib")" "$L/swift/$lib"
  while read -r next; do queue+=("$next"); done < <(needed "$L/swift/$lib")
done
say "Swift runtime: $(cd "$L/swift" && ls | tr '\n' ' ')"

# --- Strip (as dh_strip does), then RUNPATH ----------------------------------------------------
# Kept: .dynsym (the loader's link lint reads it), the tessera_stamp section and the Swift
# metadata sections (allocated, so strip never removes them). Removed: symbols, debug info and
# .swift_ast (the debugger's module images).
if [ "$do_strip" = 1 ]; then
  for f in "$L"/bin/tessera "$L"/bin/tessera-plugin-runner; do
    strip --remove-section=.comment --remove-section=.note --remove-section=.swift_ast "$f"
  done
  for f in "$L"/bin/*.so "$L"/sdk/*.so "$L"/swift/*.so "$L"/plugins/*.so; do
    strip --remove-section=.comment --remove-section=.note --remove-section=.swift_ast --strip-unneeded "$f"
  done
fi
for f in "$L"/bin/tessera "$L"/bin/tessera-plugin-runner "$L"/bin/*.so; do patchelf --set-rpath '$ORIGIN/../sdk:$ORIGIN/../swift' "$f"; done
for f in "$L"/sdk/*.so; do patchelf --set-rpath '$ORIGIN/../swift' "$f"; done
for f in "$L"/swift/*.so; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$L"/plugins/*.so; do patchelf --set-rpath '/usr/lib/tessera/sdk:/usr/lib/tessera/swift' "$f"; done

# Every NEEDED of every packaged ELF file is packaged or a system library, and no RUNPATH still
# points at the toolchain or the build folder.
ldconfig -p >"$work/ldconfig.txt"
system_libs=()
for f in "$L"/bin/* "$L"/sdk/*.so "$L"/swift/*.so "$L"/plugins/*.so; do
  [ -L "$f" ] && continue
  rp=$(readelf -d "$f" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  case $rp in *"$swift_lib"*|*"$build_dir"*|*/opt/*|*/.build/*) die "${f#"$root"}: RUNPATH $rp still points outside the package" ;; esac
  while read -r lib; do
    [ -e "$L/swift/$lib" ] || [ -e "$L/sdk/$lib" ] && continue
    grep -q "^[[:space:]]*$lib " "$work/ldconfig.txt" || die "${f#"$root"} needs $lib, which is neither packaged nor a system library"
    system_libs+=("$lib")
  done < <(needed "$f")
done

# --- Documentation -----------------------------------------------------------------------------
install -m 0644 "$packaging/debian/copyright" "$root/usr/share/doc/tessera/copyright"
[ -f "$repo/docs/operating.md" ] && install -m 0644 "$repo/docs/operating.md" "$root/usr/share/doc/tessera/operating.md"
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | head -1)
{
  echo "tessera ($version) unstable; urgency=medium"
  echo
  echo "  * Built by packaging/build-deb.sh from commit $commit${dirty:+ (and local changes)}"
  echo "    ($(basename "$build_dir") build)."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$root/usr/share/doc/tessera/changelog.gz"
gzip -9n <"$packaging/debian/tessera.1" >"$root/usr/share/man/man1/tessera.1.gz"
if [ -f "$packaging/debian/lintian-overrides" ]; then
  install -m 0644 "$packaging/debian/lintian-overrides" "$root/usr/share/lintian/overrides/tessera"
else
  rmdir "$root/usr/share/lintian/overrides" "$root/usr/share/lintian"
fi

# --- Control files -----------------------------------------------------------------------------
# Depends: the system libraries the packaged files need. dpkg-shlibdeps (dpkg-dev) gives the
# versions Debian's shlibs files state; without it, the packages that hold them (dpkg -S).
depends=
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
  printf 'Source: tessera\n\nPackage: tessera\nArchitecture: any\n' >"$work/debian/control"
  elfs=()
  for f in "$L"/bin/* "$L"/sdk/*.so "$L"/swift/*.so "$L"/plugins/*.so; do [ -L "$f" ] || elfs+=("-e${f#"$work"/}"); done
  # The plugins' absolute RUNPATH names the installed folders; -l finds them in the staged tree.
  depends=$(cd "$work" && dpkg-shlibdeps -O -l"debian/tessera/usr/lib/tessera/sdk" -l"debian/tessera/usr/lib/tessera/swift" \
              "${elfs[@]}" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') \
    || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
  # Not shown: the unversioned names of the privately shipped Swift libraries (expected) and
  # libraries that are NEEDED but unused (the toolchain links every plugin with the same set).
  grep -v "can't extract name and version from library name\|could avoid a useless dependency\|not used by any" "$work/shlibdeps.log" >&2 || true
fi
if [ -z "$depends" ]; then
  packages=()
  for lib in $(printf '%s\n' "${system_libs[@]}" | sort -u); do
    path=$(awk -v l="$lib" '$1 == l && /x86-64|x86_64|64bit/ {print $NF; exit}' "$work/ldconfig.txt")
    [ -n "$path" ] || path=$(awk -v l="$lib" '$1 == l {print $NF; exit}' "$work/ldconfig.txt")
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$pkg" ] || die "no Debian package holds $lib ($path)"
    packages+=("$pkg")
  done
  depends=$(printf '%s\n' "${packages[@]}" | sort -u | paste -sd, | sed 's/,/, /g')
fi
depends="adduser, $depends"

installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: tessera
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: libjs-leaflet
Section: net
Priority: optional
Description: plugin host for personal-app modules
 Tessera loads personal-app modules (finance, a stress programme, a baby
 diary, safe travel, a university client) as shared-library plugins declared
 by manifests, gives each only the capabilities the operator granted (storage,
 clock, notifications, events, location, an HTTP client, files, sync), and
 serves their HTTP API and a web console.
 .
 This package runs a device host (tessera.service) or a hub that syncs
 devices (tessera-hub.service) as the system user tessera, with the Swift
 runtime it and its plugins share in /usr/lib/tessera.
EOF
printf '/etc/tessera/device.json\n/etc/tessera/hub.json\n' >"$root/DEBIAN/conffiles"
install -m 0755 "$packaging/debian/postinst" "$packaging/debian/prerm" "$packaging/debian/postrm" "$root/DEBIAN/"

# Modes as Debian expects them: folders 0755, files 0644, programs and maintainer scripts 0755.
find "$root" -type d -exec chmod 0755 {} +
find "$root" -type f -exec chmod 0644 {} +
chmod 0755 "$L/bin/tessera" "$L/bin/tessera-plugin-runner" "$root"/DEBIAN/{postinst,prerm,postrm}
find "$root" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

mkdir -p "$out_dir"
deb=$(cd "$out_dir" && pwd)/tessera_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
say "Depends: $depends"
say "wrote $deb ($(du -h "$deb" | cut -f1); installed $((installed_size / 1024)) MB)"
