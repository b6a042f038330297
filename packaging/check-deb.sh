#!/usr/bin/env bash
# The checks CI runs on a built package:
#
#   packaging/check-deb.sh [--keep] [--no-lintian] [--timeout SECONDS] tessera_<version>_<arch>.deb
#
#   1 info       dpkg-deb --info: the control fields, conffiles and maintainer scripts
#   2 contents   dpkg-deb --contents: every path the host needs, root-owned, nothing of the build
#   3 lintian    lintian (if installed; skipped otherwise): no error or warning after the package's
#                own overrides (usr/share/lintian/overrides/tessera); the informational tags are listed
#   4 unpack     dpkg-deb -x into a temporary root
#   5 elf        every packaged ELF file: RUNPATH inside the package, every NEEDED packaged or a
#                system library, the plugins linking the one shared Swift runtime and SDK
#   6 units      systemd-analyze verify on tessera.service and tessera-hub.service
#   7 runner     `tessera plugins verify --load` on every shipped plugin: gates 1-3, with gates 2 and
#                3 in tessera-plugin-runner found beside the unpacked tessera
#   8 device     `tessera serve` of /etc/tessera/device.json from the unpacked root, on a free
#                loopback port and a temporary data folder: every plugin active, GET /healthz 200,
#                /readyz, the console and every module's pages, one operation called with the
#                admin token, `tessera plugins list --running` against it (the HTTP client, loaded on
#                first use from libTesseraFoundationOnDemand.so), the Swift runtime mapped from the
#                package only; then SIGTERM, exit 0
#   9 hub        the same for /etc/tessera/hub.json: /healthz 200, /readyz, then SIGTERM, exit 0
#
# The unpacked deployments name the installed paths (/usr/lib/tessera, /usr/share/tessera,
# /var/lib/tessera); the host has no prefix option, so steps 7 to 9 run a copy of each deployment,
# and of the manifests, with those paths rewritten to the temporary root, and pass --data and
# --port 0 (the port the host bound is read from its output). Nothing else is changed: the binary,
# its RUNPATH, the runner, the plugins and the pages are the packaged files, run with an empty
# environment from an empty folder; as root, as the user nobody with umask 077 (the units run the
# host as tessera with UMask=0077), so the package's file modes are tested too.
#
# Needs dpkg, binutils (readelf), libc-bin (ldd, ldconfig), systemd (systemd-analyze), util-linux
# (setpriv), bash; lintian if installed. Prints each step; exits 1 naming the step that failed.
# --keep keeps the temporary folder; --timeout is how long a host may take to start (default 180 s).
set -euo pipefail
# No `grep -q` at the end of a pipe: it stops reading at the first match, the writer before it
# may then die of SIGPIPE, and pipefail makes a found line a failure (a run failed so, on a copyright
# file that was in the package). Here-strings, or grep reading all its input, instead.
# ldconfig is in /usr/sbin, which a user's PATH on Debian lacks (root's has it).
PATH=$PATH:/usr/sbin:/sbin

keep=0 timeout=180 deb='' lintian=1
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=1; shift ;;
    --no-lintian) lintian=0; shift ;;
    --timeout) timeout=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "check-deb: unknown option $1" >&2; exit 64 ;;
    *) [ -z "$deb" ] || { echo "check-deb: one package at a time" >&2; exit 64; }; deb=$1; shift ;;
  esac
done
[ -n "$deb" ] || { echo "usage: packaging/check-deb.sh [--keep] [--no-lintian] [--timeout SECONDS] DEB" >&2; exit 64; }
[ -f "$deb" ] || { echo "check-deb: no such file: $deb" >&2; exit 64; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-check.XXXXXX")
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [ "$keep" = 1 ]; then echo "check-deb: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

step=
begin() { step=$1; echo "check-deb: [$step] $2"; }
fail() { echo "check-deb: FAILED [$step]: $*" >&2; exit 1; }
ok() { echo "check-deb: [$step] ok${1:+: $1}"; }

# --- 1 info ------------------------------------------------------------------------------------
begin info "dpkg-deb --info $(basename "$deb")"
info=$(dpkg-deb --info "$deb") || fail "dpkg-deb cannot read the package"
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = tessera ] || fail "Package is '$(field Package)', expected tessera"
version=$(field Version); arch=$(field Architecture)
[ -n "$version" ] && [ -n "$arch" ] || fail "no Version or Architecture"
[ "$(basename "$deb")" = "tessera_${version}_${arch}.deb" ] || fail "file name $(basename "$deb") does not match tessera_${version}_${arch}.deb"
depends=$(field Depends)
for dep in adduser libc6 libsqlite3-0 libcrypt1 libcurl4 libxml2; do
  printf '%s' "$depends" | grep -Eq "(^|, )$dep( |,|$)" || fail "Depends lacks $dep: $depends"
