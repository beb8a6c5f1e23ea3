#!/usr/bin/python3
"""The corpus server beside the local store, as whole processes (issue 32).

usage: tests/bench/server.py [--cli build/app/simhound-cli] [--texts ../shared/corpora] [--runs 3]
                              [--checks 20] [--clients 8] [--server-settings "-c NAME=VALUE …"]

Starts a throwaway PostgreSQL cluster on loopback (tests/server/with-postgres.sh)
unless SIMHOUND_TEST_PG is set, then for each run: a fresh database, `server init`,
`corpus add TEXTS` to the server, and `corpus add TEXTS` to a fresh local store.
Prints the medians (wall seconds, MB/s of text, client peak memory) and the server's
tables and indexes against the text. Then, on the last run's server and store,
`check --json` of --checks articles of 10,000 characters (each a third copied
from three files of TEXTS, the rest the files' neighbours' words in another
order), one process each: p50, p99 and peak memory; and --clients processes
checking at once, --checks / 2 articles each: checks a second in all, and
errors; then the same through the server after `server compact`. Client
and server share this machine.
"""
import argparse
import os
import random
import time
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def timed(cmd, env=None):
    out = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
    m = re.search(r"TIME ([\d.]+) (\d+)", out.stderr)
    mb = re.search(r"\(([\d.]+) MB of text", out.stdout)
    return float(m.group(1)), int(m.group(2)) / 1024, float(mb.group(1)) if mb else 0.0


def make_articles(texts, n, size=10000, seed=17):
    files = []
    for root, _, names in os.walk(texts):
        files += [os.path.join(root, f) for f in names if f.endswith(".txt")]
    files.sort()
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        while sum(len(p) for p in parts) < size:
            text = open(rng.choice(files), encoding="utf-8", errors="replace").read()
            if len(text) < 200:
                continue
            if len(parts) % 3 == 0:
                start = rng.randrange(0, max(1, len(text) - 1200))
                parts.append(text[start:start + 1200])
            else:
                words = text.split()
                rng.shuffle(words)
                parts.append(" ".join(words)[:1200])
        out.append("\n\n".join(parts)[:size])
    return out


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def checks(cli, store, paths):
    rows = [timed([cli, "--store", store, "check", "--json", p]) for p in paths]
    return [r[0] for r in rows], max(r[1] for r in rows)


