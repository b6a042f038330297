#!/usr/bin/env python3
"""Writes Tests/TesseraRecurrenceTests/Fixtures/oracle.json: occurrences of random recurrence rules
computed by python-dateutil's rrule, an implementation independent of TesseraRecurrence, for the
Swift tests to compare against occurrence by occurrence.

    python3 scripts/recurrence-oracle.py            # rewrites the fixture (seeded: same output every run)

Every rule stays inside the subset TesseraRecurrence supports (FREQ DAILY/WEEKLY/MONTHLY/YEARLY,
INTERVAL, COUNT, UNTIL in its three forms, BYDAY with ordinals, BYMONTHDAY, BYMONTH, BYHOUR,
BYMINUTE, WKST) and is evaluated in Europe/Prague, America/New_York, Australia/Sydney or UTC.

Where dateutil's semantics differ from Tessera's, this script does not trust dateutil but
normalises its output to Tessera's rules, as follows.

1. Local times. dateutil expands the rule in naive local ("wall") time. Each wall time is turned
   into an instant with zoneinfo and fold=0, which is exactly Tessera's rule: a wall time in a
   spring-forward gap is read with the offset before the gap (02:30 -> 03:30, RFC 5545 section
   3.3.5), and a repeated wall time in autumn means its first (earlier) instant. So gap and
   repeated times are kept, normalised, not excluded.
2. Order and repeats. After that mapping, a moved gap time can come after, or land on, a later wall
   time (02:30 -> 03:30 and 03:30 itself). Tessera's occurrences are distinct instants in
   increasing order, so the instants are sorted and de-duplicated.
3. COUNT and UNTIL. dateutil counts wall times and compares UNTIL in wall time, so both are
   stripped from the text given to dateutil and applied here to the normalised instants: COUNT
   counts distinct instants; UNTIL is an inclusive instant (Z form), a wall time read like an
   occurrence (local form), or before the next local midnight (date-only form).
4. The start. dateutil keeps wall times at or after DTSTART's wall time; Tessera keeps instants at
   or after the start instant. The two agree unless a DST change is within hours of the start, so
   starts are drawn at least two days away from any change.
5. BYDAY mixing plain weekdays and ordinals (MO,1FR): dateutil requires both at once instead of
   either, so no rule mixes them.
"""

import json
import random
from datetime import datetime, timedelta, timezone
from itertools import islice
from pathlib import Path
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

SEED = 5545
RULES = 200
OCCURRENCES = 30
ZONES = ["Europe/Prague", "America/New_York", "Australia/Sydney", "UTC"]
WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
OUT = Path(__file__).resolve().parent.parent / "Tests/TesseraRecurrenceTests/Fixtures/oracle.json"
UTC = timezone.utc


def to_instant(wall, zone):
    """Tessera's reading of a wall time: fold=0 (gap: offset before it; repeat: first instant)."""
    return wall.replace(tzinfo=zone, fold=0).astimezone(UTC)


def transitions(zone, year_from, year_to):
    """Wall dates (naive, midnight) of the days on which the zone's UTC offset changes."""
    days = []
    day = datetime(year_from, 1, 1)
    while day.year <= year_to:
        if day.replace(tzinfo=zone).utcoffset() != (day + timedelta(days=1)).replace(tzinfo=zone).utcoffset():
            days.append(day)
        day += timedelta(days=1)
    return days


def clean_start_day(day, zone):
    """No offset change from two days before `day` to three days after (see note 4)."""
    offsets = {(day + timedelta(days=k)).replace(tzinfo=zone).utcoffset() for k in range(-2, 4)}
    return len(offsets) == 1


def pick_start(rng, zone, changes):
    while True:
        if changes and rng.random() < 0.6:
            # Close before a DST change, so the first occurrences cross it.
            day = rng.choice(changes) - timedelta(days=rng.randint(2, 25))
        else:
            day = datetime(2020, 1, 1) + timedelta(days=rng.randint(0, 13 * 365))
        if not clean_start_day(day, zone):
            continue
        minute = rng.choice([0, 0, 15, 30, 45, rng.randint(0, 59)])
        second = rng.choice([0, 0, 0, rng.randint(0, 59)])
        return day.replace(hour=rng.randint(0, 23), minute=minute, second=second)


def pick_list(rng, values, low, high):
    return sorted(rng.sample(values, rng.randint(low, high)), key=values.index)


def hours_and_minutes(rng):
    parts = []
    if rng.random() < 0.7:
        # Hours 1-3 are where the four zones change offset: weight them.
        hours = sorted(set(rng.choice([1, 2, 2, 3, rng.randint(0, 23)]) for _ in range(rng.randint(1, 3))))
        parts.append("BYHOUR=" + ",".join(map(str, hours)))
    if rng.random() < 0.6:
        minutes = sorted(set(rng.choice([0, 15, 30, 45, rng.randint(0, 59)]) for _ in range(rng.randint(1, 3))))
        parts.append("BYMINUTE=" + ",".join(map(str, minutes)))
    return parts


