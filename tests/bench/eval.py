#!/usr/bin/env python3
"""Quality harness: index an eval set's reference/, check every query with
`simhound-cli check --json` (default settings unless extra check options are
given after --), and score the results with the set's own score.py.

usage: eval.py [--cli BUILD/app/simhound-cli] [--eval ../shared/eval-public]
               [--out DIR] [--jobs N] [--keep-store] [-- CHECK-OPTIONS...]
Prints the score table (and --json writes the numbers to OUT/score.json).
"""
import argparse
import concurrent.futures
import os
import shutil
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
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--store", default=None, help="reuse this store instead of indexing again")
    ap.add_argument("check_args", nargs="*")
    a = ap.parse_args()

    if not os.path.isfile(os.path.join(a.eval, "truth.jsonl")):
        print(f"eval set not found at {a.eval}: skipping", file=sys.stderr)
        return 0
    out = a.out or tempfile.mkdtemp(prefix="simhound-eval-")
    os.makedirs(out, exist_ok=True)
    store = a.store or os.path.join(out, "store.db")
    env = dict(os.environ, SIMHOUND_THREADS="1")

    if a.store is None:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        t0 = time.monotonic()
        subprocess.run([a.cli, "--store", store, "corpus", "add",
                        os.path.join(a.eval, "reference")], check=True, env=dict(os.environ))
        print(f"indexed in {time.monotonic() - t0:.1f} s", file=sys.stderr)

    queries = sorted(f for f in os.listdir(os.path.join(a.eval, "queries")) if f.endswith(".txt"))

    def run(q):
        res = subprocess.run([a.cli, "--store", store, "check", "--json", *a.check_args,
                              os.path.join(a.eval, "queries", q)],
                             capture_output=True, env=env)
        if res.returncode != 0:
            return q, res.stderr.decode(errors="replace")
        with open(os.path.join(out, q[:-4] + ".json"), "wb") as f:
            f.write(res.stdout)
        return q, None

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for q, err in pool.map(run, queries):
            if err:
                print(f"{q}: {err.strip()}", file=sys.stderr)
    print(f"checked {len(queries)} queries in {time.monotonic() - t0:.1f} s", file=sys.stderr)

    score = os.path.join(a.eval, "score.py")
    table = subprocess.run([sys.executable, score, out, a.eval], capture_output=True, text=True)
    print(table.stdout, end="")
    js = subprocess.run([sys.executable, score, out, a.eval, "--json"], capture_output=True, text=True)
    with open(os.path.join(out, "score.json"), "w") as f:
        f.write(js.stdout)
    print(f"results in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
