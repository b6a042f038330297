#!/usr/bin/env python3
"""Sorts every `try?` in Sources/ and Plugins/ by what it ignores, so a review (issue 44: no silent
failure on a state-changing path) reads only the ones no pattern explains.

    scripts/silent-failures.py            # the counts, then each unexplained line
    scripts/silent-failures.py --counts   # the counts only

The patterns name what ignoring the error means; a line they do not match is printed for a person
to judge (each of those has been read, and is a read with a fallback, a best-effort step after
the work is done, or commented where it stands)."""
import re
import subprocess
import sys

KINDS = [
    ("parses stored or received text (JSON, a date, a number) and falls back",
     r"JSONValue\(parsing|Date\(|JSONDecoder|JSONSerialization|parseDay|dates\.instant|zScore|decode\(|amount\(|"
     r"normalizedEmail|SocketAddress|String\(contentsOfFile|encodeOrThrow|Date\(wire|LocationFix\(wire|NIOSSLContext|"
     r"ELFFile|PasswordHash"),
    ("sleeps or waits (cancellation ends it)", r"Task\.sleep|clock\.sleep|task\.value"),
    ("cleans up or probes the file system",
     r"removeItem|\.close\(\)|contentsOfDirectory|attributesOfItem|destinationOfSymbolicLink|createDirectory|fileSize|unlink"),
    ("is not a try? (a name that contains the text)", r"entry\(|Entry\?|previous: |func entry"),
]


def main() -> None:
    lines = subprocess.run(["git", "grep", "-n", "try?", "--", "Sources", "Plugins"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    counts = {name: 0 for name, _ in KINDS}
    unexplained = []
    for line in lines:
        for name, pattern in KINDS:
            if re.search(pattern, line):
                counts[name] += 1
                break
        else:
            unexplained.append(re.sub(r"\s+", " ", line))
    print(f"{len(lines)} lines with try?")
    for name, count in counts.items():
        print(f"{count:5}  {name}")
    print(f"{len(unexplained):5}  to read one by one")
    if "--counts" not in sys.argv:
        for line in unexplained:
            print("  " + line[:200])


if __name__ == "__main__":
    main()