def ordinal_days(rng, limit):
    days = set()
    for _ in range(rng.randint(1, 2)):
        n = rng.choice([1, 2, 3, 4, -1, -2, rng.randint(1, limit), -rng.randint(1, limit)])
        days.add(f"{n}{rng.choice(WEEKDAYS)}")
    return ",".join(sorted(days))


def day_parts(rng, freq):
    """BYMONTH, BYMONTHDAY and BYDAY for one frequency, never mixing plain and ordinal weekdays."""
    parts = []
    months = list(range(1, 13))
    if freq == "DAILY":
        if rng.random() < 0.4:
            parts.append("BYDAY=" + ",".join(pick_list(rng, WEEKDAYS, 1, 4)))
        if rng.random() < 0.3:
            parts.append("BYMONTH=" + ",".join(map(str, pick_list(rng, months, 1, 4))))
        if rng.random() < 0.15:
            parts.append("BYMONTHDAY=" + ",".join(map(str, sorted(rng.sample([1, 10, 15, 28, 31, -1, -2], 2)))))
    elif freq == "WEEKLY":
        if rng.random() < 0.7:
            parts.append("BYDAY=" + ",".join(pick_list(rng, WEEKDAYS, 1, 3)))
        if rng.random() < 0.2:
            parts.append("BYMONTH=" + ",".join(map(str, pick_list(rng, months, 2, 6))))
    elif freq == "MONTHLY":
        kind = rng.choice(["default", "monthday", "ordinal", "plain", "friday13"])
        if kind == "monthday":
            parts.append("BYMONTHDAY=" + ",".join(map(str, sorted(rng.sample([1, 2, 15, 29, 30, 31, -1, -2, -15, -31], rng.randint(1, 3))))))
        elif kind == "ordinal":
            parts.append("BYDAY=" + ordinal_days(rng, 5))
        elif kind == "plain":
            parts.append("BYDAY=" + ",".join(pick_list(rng, WEEKDAYS, 1, 2)))
        elif kind == "friday13":
            parts += ["BYDAY=FR", "BYMONTHDAY=13"]
        if rng.random() < 0.25:
            parts.append("BYMONTH=" + ",".join(map(str, pick_list(rng, months, 3, 8))))
    else:
        kind = rng.choice(["default", "month", "month-ordinal", "month-monthday", "year-ordinal", "monthday", "plain"])
        if kind in ("month", "month-ordinal", "month-monthday"):
            parts.append("BYMONTH=" + ",".join(map(str, pick_list(rng, months, 1, 3))))
        if kind == "month-ordinal":
            parts.append("BYDAY=" + ordinal_days(rng, 5))
        elif kind in ("month-monthday", "monthday"):
            parts.append("BYMONTHDAY=" + ",".join(map(str, sorted(rng.sample([1, 13, 28, 29, 30, 31, -1, -7], rng.randint(1, 2))))))
        elif kind == "year-ordinal":
            parts.append("BYDAY=" + ordinal_days(rng, 53))
        elif kind == "plain":
            parts += ["BYDAY=" + rng.choice(WEEKDAYS), "BYMONTH=" + str(rng.randint(1, 12))]
    return parts


# The Sundays each zone changes offset on, as BYDAY ordinals, with the months they fall in.
DST_SUNDAYS = {
    "Europe/Prague": [("-1SU", "3,10")],
    "America/New_York": [("2SU", "3"), ("1SU", "11")],
    "Australia/Sydney": [("1SU", "4,10")],
}


def dst_rule(rng, name):
    """A rule aimed at the hours a DST change skips or repeats (01:00-03:59 in these zones)."""
    hours = ",".join(map(str, sorted(rng.sample([1, 2, 3], rng.randint(1, 2)))))
    minutes = ",".join(map(str, sorted(rng.sample([0, 15, 30, 45], rng.randint(1, 2)))))
    times = f"BYHOUR={hours};BYMINUTE={minutes}"
    sunday, months = rng.choice(DST_SUNDAYS[name])
    return rng.choice([
        f"FREQ=DAILY;{times}",
        f"FREQ=WEEKLY;BYDAY=SU;{times}",
        f"FREQ=MONTHLY;BYDAY={sunday};{times}",
        f"FREQ=YEARLY;BYMONTH={months};BYDAY={sunday};{times}",
    ])


