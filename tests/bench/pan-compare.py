#!/usr/bin/env python3
"""Text alignment alone on the PAN 2013 slice: `simhound-cli compare --json`
on every PAN pair (no corpus, no SimHash lookup), the passages (high and
medium) scored with the set's pan_measures.py.

usage: pan-compare.py [--cli BUILD/app/simhound-cli] [--eval ../shared/eval-pan13-train] [--out DIR]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "simhound-cli"))
    ap.add_argument("--eval", default=os.path.join(os.path.dirname(ROOT), "shared", "eval-pan13-train"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.eval, "pairs.jsonl")):
        print(f"PAN slice not found at {a.eval}: skipping", file=sys.stderr)
        return 0
    out = a.out or tempfile.mkdtemp(prefix="simhound-pan-compare-")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(a.eval, "pairs.jsonl"), encoding="utf-8") as f:
        pairs = [json.loads(line) for line in f if line.strip()]

    def run(p):
        r = subprocess.run([a.cli, "compare", "--json", os.path.join(a.eval, p["query"]),
                            os.path.join(a.eval, p["ref"])], capture_output=True, text=True)
        if r.returncode < 0:
            # A crash is no score (see eval.py).
            raise RuntimeError(f"{p['query']} {p['ref']}: simhound-cli compare killed by signal {-r.returncode}")
        if r.returncode != 0:
            print(f"{p['query']} {p['ref']}: {r.stderr.strip()}", file=sys.stderr)
            return []
        return [{"query": p["query"], "q_start": x["start"], "q_end": x["end"], "ref": p["ref"],
                 "r_start": x["source_start"], "r_end": x["source_end"], "similarity": x["similarity"]}
                for x in json.loads(r.stdout)["passages"] if x["level"] in ("high", "medium")]

    det = os.path.join(out, "det-compare.jsonl")
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool, open(det, "w") as f:
        for dets in pool.map(run, pairs):
            for d in dets:
                f.write(json.dumps(d) + "\n")
    table = subprocess.run([sys.executable, os.path.join(a.eval, "pan_measures.py"), a.eval, det],
                           capture_output=True, text=True)
    print(table.stdout, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
