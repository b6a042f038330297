#!/usr/bin/env python3
"""A month on the virtual clock, everything at once (issue 43).

One hub (`tessera serve`, role hub, SQLite), the safe-travel watcher, and six device hosts (three
people x two devices), each `tessera serve` on its own data directory and virtual clock with the
five modules, syncing through the hub; the IS/STAG emulator behind https://stag-demo.zcu.cz. The
script drives a simulated month day by day over real HTTP on loopback, SIGKILLs the hub, the
watcher or a device at random moments (seeded) and restarts it on the same data directory, and at
the end checks: every acknowledged write is on every device that should hold it, both devices of
each person (and the partner sharing a child) list the same records, and every notification the
script can compute as due was delivered exactly once on every device it is addressed to.

    scripts/month-soak.py                        # 30 days, 12 kills, seed 1
    scripts/month-soak.py --days 7 --kills 6     # the bounded version (CI)
    scripts/month-soak.py --seed 7 --keep        # keep the data directories for inspection

Binaries: without --bin, the script copies what it needs from .build/debug into a snapshot folder
(/tmp/soak-bin-<pid>) first and runs from there, so a rebuild of .build/debug meanwhile does not
change the run. With --bin DIR it runs from DIR (copying into it first when DIR has no `tessera`
and --from names a build folder). Python 3 standard library only. Docs: docs/soak.md.
"""
import argparse
import datetime as dt
import glob
import json
import os
import sqlite3
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = dt.datetime(2026, 3, 2, 8, 0, 0, tzinfo=dt.timezone.utc)
PASSWORD = "correct horse battery"
PIN = "4826"
PEOPLE = ["ada", "bob", "cyd"]
KINDS = ["phone", "laptop"]
CHILD = {"ada": "Ema", "bob": "Ben", "cyd": "Cyril"}
PARTNER = ("ada", "bob")  # ada shares her child with bob as a parent
FIN, STRESS, BABY, TRAVEL, STAG = ("cz.tessera.finance", "cz.tessera.stress", "cz.tessera.baby",
                                    "cz.tessera.safetravel", "cz.tessera.stag")
BUDGET = 600  # EUR a month, repeated: the daily expenses pass it in the first week
READY_TIMEOUT = 90
SYNC_EVERY, SYNC_EVERY_SECONDS = "4h", 4 * 3600  # each host's periodic round; changes go at once (2 s, the long poll)
HTTP_TIMEOUT = 120
ADVANCE_TIMEOUT = 600


class SoakError(Exception):
    pass


def iso(t):
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text):
    text = text.replace("Z", "+00:00")
    return dt.datetime.fromisoformat(text)