def pick_rule(rng):
    """The rule's text without COUNT/UNTIL (given to dateutil); the ending is added separately."""
    freq = rng.choice(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"])
    parts = [f"FREQ={freq}"]
    if rng.random() < 0.35:
        parts.append(f"INTERVAL={rng.randint(2, 4)}")
    parts += day_parts(rng, freq)
    parts += hours_and_minutes(rng)
    if freq == "WEEKLY" and rng.random() < 0.5:
        parts.append("WKST=" + rng.choice(WEEKDAYS))
    return ";".join(parts)


def pick_ending(rng, start, zone):
    """("", None) or an RRULE ending and a predicate on instants that applies it."""
    roll = rng.random()
    if roll < 0.2:
        count = rng.randint(1, 40)
        return f"COUNT={count}", ("count", count)
    if roll < 0.45:
        wall = start + timedelta(days=rng.randint(5, 700), hours=rng.randint(0, 23), minutes=rng.choice([0, 30]))
        form = rng.choice(["utc", "local", "date"])
        if form == "utc":
            instant = to_instant(wall, zone)
            return "UNTIL=" + instant.strftime("%Y%m%dT%H%M%SZ"), ("through", instant)
        if form == "local":
            return "UNTIL=" + wall.strftime("%Y%m%dT%H%M%S"), ("through", to_instant(wall, zone))
        next_midnight = wall.replace(hour=0, minute=0, second=0) + timedelta(days=1)
        return "UNTIL=" + wall.strftime("%Y%m%d"), ("before", to_instant(next_midnight, zone))
    return "", None


def dateutil_walls(text, start):
    """The rule's wall times from dateutil, stopping after 80 years so that a rule with no
    occurrences ends (so a list cut short there is not the whole sequence)."""
    return rrulestr(text, dtstart=start).replace(until=start + timedelta(days=80 * 365))


def expected(text, start, zone, ending):
    """Tessera's first occurrences of `text` from `start`, computed with dateutil and notes 1-3,
    and whether they are provably all of them (COUNT reached, or dateutil went past UNTIL)."""
    # 120 wall times leave a wide margin for re-ordering gap times (note 2) before the first 30
    # are taken.
    walls = list(islice(dateutil_walls(text, start), 120))
    instants = sorted({to_instant(w, zone) for w in walls})
    start_instant = to_instant(start, zone)
    instants = [i for i in instants if i >= start_instant]
    if ending and ending[0] == "count":
        kept = instants[:ending[1]]
        return kept, len(kept) == ending[1]
    if ending:
        kind, end = ending
        kept = [i for i in instants if (i <= end if kind == "through" else i < end)]
        return kept, len(kept) < len(instants)
    return instants, False


def main():
    rng = random.Random(SEED)
    changes = {name: transitions(ZoneInfo(name), 2020, 2034) for name in ZONES}
    cases = []
    stats = {"gap": 0, "repeat": 0, "occurrences": 0}
    while len(cases) < RULES:
        name = rng.choice(ZONES)
        zone = ZoneInfo(name)
        start = pick_start(rng, zone, changes[name])
        text = dst_rule(rng, name) if name in DST_SUNDAYS and rng.random() < 0.3 else pick_rule(rng)
        ending_text, ending = pick_ending(rng, start, zone)
        occurrences, complete = expected(text, start, zone, ending)
        exhaustive = complete and len(occurrences) < OCCURRENCES
        if len(occurrences) < OCCURRENCES and not exhaustive:
            # Fewer than 30 within dateutil's 80 years, and not because the rule ended: too sparse
            # a rule to check; draw another.
            continue
        occurrences = occurrences[:OCCURRENCES]
        for instant in occurrences:
            wall = instant.astimezone(zone).replace(tzinfo=None)
            stats["occurrences"] += 1
            if wall.replace(tzinfo=zone, fold=0).utcoffset() != wall.replace(tzinfo=zone, fold=1).utcoffset():
                stats["repeat"] += 1
        stats["gap"] += gap_hits(text, start, zone, occurrences)
        cases.append({
            "rule": text + (";" + ending_text if ending_text else ""),
            "timeZone": name,
            "start": to_instant(start, zone).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "startLocal": start.isoformat(),
            "exhaustive": exhaustive,
            "occurrences": [i.strftime("%Y-%m-%dT%H:%M:%SZ") for i in occurrences],
        })
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "generator": "scripts/recurrence-oracle.py",
        "seed": SEED,
        "cases": cases,
    }, indent=1) + "\n")
    print(f"wrote {len(cases)} rules, {stats['occurrences']} occurrences "
          f"({stats['gap']} from gap times moved forward, {stats['repeat']} at repeated times) to {OUT}")


def gap_hits(text, start, zone, occurrences):
    """How many of the expected occurrences came from wall times inside a spring-forward gap."""
    kept = set(occurrences)
    hits = 0
    for wall in islice(dateutil_walls(text, start), 120):
        instant = to_instant(wall, zone)
        if instant in kept and instant.astimezone(zone).replace(tzinfo=None) != wall:
            hits += 1
    return hits


if __name__ == "__main__":
    main()
