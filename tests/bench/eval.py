#!/usr/bin/env python3
"""Quality harness: index an eval set's reference/, check every query in one
`simhound-cli check --output-dir` run (default settings unless extra check
options are given after --), and score the results with the set's own scorer:

- a labelled zh/en set (../shared/eval-public): its score.py;
- the PAN 2013 text-alignment slice (../shared/eval-pan13-train): its
  simhound_detections.py, then pan_measures.py on the report's own
  passages[] restricted to each query's PAN pairs (det-passages-pair.jsonl).

usage: eval.py [--cli BUILD/app/simhound-cli] [--eval DIR] [--out DIR]
               [--store DB] [-- CHECK-OPTIONS...]
Prints the score table (the numbers also go to OUT/score.json or OUT/pan.txt).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "simhound-cli"))
    ap.add_argument("--eval", default=os.path.join(os.path.dirname(ROOT), "shared", "eval-public"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--store", default=None, help="reuse this store instead of indexing again")
    ap.add_argument("check_args", nargs="*")
    a = ap.parse_args()

    pan = os.path.isfile(os.path.join(a.eval, "pan_measures.py"))
    if not os.path.isfile(os.path.join(a.eval, "truth.jsonl")):
        print(f"eval set not found at {a.eval}: skipping", file=sys.stderr)
        return 0
    out = a.out or tempfile.mkdtemp(prefix="simhound-eval-")
    os.makedirs(out, exist_ok=True)
    store = a.store or os.path.join(out, "store.db")

    if a.store is None:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        t0 = time.monotonic()
        subprocess.run([a.cli, "--store", store, "corpus", "add", "--quiet",
                        os.path.join(a.eval, "reference")], check=True)
        print(f"indexed in {time.monotonic() - t0:.1f} s", file=sys.stderr)

    qdir = os.path.join(a.eval, "queries")
    queries = sorted(os.path.join(qdir, f) for f in os.listdir(qdir) if f.endswith(".txt"))
    results = os.path.join(out, "results")
    t0 = time.monotonic()
    # One process, the store opened once; a query it cannot read is reported and skipped.
    res = subprocess.run([a.cli, "--store", store, "check", "--output-dir", results, *a.check_args,
                          *queries], stderr=subprocess.PIPE, text=True)
    for line in res.stderr.splitlines():
        print(line, file=sys.stderr)
    # A crash is no score: the queries it never reached would count as
    # nothing detected (a SIGSEGV once passed for a recall of 0.50).
    if res.returncode < 0:
        sys.exit(f"simhound-cli check was killed by signal {-res.returncode}: no score")
    print(f"checked {len(queries)} queries in {time.monotonic() - t0:.1f} s", file=sys.stderr)

    if pan:
        det = os.path.join(out, "det")
        subprocess.run([sys.executable, os.path.join(a.eval, "simhound_detections.py"), results,
                        a.eval, det], check=True)
        table = subprocess.run([sys.executable, os.path.join(a.eval, "pan_measures.py"), a.eval,
                                os.path.join(det, "det-passages-pair.jsonl")],
                               capture_output=True, text=True)
        print(table.stdout, end="")
        with open(os.path.join(out, "pan.txt"), "w") as f:
            f.write(table.stdout)
    else:
        score = os.path.join(a.eval, "score.py")
        table = subprocess.run([sys.executable, score, results, a.eval], capture_output=True, text=True)
        print(table.stdout, end="")
        js = subprocess.run([sys.executable, score, results, a.eval, "--json"], capture_output=True,
                            text=True)
        with open(os.path.join(out, "score.json"), "w") as f:
            f.write(js.stdout)
    print(f"results in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