def at_once(cli, store, paths, clients):
    start = time.monotonic()
    procs = []
    for c in range(clients):
        script = " && ".join(f"{cli} --store '{store}' check --json '{p}' > /dev/null" for p in paths)
        procs.append(subprocess.Popen(["sh", "-c", script], stderr=subprocess.PIPE, text=True))
    errors = 0
    for proc in procs:
        _, err = proc.communicate()
        errors += proc.returncode != 0
        if proc.returncode != 0:
            print(err, file=sys.stderr)
    wall = time.monotonic() - start
    return clients * len(paths) / wall, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(TOP, "build/app/simhound-cli"))
    ap.add_argument("--texts", default=os.path.join(TOP, "..", "shared", "corpora"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--checks", type=int, default=20)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--server-settings", default="",
                    help='the cluster\'s settings, as "-c shared_buffers=4GB -c huge_pages=on"')
    a = ap.parse_args()
    if "SIMHOUND_TEST_PG" not in os.environ:
        os.environ["SIMHOUND_TEST_PG_SETTINGS"] = a.server_settings
        os.execv(os.path.join(TOP, "tests/server/with-postgres.sh"),
                 [os.path.join(TOP, "tests/server/with-postgres.sh"), sys.executable] + sys.argv)
    host, port = os.environ["SIMHOUND_TEST_PG_HOST"], os.environ["SIMHOUND_TEST_PG_PORT"]
    os.environ["PGOPTIONS"] = "-c client_min_messages=warning"
    server, local, status, check_rows = [], [], "", []
    for run in range(a.runs):
        db = f"bench{run}"
        subprocess.run(["psql", os.environ["SIMHOUND_TEST_PG"], "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True)
        subprocess.run(["psql", os.environ["SIMHOUND_TEST_PG"], "-qc", f"CREATE DATABASE {db}"], check=True)
        uri = f"postgresql://postgres@{host}:{port}/{db}"
        subprocess.run([a.cli, "server", "init", uri], check=True, capture_output=True)
        server.append(timed([a.cli, "--store", uri, "corpus", "add", "--quiet", a.texts]))
        # What autovacuum would do after a large add (vacuum and analyze the
        # new rows) done now, so that it does not fall inside the local add or
        # the checks measured next: the seventeenth session's two runs at 1 GB
        # gave eight clients 8.4 and 6.2 checks/s as added without it.
        start = time.monotonic()
        subprocess.run(["psql", uri, "-qc", "VACUUM ANALYZE"], check=True)
        vacuum_wall = time.monotonic() - start
        status = subprocess.run([a.cli, "server", "status", uri], check=True, capture_output=True, text=True).stdout
        tmp = tempfile.mkdtemp()
        store = os.path.join(tmp, "s.db")
        try:
            local.append(timed([a.cli, "--store", store, "corpus", "add", "--quiet", a.texts]))
            if run == a.runs - 1 and a.checks > 0:
                paths = []
                for i, text in enumerate(make_articles(a.texts, a.checks)):
                    paths.append(os.path.join(tmp, f"article-{i}.txt"))
                    with open(paths[-1], "w", encoding="utf-8") as f:
                        f.write(text)
                for store_name, where in (("server (loopback)", uri), ("local store", store)):
                    checks(a.cli, where, paths[:2])   # warm the caches
                    walls, mem = checks(a.cli, where, paths)
                    rate, errors = at_once(a.cli, where, paths[:max(1, a.checks // 2)], a.clients)
                    check_rows.append((store_name, walls, mem, rate, errors))
                # The lookup table merged into one run, as an administrator would at a quiet hour.
                compact_wall = timed([a.cli, "server", "compact", uri])[0]
                # ... and what it left dead vacuumed, and the table's statistics
                # taken again, before checking (autovacuum would do both in its
                # own time, beside the checks: the seventeenth session's run gave
                # 6.3 checks/s compacted where by hand, after both, 8.2-10.0).
                subprocess.run(["psql", uri, "-qc", "VACUUM ANALYZE simhound.postings"], check=True)
                checks(a.cli, uri, paths[:2])
                walls, mem = checks(a.cli, uri, paths)
                rate, errors = at_once(a.cli, uri, paths[:max(1, a.checks // 2)], a.clients)
                check_rows.append((f"server after `server compact` ({compact_wall:.0f} s)", walls, mem, rate, errors))
        finally:
            shutil.rmtree(tmp)
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"Model name:\s*(.*)", cpu)
    print(f"CPU: {model.group(1) if model else '?'}; {os.cpu_count()} CPUs; runs: {a.runs}")
    print("| corpus add of " + a.texts + " | wall (median) | MB/s | client peak memory |")
    print("|---|---:|---:|---:|")
    for name, rows in (("server (loopback)", server), ("local store", local)):
        wall = statistics.median(r[0] for r in rows)
        mem = statistics.median(r[1] for r in rows)
        mb = rows[0][2]
        print(f"| {name} | {wall:.2f} s | {mb / wall:.1f} | {mem:.0f} MB |")
    print(f"\n`VACUUM ANALYZE` after the last add to the server (not in its time): {vacuum_wall:.1f} s\n")
    if check_rows:
        print(f"| check --json of a 10,000-character article ({a.checks} articles) | p50 | p99 | client peak memory"
              f" | {a.clients} clients at once | errors |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, walls, mem, rate, errors in check_rows:
            print(f"| {name} | {percentile(walls, 0.5):.3f} s | {percentile(walls, 0.99):.3f} s | {mem:.0f} MB"
                  f" | {rate:.1f} checks/s | {errors} |")
        print()
    print(status)


if __name__ == "__main__":
    main()