done
for script in postinst prerm postrm conffiles md5sums; do
  printf '%s\n' "$info" | grep -Eq "^ +[0-9]+ bytes, +[0-9]+ lines +[*]? *$script( |$)" || fail "no $script in the control archive"
done
conffiles=$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles)
[ "$(printf '%s\n' "$conffiles" | sort | tr '\n' ' ')" = "/etc/tessera/device.json /etc/tessera/hub.json " ] \
  || fail "conffiles are '$conffiles', expected /etc/tessera/device.json and /etc/tessera/hub.json"
ok "tessera $version $arch, $(du -h "$deb" | cut -f1), Installed-Size $(( $(field Installed-Size) / 1024 )) MB; Depends: $depends"

# --- 2 contents --------------------------------------------------------------------------------
begin contents "dpkg-deb --contents"
contents=$(dpkg-deb --contents "$deb")
paths=$(printf '%s\n' "$contents" | awk '{print $6}')
for path in ./usr/lib/tessera/bin/tessera ./usr/lib/tessera/bin/tessera-plugin-runner \
            ./usr/lib/tessera/bin/libTesseraFoundationOnDemand.so ./usr/lib/tessera/sdk/libTesseraSDK.so \
            ./usr/lib/tessera/swift/libswiftCore.so ./usr/lib/tessera/swift/libFoundation.so \
            ./etc/tessera/device.json ./etc/tessera/hub.json \
            ./lib/systemd/system/tessera.service ./lib/systemd/system/tessera-hub.service \
            ./usr/share/doc/tessera/copyright ./usr/share/doc/tessera/changelog.gz ./usr/share/man/man1/tessera.1.gz \
            ./usr/share/tessera/schema/deployment.schema.json; do
  grep -qxF "$path" <<<"$paths" || fail "the package has no $path"
done
grep -q ' ./usr/bin/tessera -> \.\./lib/tessera/bin/tessera$' <<<"$contents" || fail "/usr/bin/tessera is not the symlink to ../lib/tessera/bin/tessera"
owners=$(printf '%s\n' "$contents" | awk '$2 != "root/root" {print $2, $6}')
[ -z "$owners" ] || fail "not owned by root: $owners"
strays=$(printf '%s\n' "$paths" | grep -E '\.build|/opt/|^\./var/|^\./home/|^\./tmp/' || true)
[ -z "$strays" ] || fail "paths that do not belong in the package: $strays"
plugins=$(printf '%s\n' "$paths" | grep -c '^\./usr/lib/tessera/plugins/lib.*\.so$' || true)
manifests=$(printf '%s\n' "$paths" | grep -c '^\./usr/lib/tessera/manifests/.*\.json$' || true)
[ "$plugins" -gt 0 ] && [ "$plugins" = "$manifests" ] || fail "$plugins plugin libraries for $manifests manifests"
ok "$(printf '%s\n' "$paths" | grep -c .) paths, $plugins plugins with their manifests"

# --- 3 lintian ---------------------------------------------------------------------------------
begin lintian "lintian"
if [ "$lintian" = 0 ]; then
  echo "check-deb: [lintian] skipped (--no-lintian)"
elif command -v lintian >/dev/null 2>&1; then
  # As root lintian only adds a warning about it; the flags show every tag, down to pedantic ones.
  lintian --pedantic --display-info --display-experimental "$deb" >"$tmp/lintian.txt" 2>&1 || true
  grep -v '^running with root privileges' "$tmp/lintian.txt" >"$tmp/lintian-tags.txt" || true
  if grep -Eq '^[EW]: ' "$tmp/lintian-tags.txt"; then
    grep -E '^[EW]: ' "$tmp/lintian-tags.txt" >&2
    fail "lintian errors or warnings (above)"
  fi
  others=$(grep -E '^[IPXO]: ' "$tmp/lintian-tags.txt" | awk '{print $1, $3}' | sort | uniq -c | sort -rn \
             | awk '{printf "%s%s %s x%s", sep, $2, $3, $1; sep="; "}' || true)
  ok "no errors or warnings${others:+; other tags: $others}"
