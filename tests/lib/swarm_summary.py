#!/usr/bin/env python3
"""Checks of a swarm's output directory for the swarm integration tests (prints problems, exits 1)."""
import glob
import json
import os
import sys

SUMS = ["ops", "states", "matched", "restores", "discrepancies"]


def load(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def vt_json(out, i):
    path = os.path.join(out, "vt-%d" % i, "vt.json")
    with open(path) as f:
        return json.load(f)


def run_ids(out):
    ids = set()
    try:
        ids.update(v["run_id"] for v in load(out)["vt"] if v["run_id"])
    except (OSError, ValueError, KeyError):
        pass
    for p in glob.glob(os.path.join(out, "vt-*", "vt.json")):
        try:
            with open(p) as f:
                ids.add(json.load(f)["run_id"])
        except (OSError, ValueError, KeyError):
            pass
    return sorted(i for i in ids if i)


def check_totals(s, problems):
    vts = s["vt"]
    for key in SUMS:
        total = sum(v[key] for v in vts)
        if total != s["totals"][key]:
            problems.append("totals.%s = %s, sum over VTs = %s" % (key, s["totals"][key], total))
    rate = sum(v["ops_per_s"] for v in vts)
    if abs(rate - s["totals"]["ops_per_s"]) > 0.1 * len(vts) + 0.01:
        problems.append("totals.ops_per_s = %s, sum = %s" % (s["totals"]["ops_per_s"], rate))
    if s["totals"]["ops"] <= 0:
        problems.append("no operations at all")


def check_vts(out, s, nvts, problems):
    if s["vts"] != nvts or len(s["vt"]) != nvts:
        problems.append("expected %d VTs, summary has %d" % (nvts, len(s["vt"])))
    combos, rids = set(), set()
    for i in range(nvts):
        d = os.path.join(out, "vt-%d" % i)
        for f in ("vt.json", "summary.json", "log.txt"):
            if not os.path.isfile(os.path.join(d, f)):
                problems.append("%s/%s did not come back" % (d, f))
        try:
            v = vt_json(out, i)
        except (OSError, ValueError):
            continue
        combos.add((v["options"], v["input_seed"]))
        rids.add(v["run_id"])
        try:
            with open(os.path.join(d, "log.txt")) as f:
                head = f.read(4096)
            if " id=%s " % v["run_id"] not in head:
                problems.append("VT %d: log.txt is not the log of run %s" % (i, v["run_id"]))
        except OSError:
            pass
        if v["options"] != s["vt"][i]["options"]:
            problems.append("VT %d: recorded options differ from the primary's" % i)
        if s["vt"][i]["status"] != "ok":
            problems.append("VT %d: status %s" % (i, s["vt"][i]["status"]))
    if len(rids) != nvts:
        problems.append("VTs share run ids (devices, mounts): %s" % sorted(rids))
    if len(combos) != nvts:
        problems.append("options/seeds of the VTs are not pairwise distinct: %s" % sorted(combos))


def main():
    cmd, out = sys.argv[1], sys.argv[2]
    if cmd == "runids":
        print("\n".join(run_ids(out)))
        return 0
    if cmd == "get":            # get OUT key [index key2]: one value of summary.json
        v = load(out)
        for k in sys.argv[3:]:
            v = v[int(k)] if isinstance(v, list) else v[k]
        print(v)
        return 0
    s = load(out)
    problems = []
    if cmd == "ok":             # ok OUT NVTS: every VT came back ok, distinct, totals add up
        check_vts(out, s, int(sys.argv[3]), problems)
        check_totals(s, problems)
    for p in problems:
        print("summary check: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