def duration(seconds):
    seconds = int(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append("%d%s" % (seconds // size, unit))
            seconds %= size
    return "".join(parts) or "0s"


def log(*parts):
    print(*parts, flush=True)


# ---------------------------------------------------------------------------------------------
# HTTP


class Unreachable(Exception):
    pass


def http(port, method, path, body=None, token=None, timeout=HTTP_TIMEOUT):
    """(status, parsed JSON or text); Unreachable when the connection failed or was cut."""
    data = None
    headers = {}
    if token:
        headers["Authorization"] = "Bearer " + token
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            raw = answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        raw = error.read()
        status = error.code
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as error:
        raise Unreachable(str(error))
    try:
        return status, json.loads(raw.decode() or "null")
    except ValueError:
        return status, raw.decode(errors="replace")


# ---------------------------------------------------------------------------------------------
# Binaries


NEEDED = ["tessera", "tessera-plugin-runner", "stag-emulator"]


def snapshot(source, target):
    """Copies the executables, every shared library and resource bundle of a build folder."""
    for name in NEEDED:
        if not os.path.isfile(os.path.join(source, name)):
            raise SoakError("%s/%s is missing: build first (swift build)" % (source, name))
    os.makedirs(target, exist_ok=True)
    for name in NEEDED:
        shutil.copy2(os.path.join(source, name), os.path.join(target, name))
    for path in glob.glob(os.path.join(source, "*.so")):
        shutil.copy2(path, os.path.join(target, os.path.basename(path)))
    for path in glob.glob(os.path.join(source, "*.resources")):
        destination = os.path.join(target, os.path.basename(path))
        if os.path.isdir(destination):
            shutil.rmtree(destination)
        shutil.copytree(path, destination, symlinks=True)
    for name in ("libTesseraSDK.so", "libTesseraFoundationOnDemand.so", "libTesseraFinance.so", "libTesseraStress.so",
                 "libTesseraBaby.so", "libTesseraSafeTravel.so", "libTesseraSTAG.so"):
        if not os.path.isfile(os.path.join(target, name)):
            raise SoakError("%s is not in %s (copied from %s): build every product first" % (name, target, source))


# ---------------------------------------------------------------------------------------------
# Hosts


class Host:
    """One `tessera serve` process on a data directory of its own and a fixed port."""

    def __init__(self, soak, name, port, deployment, data, person=None, device=None):
        self.soak, self.name, self.port = soak, name, port
        self.deployment, self.data = deployment, data
        self.person, self.device = person, device
        self.process = None
        self.token = None
        self.kills = 0
        self.known_now = None  # its virtual clock as its last advance answered (None: ask it)
        self.logfile = os.path.join(os.path.dirname(data), name + ".log")

    def cli(self, *arguments, stdin=None, check=True):
        command = [self.soak.tessera] + list(arguments) + ["--deployment", self.deployment, "--data", self.data]
        for attempt in range(5):
            result = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=300)
            if result.returncode != 5:  # 5: the hub could not be reached (a loaded machine): try again
                break
            time.sleep(2)
        if check and result.returncode != 0:
            raise SoakError("%s: tessera %s -> exit %d: %s" % (self.name, " ".join(arguments), result.returncode,
                                                                (result.stderr or result.stdout).strip()))
        return result

    def make_token(self):
        self.token = self.cli("token", "create", "--role", "admin", "soak").stdout.strip()
        if not self.token.startswith("tsr_"):
            raise SoakError("%s: no token from tessera token create: %r" % (self.name, self.token))

    def start(self):
        self.known_now = None
        out = open(self.logfile, "a")
        out.write("\n=== start %s (wall) ===\n" % time.strftime("%H:%M:%S"))
        out.flush()
        self.process = subprocess.Popen([self.soak.tessera, "serve", "--deployment", self.deployment, "--data", self.data],
                                        stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out.close()
        self.wait_ready()

    def wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SoakError("%s: tessera serve exited with %s on start (see %s):\n%s" % (
                    self.name, self.process.returncode, self.logfile, tail(self.logfile)))
            try:
                status, _ = http(self.port, "GET", "/readyz", timeout=5)
                if status == 200:
                    return
            except Unreachable:
                pass
            time.sleep(0.1)
        raise SoakError("%s: not ready after %d s (see %s):\n%s" % (self.name, READY_TIMEOUT, self.logfile, tail(self.logfile)))

    def kill(self):
        self.known_now = None
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        if self.process:
            self.process.wait()
        self.kills += 1

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def alive(self):
        return self.process is not None and self.process.poll() is None

    # -- API

    def op(self, plugin, operation, body=None, timeout=HTTP_TIMEOUT):
        """(status, answer) of one operation; Unreachable if the host died meanwhile."""
        return http(self.port, "POST", "/v1/plugins/%s/ops/%s" % (plugin, operation), body if body is not None else {},
                    token=self.token, timeout=timeout)

    def read(self, plugin, operation, body=None):
        """A read that must succeed: retried while the host is starting."""
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                status, answer = self.op(plugin, operation, body)
            except Unreachable as error:
                status, answer = None, str(error)
            if status == 200:
                return answer
            if time.monotonic() > deadline or (status is not None and status not in (429, 503)):
                raise SoakError("%s: %s %s %s -> %s %s" % (self.name, plugin, operation, json.dumps(body), status, answer))
            time.sleep(0.2)

    def clock(self):
        status, answer = http(self.port, "GET", "/v1/clock", token=self.token, timeout=30)
        if status != 200:
            raise SoakError("%s: GET /v1/clock -> %s %s" % (self.name, status, answer))
        return parse_time(answer["now"])

    def advance(self, seconds):
        if seconds <= 0:
            return
        self.known_now = None
        status, answer = http(self.port, "POST", "/v1/clock/advance", {"by": duration(seconds)}, token=self.token,
                              timeout=ADVANCE_TIMEOUT)
        if status != 200:
            raise SoakError("%s: clock advance %s -> %s %s" % (self.name, duration(seconds), status, answer))
        self.known_now = parse_time(answer["now"])

    def catch_up(self, target):
        """Moves this host's virtual clock to `target` (it may be behind after a kill)."""
        now = self.known_now or self.clock()
        if now < target:
            self.advance((target - now).total_seconds())

    def inbox(self):
        entries, after = [], 0
        while True:
            status, answer = http(self.port, "GET", "/v1/notifications?after=%d&limit=500" % after, token=self.token)
            if status != 200:
                raise SoakError("%s: GET /v1/notifications -> %s %s" % (self.name, status, answer))
            page = answer.get("notifications", [])
            entries.extend(page)
            if len(page) < 500:
                return entries
            after = max(entry["id"] for entry in page)


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as handle:
            return "".join(handle.readlines()[-lines:])
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------------
# The soak


class Soak:
    def __init__(self, options):
        self.options = options
        self.rng = random.Random(options.seed)
        self.work = options.workdir or tempfile.mkdtemp(prefix="month-soak-%d-" % options.seed)
        os.makedirs(self.work, exist_ok=True)
        self.bin = options.bin
        self.tessera = os.path.join(self.bin, "tessera")
        self.now = START  # the group's virtual time: every live host's clock reads this between steps
        base = options.port_base
        self.hub_port, self.watcher_port, self.emulator_port = base, base + 1, base + 2
        self.hosts = {}
        self.devices = {}  # person -> [Host, Host]
        self.acked = []  # every acknowledged write: dict(kind, id, person, device, holders, day)
        self.unanswered = 0  # writes whose answer the kill cut off (not acknowledged: not checked)
        self.refused = []  # writes refused with a 4xx/5xx the script did not expect
        self.kills_done = 0
        self.kill_log = []
        self.emulator = None
        self.children = {}  # person -> child id
        self.child_holders = {}  # child id -> people whose devices hold it
        self.guardians = {}  # traveller -> [guardian names]
        self.missed = []  # (traveller, slot id): asked, never answered
        self.answered = []  # (traveller, slot id): answered in time (acknowledged)
        self.trips = []  # (traveller, trip id, device that started it, day)
        self.baby_reminders = []  # (device name, record id, due)
        self.grades = []  # (subject, grade)
        self.ended = set()  # trips ended (acknowledged) before their arrival time
        self.care_days = set()  # local days with care entries (care-list is per day)
        self.spent = {}  # person -> minor units of acknowledged expenses in March
        self.finance_cut = set()  # people with a finance write whose answer a kill cut off
        self.setup_done_at = None
        self.timing = {}  # wall seconds spent advancing clocks, by kind of step
        self.order_only = []  # listings that hold the same records in another order on two devices
        self.past_retention = 0  # safe-travel writes old enough to have been deleted by its retention
        self.arrivals = []  # seconds of clock until another device listed a record it must act on
        self.late_arrivals = []
        self.unsettled = None

    # -- processes

    def deployment(self, name, body):
        path = os.path.join(self.work, name + ".json")
        with open(path, "w") as handle:
            json.dump(body, handle, indent=2)
        return path

    def common(self, name, port, data):
        return {
            "name": "soak-" + name, "dataDirectory": data,
            "manifestDirectories": [os.path.join(REPO, "manifests")], "libraryPaths": [self.bin],
            "http": {"host": "127.0.0.1", "port": port,
                     "rateLimit": {"perSecond": 0, "admin": {"perSecond": 0}}},
        }

    def device_plugins(self):
        travel = {"watcher": "watcher", "pinIterations": 1000, "silenceTimeout": "12h", "pairingEvery": "6h"}
        return [
            {"id": FIN, "version": "^1.0", "grants": {"storage": {}, "clock": {}, "notifications": {}, "http": {}, "secrets": {},
                                                      "events": {}, "sync": {}}},
            {"id": STRESS, "version": "^1.0", "grants": {"storage": {}, "clock": {}, "notifications": {}, "sync": {}}},
            {"id": BABY, "version": "^1.0", "grants": {"storage": {}, "clock": {}, "notifications": {}, "files": {}, "events": {},
                                                       "sync": {}}},
            {"id": TRAVEL, "version": "^0.1", "config": travel,
             "grants": {"storage": {}, "clock": {}, "notifications": {"spaces": True}, "location": {}, "sync": {}, "files": {}}},
            {"id": STAG, "version": "^0.1", "grants": {"storage": {}, "clock": {}, "http": {"hosts": ["stag-demo.zcu.cz", "www.zcu.cz"]},
                                                       "secrets": {}, "notifications": {}, "events": {}, "sync": {}}},
        ]

    def setup(self):
        log("month-soak: seed %d, %d days, %d kills, binaries %s, data %s" % (
            self.options.seed, self.options.days, self.options.kills, self.bin, self.work))
        hub_url = "http://127.0.0.1:%d" % self.hub_port
        emulator_url = "http://127.0.0.1:%d" % self.emulator_port

        # The STAG emulator: its time at the start, tickets that outlive the month.
        self.emulator_log = open(os.path.join(self.work, "stag-emulator.log"), "a")
        self.emulator = subprocess.Popen([os.path.join(self.bin, "stag-emulator"), "--port", str(self.emulator_port)],
                                         stdout=self.emulator_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.emulate("ticket-lifetime", {"seconds": 90 * 86400}, wait=True)
        self.emulate("time", {"now": iso(START)})

        # The hub (system clock: a device's virtual March is never ahead of it) with the people.
        data = os.path.join(self.work, "hub", "data")
        os.makedirs(data, exist_ok=True)
        body = self.common("hub", self.hub_port, data)
        body.update({"role": "hub", "providers": {"storage": {"kind": "sqlite"}, "clock": {"kind": "system"}}, "plugins": []})
        hub = Host(self, "hub", self.hub_port, self.deployment("hub", body), data)
        for person in PEOPLE + ["watcher"]:
            hub.cli("hub", "person", "add", person, stdin=PASSWORD + "\n")
        hub.make_token()
        hub.start()
        self.hosts["hub"] = hub

        # The watcher, on the same virtual time as the devices.
        data = os.path.join(self.work, "watcher", "data")
        os.makedirs(data, exist_ok=True)
        body = self.common("watcher", self.watcher_port, data)
        body.update({"role": "device",
                     "providers": {"storage": {"kind": "sqlite"}, "clock": {"kind": "virtual", "start": iso(START)},
                                   "sync": {"hub": hub_url, "every": "5m"}},  # watcher.json: 1m; 5m here keeps the run short
                     "plugins": [{"id": TRAVEL, "version": "^0.1",
                                  "config": {"watcherName": "watcher", "silenceTimeout": "12h", "watchEvery": "10m"},
                                  "grants": {"storage": {}, "clock": {}, "notifications": {"spaces": True}, "sync": {}}}]})
        watcher = Host(self, "watcher", self.watcher_port, self.deployment("watcher", body), data, person="watcher")
        watcher.cli("sync", "login", "watcher", "--device", "safe-travel watcher", stdin=PASSWORD + "\n")
        watcher.make_token()
        watcher.start()
        self.hosts["watcher"] = watcher

        port = self.emulator_port + 1
        for person in PEOPLE:
            self.devices[person] = []
            for kind in KINDS:
                name = "%s-%s" % (person, kind)
                data = os.path.join(self.work, name, "data")
                os.makedirs(data, exist_ok=True)
                body = self.common(name, port, data)
                body.update({"role": "device",
                             "providers": {"storage": {"kind": "sqlite"}, "clock": {"kind": "virtual", "start": iso(START)},
                                           "http": {"redirects": {"https://stag-demo.zcu.cz": emulator_url}},
                                           "sync": {"hub": hub_url, "every": SYNC_EVERY}},
                             "plugins": self.device_plugins()})
                host = Host(self, name, port, self.deployment(name, body), data, person=person, device=name)
                host.cli("sync", "login", person, "--device", name, stdin=PASSWORD + "\n")
                host.make_token()
                host.start()
                self.hosts[name] = host
                self.devices[person].append(host)
                port += 1

        # Each person's first device: the stress programme, the budget, the child, safe travel, STAG.
        for person in PEOPLE:
            first = self.devices[person][0]
            self.must(first, STRESS, "consent-give", {"consentVersion": "1", "accepted": True})
            self.must(first, STRESS, "questionnaire-submit", {"kind": "entry", "answers": [
                {"questionId": q, "value": v} for q, v in ((1, 1), (2, 2), (3, 3), (4, 0), (5, 4))]})
            self.must(first, STRESS, "questionnaire-submit", {"kind": "screen", "answers": [
                {"questionId": q, "optionId": o} for q, o in ((1, 1), (2, 2), (3, 2))]})
            self.must(first, FIN, "budget-set", {"amount": str(BUDGET), "repeatMonthly": True})
            self.must(first, FIN, "notifications-configure", {"weeklyBudget": True, "logReminder": False})
            child = self.must(first, BABY, "child-create", {"name": CHILD[person], "birthDate": "2025-09-01"})["id"]
            self.children[person] = child
            self.child_holders[child] = [person]
            self.must(first, TRAVEL, "account-setup", {"username": person, "pin": PIN})
        self.propagate()

        # Guardians: a ring of two-way pairings, so everyone guards everyone.
        for traveller, guardian in (("ada", "bob"), ("bob", "cyd"), ("cyd", "ada")):
            t, g = self.devices[traveller][0], self.devices[guardian][0]
            self.must(t, TRAVEL, "guardian-add", {"username": guardian})
            self.propagate()
            waiting = [r for r in g.read(TRAVEL, "guardian-requests").get("requests", []) if r.get("from") == traveller]
            if not waiting:
                raise SoakError("%s has no guardian request from %s" % (g.name, traveller))
            self.must(g, TRAVEL, "guardian-accept", {"requestId": waiting[0]["requestId"]})
            self.propagate()
            t.read(TRAVEL, "guardian-requests")  # completes the pairing
            self.propagate()
        # The partner: ada shares her child with bob as a parent.
        owner, partner = PARTNER
        child = self.children[owner]
        self.must(self.devices[owner][0], BABY, "share-invite", {"childId": child, "person": partner, "level": "parent"})
        self.propagate()
        invitations = self.devices[partner][0].read(BABY, "invitations-list").get("invitations", [])
        if not invitations:
            raise SoakError("%s has no invitation to %s's child" % (partner, owner))
        self.must(self.devices[partner][0], BABY, "invitation-accept", {"invitationId": invitations[0]["invitationId"]})
        self.child_holders[child].append(partner)

        # Second devices: safe travel joins the same travel space; STAG on both devices.
        for person in PEOPLE:
            self.must(self.devices[person][1], TRAVEL, "account-setup", {"username": person, "pin": PIN})
            for host in self.devices[person]:
                self.must(host, STAG, "login-basic", {"university": "demo", "userName": "NOVAKJ", "password": "heslo123"})
        for _ in range(2):
            self.advance_all(600)  # the watcher looks for invitations every 10 min; rounds run
        for person in PEOPLE:
            answer = self.devices[person][0].read(TRAVEL, "guardians")
            self.guardians[person] = sorted(g["username"] for g in answer.get("guardians", []) if g.get("status") == "ACCEPTED")
        watched = sorted(g["username"] for g in self.hosts["watcher"].read(TRAVEL, "guardians").get("guarding", []))
        log("month-soak: set up at %s; guardians %s; the watcher watches %s" % (
            iso(self.now), json.dumps(self.guardians, sort_keys=True), watched))
        if watched != sorted(PEOPLE):
            raise SoakError("the watcher watches %s, not %s" % (watched, PEOPLE))
        self.setup_done_at = self.now

    def emulate(self, route, body, wait=False):
        deadline = time.monotonic() + (30 if wait else 5)
        while True:
            try:
                status, answer = http(self.emulator_port, "POST", "/_emulator/" + route, body, timeout=10)
                if status == 200:
                    return
                raise SoakError("stag-emulator /_emulator/%s %s -> %s %s" % (route, json.dumps(body), status, answer))
            except Unreachable:
                if time.monotonic() > deadline:
                    raise SoakError("stag-emulator does not answer on port %d" % self.emulator_port)
                time.sleep(0.2)

    # -- writes

    def must(self, host, plugin, operation, body):
        """A set-up step: it must succeed."""
        status, answer = host.op(plugin, operation, body)
        if status != 200:
            raise SoakError("%s: %s %s %s -> %s %s" % (host.name, plugin, operation, json.dumps(body), status, answer))
        return answer

    def write(self, host, plugin, operation, body, kind, holders, day, identify=lambda a: a.get("id"), kill_after=None):
        """One write of the month: recorded when the API acknowledged it (2xx) with its identifier.
        `kill_after` (seconds): SIGKILL the host that long after sending, then restart it."""
        killer = None
        if kill_after is not None:
            killer = threading.Timer(kill_after, host.kill)
            killer.start()
        try:
            status, answer = host.op(plugin, operation, body)
        except Unreachable:
            status, answer = None, None
        if killer:
            killer.join()
            self.restarted(host, "during %s %s" % (plugin, operation))
        if status is None:
            self.unanswered += 1
            return None
        if 200 <= status < 300:
            ident = identify(answer) if isinstance(answer, dict) else None
            self.acked.append({"kind": kind, "plugin": plugin, "op": operation, "id": ident, "person": host.person,
                               "device": host.name, "holders": holders, "day": day})
            return answer
        self.refused.append("%s: %s %s %s -> %s %s" % (host.name, plugin, operation, json.dumps(body), status, answer))
        return None

    # -- time

    def live(self):
        return [h for h in self.hosts.values() if h.name != "hub"]

    def advance_all(self, seconds, kill=None):
        """Every host's clock moves by `seconds`, one after another (the watcher first)."""
        began = time.monotonic()
        try:
            self._advance_all(seconds, kill)
        finally:
            bucket = "steps of up to 10 min" if seconds <= 600 else "longer steps"
            self.timing[bucket] = self.timing.get(bucket, 0) + time.monotonic() - began

    def _advance_all(self, seconds, kill=None):
        """The watcher first, then the six devices side by side (as real devices run), each to
        the same target. With `kill`, its victim is SIGKILLed `delay` seconds into the step (into
        the advance of the host `during`), restarted on its data directory and caught up."""
        target = self.now + dt.timedelta(seconds=seconds)
        watcher = self.hosts["watcher"]
        devices = [h for p in PEOPLE for h in self.devices[p]]
        timer = None
        errors = {}

        def move(host):
            try:
                host.catch_up(target)
            except (Unreachable, SoakError) as error:
                errors[host.name] = error

        def arm():
            nonlocal timer
            timer = threading.Timer(kill["delay"], kill["target"].kill)
            timer.start()

        if kill is not None and kill["during"] is watcher:
            arm()
        move(watcher)
        if kill is not None and timer is None:
            arm()
        threads = [threading.Thread(target=move, args=(h,), daemon=True) for h in devices]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if timer is not None:
            timer.join()
            victim = kill["target"]
            errors.pop(victim.name, None)  # its advance was cut: it is caught up once restarted
            self.restarted(victim, kill["what"], target if victim is not self.hosts["hub"] else None)
        if errors:
            name, error = sorted(errors.items())[0]
            raise SoakError("%s: advancing its clock to %s failed: %s" % (name, iso(target), error))
        self.now = target

    def propagate(self, passes=2):
        """Lets what was just written reach the other hosts: a round runs 2 s after a local change
        (on the host's clock), and a host the hub's long poll told runs one at once."""
        for _ in range(passes):
            self.advance_all(3)
            time.sleep(0.3)

    def await_record(self, host, plugin, operation, body, ident, what, holds=None):
        """Lets the group's clocks run a few seconds at a time (with a short wall pause for the
        hub's long poll) until `host` lists `ident` (and `holds(answer)`), as another device
        would a few seconds of real time later: the virtual clock runs minutes in the
        milliseconds a long poll takes to answer, so without this a deadline minutes away would
        pass before the device heard of an answer. Records how long that took; gives up after 60 s
        of clock."""
        def listed():
            try:
                status, answer = host.op(plugin, operation, body)
            except Unreachable:
                return False
            return status == 200 and ident in collect_ids(answer) and (holds is None or holds(answer))
        return self.run_clocks_until(listed, "%s did not list %s after 60 s of clock (%s)" % (host.name, ident, what))

    def await_seen(self, host, subject, grade):
        """Lets the clocks run as ``await_record`` does until `host`, the person's other device, has
        the mark that the grade was announced (STAG's synced `seen` table), as it would a few
        seconds of real time after the working device announced it. Without this the other
        device's hourly refresh, minutes later on its virtual clock but milliseconds later in wall
        time, found the grade unannounced and announced it again (a duplicate the soak once saw)."""
        database = os.path.join(host.data, "plugins", STAG, "storage.sqlite")
        pattern = "%%|grade:%s/%%/%s" % (subject, grade)
        def marked():
            try:
                with sqlite3.connect("file:%s?mode=ro" % database, uri=True, timeout=5) as db:
                    return db.execute("SELECT 1 FROM seen WHERE id LIKE ?", (pattern,)).fetchone() is not None
            except sqlite3.Error:
                return False  # not created yet, or the device is restarting
        return self.run_clocks_until(marked, "%s did not have the grade %s %s marked announced after 60 s of clock" % (
            host.name, subject, grade))

    def run_clocks_until(self, arrived, late_note):
        """Runs every clock 2 s at a time, with a 0.2 s wall pause for the hub's long poll, until
        `arrived()`; records the clock seconds it took, or `late_note` after 60 s of clock."""
        for attempt in range(31):
            if arrived():
                self.arrivals.append(attempt * 2)
                return True
            if attempt == 30:
                break
            self.advance_all(2)
            time.sleep(0.2)
        self.late_arrivals.append(late_note)
        return False

    def restarted(self, host, what, target=None):
        self.kills_done += 1
        self.kill_log.append("%s at %s (%s)" % (host.name, iso(self.now), what))
        host.start()
        if host.name != "hub":
            host.catch_up(target or self.now)
        else:
            time.sleep(2)  # the hosts' long polls, which back off while the hub is down, wait at it again

    # -- kills

    def plan_kills(self):
        """Each kill: a day, a moment of that day, and a victim, drawn from the seed."""
        victims = ["hub", "watcher"] + ["%s-%s" % (p, k) for p in PEOPLE for k in KINDS]
        plan = {}
        for _ in range(self.options.kills):
            day = self.rng.randrange(self.options.days)
            moment = self.rng.choice(["write", "morning", "check-in", "day"])
            victim = self.rng.choice(victims)
            plan.setdefault(day, []).append({"moment": moment, "victim": victim, "delay": self.rng.uniform(0.0, 0.25)})
        return plan

    def kill_spec(self, spec):
        """A kill during an advance: the victim dies while some host's clock moves (for the hub,
        while a device's rounds push and pull through it)."""
        victim = self.hosts[spec["victim"]]
        if victim.name == "hub":
            during = self.rng.choice([h for p in PEOPLE for h in self.devices[p]])
        else:
            during = victim
        return {"target": victim, "during": during, "delay": spec["delay"], "what": "%s, during %s's clock advance" % (
            spec["moment"], during.name)}

    # -- a day

    def day(self, d, kills):
        start = self.now
        date = start.strftime("%Y-%m-%d")
        local_past = (start - dt.timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
        working = {self.devices[p][(d + i) % 2].name for i, p in enumerate(PEOPLE)}
        write_kills = [k for k in kills if k["moment"] == "write" and k["victim"] in working]
        other_kills = [k if k["moment"] != "write" else dict(k, moment="morning") for k in kills if k not in write_kills]
        self.emulate("time", {"now": iso(start)})

        for index, person in enumerate(PEOPLE):
            host = self.devices[person][(d + index) % 2]  # alternate the working device
            mine = [person]
            kill_here = [k for k in write_kills if k["victim"] == host.name]

            def kill_after():
                if kill_here:
                    return kill_here.pop()["delay"] / 5
                return None

            # Finance: two expenses a day, one income a week.
            for n in range(2):
                minor = self.rng.randint(2000, 12099)
                amount = "%d.%02d" % (minor // 100, minor % 100)
                before = self.unanswered
                answer = self.write(host, FIN, "transaction-add", {"kind": "expense", "name": "day %d #%d" % (d + 1, n + 1),
                                                                   "amount": amount, "date": date,
                                                                   "category": self.rng.choice(["food", "transport", "shopping"])},
                                    "transaction", mine, d, kill_after=kill_after())
                if answer is not None and date.startswith("2026-03"):
                    self.spent[person] = self.spent.get(person, 0) + minor
                elif self.unanswered > before:
                    self.finance_cut.add(person)
            if d % 7 == 3:
                self.write(host, FIN, "transaction-add", {"kind": "income", "name": "wage", "amount": "900", "category": "salary",
                                                          "date": date}, "transaction", mine, d)
            # Stress: a diary record every day, a note every other day.
            level = self.rng.randint(1, 4)
            self.write(host, STRESS, "diary-record", {"level": level, "questionId": level * 100 + 1, "text": "day %d" % (d + 1)},
                       "diary", mine, d, kill_after=kill_after())
            if d % 7 == 5:  # a week form: the week's first goal
                self.write(host, STRESS, "goal-save", {"questionId": 1, "text": "goal of week %d" % (d // 7 + 1)}, "week-form", mine, d,
                           identify=lambda a: None)
            if d % 2 == 0:
                self.write(host, STRESS, "diary-note", {"text": "note of day %d by %s" % (d + 1, host.name)}, "diary", mine, d)
            # Baby: care every day, growth every third day, a vaccination reminder every fifth.
            child = self.children[person]
            holders = self.child_holders[child]
            self.care_days.add(local_past[:10])
            self.write(host, BABY, "care-add", {"childId": child, "kind": "nappy", "at": local_past, "nappy": "wet"}, "care", holders, d,
                       kill_after=kill_after())
            if d % 3 == 0:
                weight = round(7.0 + 0.03 * d + self.rng.random() * 0.05, 2)
                self.write(host, BABY, "measurement-add", {"childId": child, "kind": "weight", "value": weight, "date": date},
                           "measurement", holders, d)
            if d % 5 == 1:
                remind = (start + dt.timedelta(days=1)).strftime("%Y-%m-%dT10:00")
                answer = self.write(host, BABY, "vaccination-add", {"childId": child, "name": "dose %d" % (d + 1),
                                                                    "date": (start + dt.timedelta(days=1)).strftime("%Y-%m-%d"),
                                                                    "remindAt": remind}, "vaccination", holders, d)
                if answer and answer.get("id"):
                    self.baby_reminders.append((host.name, answer["id"], remind))
            if person == PARTNER[1] and d % 2 == 1:  # bob feeds ada's child on odd days
                shared = self.children[PARTNER[0]]
                self.write(host, BABY, "care-add", {"childId": shared, "kind": "nappy", "at": local_past, "nappy": "dirty"}, "care",
                           self.child_holders[shared], d)
            # STAG: a note every other day.
            if d % 2 == 1:
                self.write(host, STAG, "note-save", {"title": "day %d" % (d + 1), "text": "from %s" % host.name}, "stag-note", mine, d)
            for spec in kill_here:  # no write was left to cut: kill during the next advance
                other_kills.append(dict(spec, moment="morning"))

        # IS/STAG publishes a grade every fourth day; each person's working device refreshes.
        if d % 4 == 2 and len(self.grades) < 8:
            subject = ["KMI/PRG", "KMI/ALG"][len(self.grades) % 2]
            grade = str(len(self.grades) // 2 + 1)
            self.emulate("grades", {"subject": subject, "grade": grade, "date": iso(start)})
            self.grades.append((subject, grade))
            for index, person in enumerate(PEOPLE):
                host = self.devices[person][(d + index) % 2]
                self.write(host, STAG, "refresh", {}, "stag-refresh", [person], d, identify=lambda a: None)
            for index, person in enumerate(PEOPLE):
                self.await_seen(self.devices[person][(d + index + 1) % 2], subject, grade)

        kill = self.pop_kill(other_kills, "morning")
        self.propagate_with(kill)

        # Safe travel: a guardian asks a check-in of someone each day; a trip every other day.
        to_answer = []
        for index, traveller in enumerate(PEOPLE):
            if self.rng.random() < 0.5:
                guardians = self.guardians.get(traveller) or []
                if guardians:
                    guardian = self.rng.choice(guardians)
                    asking = self.devices[guardian][(d + PEOPLE.index(guardian)) % 2]
                    answer = self.write(asking, TRAVEL, "checkin-request", {"target": traveller}, "checkin-request",
                                        [traveller, guardian], d)
                    if answer:
                        slot = (answer.get("checkins") or [{}])[0].get("id")
                        if slot:
                            (to_answer if self.rng.random() < 0.5 else self.missed).append((traveller, slot))
            if (d + index) % 2 == 0:
                host = self.devices[traveller][(d + index) % 2]
                eta = iso(self.now + dt.timedelta(hours=2))
                answer = self.write(host, TRAVEL, "trip-start", {"expectedArrivalAt": eta}, "trip", [traveller], d)
                if answer and answer.get("id"):
                    self.trips.append((traveller, answer["id"], host.name, d))
        self.propagate()
        # Answered check-ins: on the traveller's other device, a minute later.
        self.advance_all(60)
        # Only an acknowledged answer must silence the alert; a refused one leaves the slot missed,
        # and one whose answer a kill cut off is checked neither way.
        for traveller, slot in to_answer:
            other = self.devices[traveller][(d + PEOPLE.index(traveller) + 1) % 2]
            self.await_record(other, TRAVEL, "checkins", {}, slot, "a check-in asked of %s" % traveller)
            before = (len(self.acked), self.unanswered)
            self.write(other, TRAVEL, "checkin-confirm", {"checkinId": slot}, "checkin-answer", [traveller], d,
                       identify=lambda a: None)
            if len(self.acked) > before[0]:
                self.answered.append((traveller, slot))
                # Her working device decides too (a fallback 2 min after the watcher): it hears of
                # the answer before going on, as it would in real time.
                working = [h for h in self.devices[traveller] if h is not other][0]
                self.await_record(working, TRAVEL, "checkins", {}, slot, "%s's answer, on her other device" % traveller,
                                  holds=lambda a, slot=slot: slot not in collect_ids(a.get("unanswered")))
            elif self.unanswered == before[1]:
                self.missed.append((traveller, slot))
        self.propagate()

        # The next 40 minutes in short steps, a minute apart around the check-in deadlines (10 min
        # after the requests), the watcher's grace (30 s more) and the traveller's fallback (2 min
        # more); trips end on the traveller's other device after half an hour.
        kill = self.pop_kill(other_kills, "check-in")
        for step, minute in enumerate([3, 6, 8, 10, 11, 12, 13, 14, 16, 20, 25, 30, 35, 40]):
            target = start + dt.timedelta(minutes=minute)
            self.advance_all((target - self.now).total_seconds(), kill if minute == 11 else None)
            if minute == 11:
                kill = None
            if minute == 30:
                for traveller, trip, started_on, day in [t for t in self.trips if t[3] == d]:
                    other = [h for h in self.devices[traveller] if h.name != started_on][0]
                    self.await_record(other, TRAVEL, "trips", {}, trip, "%s's trip, to end it" % traveller)
                    if self.write(other, TRAVEL, "trip-end", {"tripId": trip, "pin": PIN}, "trip-end", [traveller], d,
                                  identify=lambda a: None) is not None:
                        self.ended.add(trip)  # ended before its arrival time: no alert is due
                        ended = lambda a, trip=trip: any(t.get("id") == trip and t.get("state") == "ENDED" for t in a.get("trips", []))
                        for host in (self.hosts[started_on], self.hosts["watcher"]):
                            self.await_record(host, TRAVEL, "trips", {}, trip, "%s's trip ended, on %s" % (traveller, host.name),
                                              holds=ended)

        # The rest of the day in four steps.
        remaining = (start + dt.timedelta(days=1) - self.now).total_seconds()
        kill = self.pop_kill(other_kills, "day")
        for step in range(4):
            self.advance_all(remaining / 4, kill if step == 1 else None)
            if step == 1:
                kill = None
        for spec in other_kills:  # anything left: during the last step of the day
            self.advance_all(1, self.kill_spec(spec))

    def pop_kill(self, kills, moment):
        for spec in kills:
            if spec["moment"] == moment:
                kills.remove(spec)
                return self.kill_spec(spec)
        return None

    def propagate_with(self, kill):
        if kill:
            self.advance_all(3, kill)
            time.sleep(0.3)
            self.advance_all(3)
        else:
            self.propagate()

    # -- the end

    def settle(self):
        """Every host syncs until quiet: a periodic round of every host at a time, until two looks
        in a row find the same records and inboxes."""
        previous = None
        self.unsettled = None
        for attempt in range(10):
            self.advance_all(SYNC_EVERY_SECONDS)
            time.sleep(1.0)
            self.advance_all(5)
            state = self.collect()
            if previous is not None:
                self.unsettled = first_difference(normalized(previous), normalized(state))
                if self.unsettled is None:
                    return attempt + 1
            previous = state
        return None

    def collect(self):
        """What every device lists (modules' records) and its inbox."""
        out = {}
        for person in PEOPLE:
            for host in self.devices[person]:
                lists = {
                    "finance/transactions": host.read(FIN, "transactions-list", {"limit": 5000}),
                    "finance/budget": host.read(FIN, "budget-status", {"month": "2026-03"}),
                    "stress/diary": host.read(STRESS, "diary-list", {"from": "2026-01-01", "to": "2026-12-31"}),
                    "stag/notes": host.read(STAG, "notes", {}),
                    "travel/trips": host.read(TRAVEL, "trips", {}),
                    "travel/checkins": host.read(TRAVEL, "checkins", {}),
                    "baby/children": host.read(BABY, "children-list", {}),
                }
                for owner, child in self.children.items():
                    if person in self.child_holders[child]:
                        lists["baby/weights/" + owner] = host.read(BABY, "measurements", {"childId": child, "kind": "weight", "range": "all"})
                        lists["baby/timeline/" + owner] = self.timeline(host, child)
                        lists["baby/care/" + owner] = {"days": [host.read(BABY, "care-list", {"childId": child, "day": day})
                                                                for day in sorted(self.care_days)]}
                out[host.name] = {"lists": lists, "inbox": [
                    {k: e.get(k) for k in ("plugin", "key", "recipient", "dueAt")} for e in host.inbox()]}
        out["watcher"] = {"lists": {}, "inbox": [{k: e.get(k) for k in ("plugin", "key", "recipient", "dueAt")}
                                                 for e in self.hosts["watcher"].inbox()]}
        return out

    def timeline(self, host, child):
        items, cursor = [], None
        for _ in range(100):
            body = {"childIds": [child], "limit": 200, "includeFuture": True}
            if cursor:
                body["cursor"] = cursor
            page = host.read(BABY, "timeline", body)
            items.extend(page.get("items", []))
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return {"items": items}

    def check(self, state):
        problems = []
        # 1. Acknowledged writes present on every device that should hold them.
        where = {"transaction": "finance/transactions", "diary": "stress/diary", "stag-note": "stag/notes", "trip": "travel/trips",
                 "checkin-request": "travel/checkins", "measurement": "baby/weights/", "care": "baby/care/",
                 "vaccination": "baby/timeline/"}
        ids_of = {}
        checked = lost = 0
        lost_lines = []
        retained_from = self.options.days - 28  # safe travel deletes what ended 30 days before (docs/safetravel.md)
        for write in self.acked:
            listing = where.get(write["kind"])
            if listing is None or not write["id"]:
                continue
            if write["plugin"] == TRAVEL and write["day"] < retained_from:
                self.past_retention += 1
                continue
            for person in write["holders"]:
                for host in self.devices[person]:
                    lists = state[host.name]["lists"]
                    if listing.endswith("/"):
                        owner = [o for o, c in self.children.items() if write["person"] in self.child_holders[c]
                                 and person in self.child_holders[c]]
                        names = [listing + o for o in owner if listing + o in lists]
                    else:
                        names = [listing]
                    present = False
                    for name in names:
                        key = (host.name, name)
                        if key not in ids_of:
                            ids_of[key] = collect_ids(lists.get(name))
                        present = present or write["id"] in ids_of[key]
                    checked += 1
                    if not present:
                        lost += 1
                        lost_lines.append("lost: %s %s %s (acknowledged by %s on day %d) is not on %s" % (
                            write["plugin"], write["op"], write["id"], write["device"], write["day"] + 1, host.name))
        problems += lost_lines
        # The look-up must be able to fail: an id nobody wrote is on no device.
        if any("no-such-record-%d" % self.options.seed in ids for ids in ids_of.values()) or not ids_of:
            problems.append("script error: the presence check cannot fail (no listing was read, or it finds anything)")

        # 2. Both devices of each person (and the partner's for the shared child) agree.
        disagreements = []
        compared = 0
        for person in PEOPLE:
            a, b = self.devices[person]
            la, lb = state[a.name]["lists"], state[b.name]["lists"]
            for name in sorted(set(la) | set(lb)):
                compared += 1
                difference = first_difference(normalized(la.get(name)), normalized(lb.get(name)))
                if difference:
                    disagreements.append("disagree: %s vs %s on %s: %s" % (a.name, b.name, name, difference))
                elif first_difference(la.get(name), lb.get(name)):
                    self.order_only.append("%s vs %s on %s: the same records, listed in another order (%s)" % (
                        a.name, b.name, name, first_difference(la.get(name), lb.get(name))))
        owner, partner = PARTNER
        name = "baby/timeline/" + owner
        for host in self.devices[partner]:
            compared += 1
            x = state[self.devices[owner][0].name]["lists"].get(name)
            y = state[host.name]["lists"].get(name)
            difference = first_difference(ids_only(x), ids_only(y))
            if difference:
                disagreements.append("disagree: %s vs %s on %s's child (record ids): %s" % (
                    self.devices[owner][0].name, host.name, owner, difference))
        problems += disagreements

        # 3. Notifications: what was due, delivered, twice, never, and delivered though not due.
        expected = {}  # (device, key) -> due count (1), with a label

        def expect(device, key, label):
            expected[(device, key)] = label

        for traveller, slot in self.missed:
            alert = "alert-checkin-%s-missed" % slot
            recipients = [h.name for p in [traveller] + self.guardians.get(traveller, []) for h in self.devices[p]] + ["watcher"]
            for device in recipients:  # a missed check-in is not repeated (repeats: false)
                expect(device, alert, "safe travel: missed check-in")
        for device, record, remind in self.baby_reminders:
            expect(device, "baby-%s" % record, "baby: vaccination reminder")
        end = self.now
        for person in PEOPLE:
            for host in self.devices[person]:
                for friday in fridays(self.setup_done_at, end):
                    expect(host.name, "weekly-budget:%s" % friday, "finance: weekly budget status")
        inboxes = {name: state[name]["inbox"] for name in state}
        delivered = twice = missing = 0
        bad = []

        def tally(count, what):
            """Counts one notification due `count` times delivered; names it in `bad` unless once."""
            nonlocal delivered, twice, missing
            if count == 0:
                missing += 1
                bad.append("never delivered: %s" % what)
                return
            delivered += 1
            if count > 1:
                twice += 1
                bad.append("delivered %d times: %s" % (count, what))

        for (device, key), label in sorted(expected.items()):
            tally(sum(1 for e in inboxes.get(device, []) if e["key"] == key), "%s on %s (%s)" % (key, device, label))
        # Once per person, on either device: over budget, and each new grade.
        per_person = 0
        unexpected = 0
        for person in PEOPLE:
            a, b = self.devices[person]
            both = inboxes[a.name] + inboxes[b.name]
            spent = self.spent.get(person, 0)
            if spent <= BUDGET * 100 and person in self.finance_cut:
                pass  # a write the kill cut off may or may not have passed the budget: not counted
            elif spent <= BUDGET * 100:
                count = sum(1 for e in both if e["key"] == "over-budget-2026-03")
                if count:
                    unexpected += count
                    bad.append("delivered though not due: over-budget-2026-03 to %s (acknowledged expenses %.2f of %d)" % (
                        person, spent / 100, BUDGET))
            else:
                per_person += 1
                tally(sum(1 for e in both if e["key"] == "over-budget-2026-03"),
                      "over-budget-2026-03 to %s (spent %.2f of %d)" % (person, spent / 100, BUDGET))
            for subject, grade in self.grades:
                per_person += 1
                count = sum(1 for e in both if (e["key"] or "").startswith("stag:grade:%s/" % subject)
                            and (e["key"] or "").endswith("/" + grade))
                tally(count, "the new grade %s %s to %s (on %s or %s)" % (subject, grade, person, a.name, b.name))
        # Alerts nobody should have had: answered check-ins and trips ended in time.
        answered = {slot for _, slot in self.answered}
        trips = self.ended
        for device, entries in inboxes.items():
            for e in entries:
                key = e["key"] or ""
                if not key.startswith("alert-"):
                    continue
                if (any(("alert-checkin-%s-" % s) in key for s in answered) or any(("alert-trip-%s-" % t) in key for t in trips)
                        or (key.startswith("alert-checkin-") and "-missed-r" in key)):
                    unexpected += 1
                    bad.append("delivered though not due: %s on %s" % (key, device))
        problems += bad
        due = len(expected) + per_person
        return {
            "writes acknowledged": len(self.acked),
            "writes checked on holders": checked,
            "safe-travel writes past their retention (not checked)": self.past_retention,
            "lost": lost,
            "writes cut off by a kill (unacknowledged)": self.unanswered,
            "writes refused": len(self.refused),
            "listings compared": compared,
            "disagreements": len(disagreements),
            "notifications due": due,
            "delivered": delivered,
            "duplicates": twice,
            "missing": missing,
            "delivered though not due": unexpected,
        }, problems

    def close(self):
        for host in self.hosts.values():
            host.stop()
        if self.emulator and self.emulator.poll() is None:
            self.emulator.terminate()
            try:
                self.emulator.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.emulator.kill()


# ---------------------------------------------------------------------------------------------
# Helpers of the checks


def collect_ids(value):
    found = set()

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "id" and isinstance(x, str):
                    found.add(x)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(value)
    return found


def count_in_logs(folder, text):
    count = 0
    for path in glob.glob(os.path.join(folder, "*", "*.log")):
        with open(path, errors="replace") as handle:
            count += sum(1 for line in handle if text in line)
    return count


def normalized(value):
    """`value` without what depends on the moment it was read (`now`), its lists of records
    sorted by id: what two devices must agree on."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if k != "now"}
    if isinstance(value, list):
        items = [normalized(v) for v in value]
        if all(isinstance(v, dict) and isinstance(v.get("id"), str) for v in items):
            items.sort(key=lambda v: v["id"])
        return items
    return value


def ids_only(value):
    return sorted(collect_ids(value))


def first_difference(a, b, path="$"):
    if type(a) != type(b):
        return "%s: %s vs %s" % (path, short(a), short(b))
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s only on %s" % (path, k, "the first" if k in a else "the second")
            d = first_difference(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d items vs %d (ids only on the first: %s; only on the second: %s)" % (
                path, len(a), len(b), sorted(collect_ids(a) - collect_ids(b))[:5], sorted(collect_ids(b) - collect_ids(a))[:5])
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %s vs %s" % (path, short(a), short(b))


def short(v):
    text = json.dumps(v, sort_keys=True)
    return text if len(text) < 120 else text[:117] + "..."


def fridays(after, until):
    """The Fridays whose 08:00 in Europe/Bratislava falls after `after`, up to `until`
    (CET until 29 March 2026, CEST from then)."""
    days = []
    day = after.date()
    while True:
        if day.weekday() == 4:
            offset = 2 if day >= dt.date(2026, 3, 29) and day < dt.date(2026, 10, 25) else 1
            moment = dt.datetime(day.year, day.month, day.day, 8 - offset, tzinfo=dt.timezone.utc)
            if moment > until:
                break
            if moment > after:
                days.append(day.isoformat())
        elif dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc) > until:
            break
        day += dt.timedelta(days=1)
    return days


# ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description="A month on the virtual clock, everything at once (docs/soak.md).")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kills", type=int, default=12, help="SIGKILLs over the run (hub, watcher, devices)")
    parser.add_argument("--bin", help="the binaries to run (default: a snapshot of .build/debug in /tmp/soak-bin-<pid>)")
    parser.add_argument("--from", dest="source", default=os.path.join(REPO, ".build", "debug"),
                        help="the build folder the snapshot is copied from (default .build/debug)")
    parser.add_argument("--workdir", help="where the data directories go (default: a new folder in /tmp)")
    parser.add_argument("--port-base", type=int, default=18600, help="ports from this one on: hub, watcher, emulator, devices")
    parser.add_argument("--keep", action="store_true", help="keep the data directories (and the snapshot)")
    options = parser.parse_args()
    wall = time.monotonic()

    def interrupted(signum, frame):
        raise KeyboardInterrupt()

    # A TERM (or an INT, even where a shell's background job ignores it) stops every process started here.
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)

    made_bin = False
    if not options.bin:
        options.bin = "/tmp/soak-bin-%d" % os.getpid()
        made_bin = True
    options.bin = os.path.abspath(options.bin)
    if not os.path.isfile(os.path.join(options.bin, "tessera")):
        snapshot(options.source, options.bin)
        log("month-soak: binaries copied from %s to %s" % (options.source, options.bin))

    soak = Soak(options)
    result = 1
    try:
        soak.setup()
        log("month-soak: set-up took %.0f s" % (time.monotonic() - wall))
        plan = soak.plan_kills()
        for d in range(options.days):
            began = soak.now
            soak.day(d, plan.get(d, []))
            log("day %2d  %s  kills %2d  writes acknowledged %4d  (wall %.0f s)" % (
                d + 1, began.strftime("%Y-%m-%d"), soak.kills_done, len(soak.acked), time.monotonic() - wall))
        rounds = soak.settle()
        state = soak.collect()
        counts, problems = soak.check(state)
        log("")
        log("month-soak: seed %d, %d days, %d kills (%s)" % (options.seed, options.days, soak.kills_done,
                                                             "; ".join(soak.kill_log) or "none"))
        log("settled after %s periodic round(s) (%s apart)" % (rounds if rounds else "more than 10 (not quiet)", SYNC_EVERY))
        for name, value in counts.items():
            log("  %-44s %d" % (name, value))
        for line in soak.refused[:20]:
            log("  refused: " + line)
        for line in soak.order_only[:10]:
            log("  note: " + line)
        if soak.arrivals:
            ordered = sorted(soak.arrivals)
            log("  note: a record reached the person's other device after %d s of clock (median), %d s at most (%d looks)" % (
                ordered[len(ordered) // 2], ordered[-1], len(ordered)))
        for line in soak.late_arrivals:
            log("  note: " + line)
        warnings = count_in_logs(soak.work, "ahead of this host's clock")
        if warnings:
            log("  note: %d sync rounds refused a change from a host further ahead in the same clock step (clock_ahead; retried)" % warnings)
        if rounds is None:
            problems.append("not quiet: the records or inboxes still changed after 10 periodic rounds (last change: %s)" % soak.unsettled)
        for line in problems[:100]:
            log("  " + line)
        if len(problems) > 100:
            log("  … and %d more" % (len(problems) - 100))
        log("wall time %.0f s (advancing clocks: %s)" % (time.monotonic() - wall, ", ".join(
            "%s %.0f s" % (k, v) for k, v in sorted(soak.timing.items()))))
        result = 1 if problems else 0
        log("month-soak: %s" % ("FAILED" if problems else "passed"))
        if problems or options.keep:
            log("month-soak: data kept in %s (logs: <host>.log beside each data directory)" % soak.work)
    except SoakError as error:
        log("month-soak: error: %s" % error)
        log("month-soak: data kept in %s" % soak.work)
        result = 2
    except KeyboardInterrupt:
        log("month-soak: interrupted; data kept in %s" % soak.work)
        result = 130
    finally:
        soak.close()
        if result == 0 and not options.keep:
            shutil.rmtree(soak.work, ignore_errors=True)
            if made_bin:
                shutil.rmtree(options.bin, ignore_errors=True)
    sys.exit(result)


if __name__ == "__main__":
    main()
