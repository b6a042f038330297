#!/usr/bin/env python3
"""How long `tessera serve` takes to stop after SIGTERM, and what happens to calls in flight.

    scripts/stop-time.py DEPLOYMENT [CALLS] [RUNS]

Starts `.build/debug/tessera serve` on DEPLOYMENT (a fresh data folder each run, any free port),
starts CALLS concurrent `add-note` calls to the example module (0 for a hub), sends SIGTERM at
once, and prints the milliseconds from the signal to the process's exit, its exit status, and
how each call ended (200: finished; a reset: refused before it was read). Issue 46 asks for a
stop within 2 s; docs/operating.md has the figures.
"""
import re, shutil, signal, subprocess, sys, tempfile, threading, time, urllib.request

deployment = sys.argv[1]
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 20
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3

for run in range(runs):
    data = tempfile.mkdtemp(prefix="tessera-stop-")
    host = subprocess.Popen([".build/debug/tessera", "serve", "--deployment", deployment, "--port", "0", "--data", data],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = ""
    for line in host.stdout:
        said += line
        if "Ctrl-C" in line:
            break
    url = re.search(r"http://127\.0\.0\.1:\d+", said).group(0)
    token = re.search(r"admin token.*\n\s*(\S+)", said)
    outcomes = []

    def call():
        request = urllib.request.Request(url + "/v1/plugins/dev.tessera.example/ops/add-note", data=b'{"text": "in flight"}',
                                         headers={"Authorization": "Bearer " + (token.group(1) if token else ""),
                                                  "Content-Type": "application/json"})
        try:
            outcomes.append(str(urllib.request.urlopen(request, timeout=10).status))
        except Exception as error:  # the host closed the connection before it read the request
            outcomes.append(type(error).__name__)

    callers = [threading.Thread(target=call) for _ in range(calls)]
    for caller in callers:
        caller.start()
    signalled = time.monotonic()
    host.send_signal(signal.SIGTERM)
    rest = host.stdout.read()
    host.wait()
    elapsed = time.monotonic() - signalled
    for caller in callers:
        caller.join()
    counts = {outcome: outcomes.count(outcome) for outcome in sorted(set(outcomes))}
    last = rest.strip().splitlines()[-1] if rest.strip() else ""
    print(f"run {run + 1}: exit {host.returncode}, {elapsed * 1000:.0f} ms after SIGTERM; calls {counts}; last line: {last[:80]}")
    shutil.rmtree(data, ignore_errors=True)