else
  echo "check-deb: [lintian] skipped: lintian is not installed (apt-get install -y lintian)"
fi

# --- 4 unpack ----------------------------------------------------------------------------------
begin unpack "dpkg-deb -x into a temporary root"
root=$tmp/root
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x failed"
L=$root/usr/lib/tessera
[ -x "$root/usr/bin/tessera" ] || fail "the unpacked /usr/bin/tessera does not lead to an executable"
ok "$root"

# --- 5 elf -------------------------------------------------------------------------------------
begin elf "RUNPATH and NEEDED of every packaged ELF file"
ldconfig -p >"$tmp/ldconfig.txt"
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
elfs=0
while IFS= read -r -d '' f; do
  head -c 4 "$f" | grep -q 'ELF' || continue
  elfs=$((elfs + 1))
  rel=${f#"$root"}
  rp=$(readelf -d "$f" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  IFS=: read -r -a entries <<<"$rp"
  for entry in "${entries[@]}"; do
    case $entry in
      '$ORIGIN'|'$ORIGIN'/*) dir=$(dirname "$f")${entry#\$ORIGIN} ;;
      /usr/lib/tessera/*) dir=$root$entry ;;
      *) fail "$rel: RUNPATH entry $entry points outside the package" ;;
    esac
    [ -d "$dir" ] || fail "$rel: RUNPATH entry $entry is not a packaged folder"
  done
  while read -r lib; do
    [ -e "$L/swift/$lib" ] || [ -e "$L/sdk/$lib" ] && continue
    grep -q "^[[:space:]]*$lib " "$tmp/ldconfig.txt" || fail "$rel needs $lib: neither packaged nor a system library here"
  done < <(needed "$f")
done < <(find "$L" -type f -print0)
for f in "$L"/plugins/*.so; do
  libs=$(needed "$f" | tr '\n' ' ')
  # A C-ABI plugin (tessera_plugin.h, docs/c-abi.md) speaks JSON through function tables: it must
  # not link the Swift SDK, and needs no Swift runtime of its own. A Swift plugin links both, shared.
  if nm -D --defined-only "$f" | grep ' tessera_c_plugin_entry$' >/dev/null; then
    case " $libs " in *" libTesseraSDK.so "*) fail "${f#"$root"} is a C-ABI plugin that links the Swift SDK" ;; esac
    continue
  fi
  case " $libs " in *" libswiftCore.so "*) ;; *) fail "${f#"$root"} does not link the shared Swift runtime (libswiftCore.so)" ;; esac
  case " $libs " in *" libTesseraSDK.so "*) ;; *) fail "${f#"$root"} does not link the shared SDK (libTesseraSDK.so)" ;; esac
done
resolved=$(env -i ldd "$L/bin/tessera") || fail "ldd cannot resolve tessera's libraries"
! grep -q 'not found' <<<"$resolved" || fail "tessera: $(printf '%s\n' "$resolved" | grep 'not found' | tr -s ' \t' ' ')"
outside=$(printf '%s\n' "$resolved" | awk '$1 ~ /^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime|TesseraSDK)/ {print $3}' | grep -v "^$root/" || true)
[ -z "$outside" ] || fail "tessera resolves Swift libraries outside the package: $outside"
ok "$elfs ELF files; tessera resolves the Swift runtime and SDK from the package"

# --- 6 units -----------------------------------------------------------------------------------
begin units "systemd-analyze verify tessera.service tessera-hub.service"
if command -v systemd-analyze >/dev/null 2>&1; then
  # The only change: ExecStart's /usr/bin/tessera is the unpacked one, so verify finds the program.
  mkdir -p "$tmp/units"
  for unit in tessera.service tessera-hub.service; do
    sed "s#^ExecStart=/usr/bin/tessera #ExecStart=$root/usr/bin/tessera #" "$root/lib/systemd/system/$unit" >"$tmp/units/$unit"
  done
  man_option=()
  command -v man >/dev/null 2>&1 || man_option=(--man=no)
  out=$(MANPATH=$root/usr/share/man systemd-analyze verify "${man_option[@]}" "$tmp/units/tessera.service" "$tmp/units/tessera-hub.service" 2>&1) \
    || fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  exposure=$(systemd-analyze security --offline=yes --no-pager "$tmp/units/tessera.service" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]* [A-Z]*\).*/\1/p' || true)
  ok "both units verify${exposure:+ (systemd-analyze security: $exposure)}"
else
  fail "systemd-analyze is not installed (apt-get install -y systemd)"
fi

# --- The unpacked deployments, rewritten to the temporary root ---------------------------------
# Only the installed prefixes change: /usr/lib/tessera and /usr/share/tessera (deployments and
# manifests). The data folder is --data. Run with an empty environment, from an empty folder.
mkdir -p "$tmp/etc" "$tmp/cwd" "$tmp/tmp" "$tmp/data"
for d in device hub; do
  sed -e "s#\"/usr/lib/tessera/#\"$root/usr/lib/tessera/#g" -e "s#\"/usr/share/tessera/#\"$root/usr/share/tessera/#g" \
      "$root/etc/tessera/$d.json" >"$tmp/etc/$d.json"
done
for m in "$L"/manifests/*.json; do
  sed -i -e "s#\"/usr/share/tessera/#\"$root/usr/share/tessera/#g" "$m"
done
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && getent passwd nobody >/dev/null; then
  chmod 0755 "$tmp"
  chown -R nobody: "$tmp/cwd" "$tmp/tmp" "$tmp/data"
  chmod 0700 "$tmp/data"
  as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --)
fi
# `host ARGS &` or `(host ARGS)`: replaces the subshell it runs in, so $! is the host's own pid.
host() { cd "$tmp/cwd" && umask 077 && exec "${as_user[@]}" env -i PATH=/usr/bin:/bin HOME="$tmp/cwd" TMPDIR="$tmp/tmp" LANG=C.UTF-8 "$root/usr/bin/tessera" "$@"; }
run() { (host "$@"); }

# --- 7 runner ----------------------------------------------------------------------------------
begin runner "tessera plugins verify --load (gates 2-3 in tessera-plugin-runner)"
for m in "$L"/manifests/*.json; do
  lib=$(tr -d ' \t\r\n' <"$m" | grep -o '"library":{"name":"[^"]*"' | sed 's/.*"name":"//; s/"$//')
  so=$L/plugins/lib$lib.so
  out=$(run plugins verify "$so" --manifest "$m" --load 2>&1) || fail "$(basename "$m"): $out"
  grep -q 'gate 3 ok' <<<"$out" || fail "$(basename "$m"): no gate 3 in: $out"
done
ok "$(ls "$L"/manifests/*.json | wc -l) plugins load and shake hands in the runner"

# --- 8/9 serve ---------------------------------------------------------------------------------
# GET (or POST with a body) on the host; prints the status code. Bash's /dev/tcp, so no curl needed.
http() {
  local method=$1 port=$2 path=$3 token=${4:-} body=${5:-} status
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  {
    printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n' "$method" "$path" "$port"
    [ -z "$token" ] || printf 'Authorization: Bearer %s\r\n' "$token"
    if [ -n "$body" ]; then printf 'Content-Type: application/json\r\nContent-Length: %s\r\n\r\n%s' "${#body}" "$body"
    else printf '\r\n'; fi
  } >&3
  IFS=' ' read -r -t 20 _ status _ <&3 || status=000
  exec 3<&- 3>&-
  echo "$status"
}

# Starts `tessera serve` on the deployment; sets serve_pid and serve_port once the host says where
# it serves (it prints that when every plugin has started).
serve() {
  local name=$1 log=$tmp/$1.log waited=0
  : >"$log"   # before the background job opens it, so the loop below can read it at once
  host serve --deployment "$tmp/etc/$name.json" --data "$tmp/data/$name" --port 0 >"$log" 2>&1 &
  serve_pid=$!
  pids+=("$serve_pid")
  serve_port=
  while [ -z "$serve_port" ]; do
    kill -0 "$serve_pid" 2>/dev/null || { cat "$log" >&2; fail "tessera serve exited before it served"; }
    [ "$waited" -lt $((timeout * 10)) ] || { cat "$log" >&2; fail "no 'serving' line within ${timeout}s"; }
    serve_port=$(sed -n 's#.* at http://127\.0\.0\.1:\([0-9]*\)/ .*#\1#p' "$log" | head -1 || true)
    [ -n "$serve_port" ] || { sleep 0.1; waited=$((waited + 1)); }
  done
}
stop() {
  local name=$1 code=0 waited=0
  kill -TERM "$serve_pid"
  while kill -0 "$serve_pid" 2>/dev/null && [ "$waited" -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -0 "$serve_pid" 2>/dev/null && fail "tessera serve did not stop within 30 s of SIGTERM"
  wait "$serve_pid" || code=$?
  [ "$code" = 0 ] || { cat "$tmp/$name.log" >&2; fail "tessera serve exited $code after SIGTERM"; }
  grep -q '^stopped$' "$tmp/$name.log" || fail "tessera serve did not say it stopped"
}

begin device "tessera serve on /etc/tessera/device.json (unpacked), a free loopback port, a temporary data folder"
serve device
status=$(http GET "$serve_port" /healthz) || fail "cannot connect to 127.0.0.1:$serve_port"
[ "$status" = 200 ] || fail "GET /healthz answered $status"
echo "check-deb: [device] GET /healthz 200 on 127.0.0.1:$serve_port (pid $serve_pid)"
ids=$(sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' "$tmp/etc/device.json")
for id in $ids; do
  grep -Eq "^$id +[^ ]+ +active " "$tmp/device.log" || { cat "$tmp/device.log" >&2; fail "plugin $id is not active"; }
done
token=$(sed -n '/^admin token/{n;s/^ *//p}' "$tmp/device.log")
[ -n "$token" ] || fail "the first start printed no admin token"
status=$(http GET "$serve_port" /readyz "$token"); [ "$status" = 200 ] || fail "GET /readyz answered $status"
for path in / /console/app.js; do
  status=$(http GET "$serve_port" "$path"); [ "$status" = 200 ] || fail "GET $path answered $status"
done
pages=0
for m in "$L"/manifests/*.json; do
  grep -q '"ui"' "$m" || continue
  id=$(sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' "$m" | head -1)
  printf '%s\n' $ids | grep -xF "$id" >/dev/null || continue
  status=$(http GET "$serve_port" "/ui/$id/"); [ "$status" = 200 ] || fail "GET /ui/$id/ (its pages from /usr/share/tessera/ui) answered $status"
  pages=$((pages + 1))
done
status=$(http POST "$serve_port" /v1/plugins/dev.tessera.example/ops/add-note "$token" '{"text": "packaged"}')
[ "$status" = 200 ] || fail "POST /v1/plugins/dev.tessera.example/ops/add-note answered $status"
# The CLI against the serving host: its HTTP client is URLSession in libTesseraFoundationOnDemand.so,
# which the host loads from beside its executable on first use (with FoundationNetworking, libcurl).
out=$(run plugins list --running --url "http://127.0.0.1:$serve_port/" --token "$token" 2>&1) \
  || fail "tessera plugins list --running (through libTesseraFoundationOnDemand.so): $out"
printf '%s\n' "$out" | grep -Eq '^dev\.tessera\.example +[^ ]+ +active ' || fail "tessera plugins list --running: $out"
maps=$(awk '$6 ~ /\.so/ {print $6}' "/proc/$serve_pid/maps" | sort -u)
swift_outside=$(printf '%s\n' "$maps" | grep -E '/lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime|TesseraSDK)[^/]*\.so' | grep -v "^$root/" || true)
[ -z "$swift_outside" ] || fail "the host mapped Swift libraries from outside the package: $swift_outside"
copies=$(printf '%s\n' "$maps" | grep -c '/libswiftCore\.so$' || true)
[ "$copies" = 1 ] || fail "$copies copies of libswiftCore.so mapped"
stop device
ok "$(printf '%s\n' $ids | wc -l) plugins active, /readyz, the console, $pages modules' pages, an operation called, the CLI's HTTP client; one Swift runtime, the package's; stopped on SIGTERM"

begin hub "tessera serve on /etc/tessera/hub.json (unpacked)"
serve hub
status=$(http GET "$serve_port" /healthz) || fail "cannot connect to 127.0.0.1:$serve_port"
[ "$status" = 200 ] || fail "GET /healthz answered $status"
token=$(sed -n '/^admin token/{n;s/^ *//p}' "$tmp/hub.log")
[ -n "$token" ] || fail "the first start printed no admin token"
status=$(http GET "$serve_port" /readyz "$token"); [ "$status" = 200 ] || fail "GET /readyz answered $status"
stop hub
ok "GET /healthz 200 on 127.0.0.1:$serve_port, /readyz; stopped on SIGTERM"

echo "check-deb: all checks passed: $(basename "$deb")"
