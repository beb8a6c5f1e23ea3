#!/usr/bin/python3
"""The corpus server beside the local store, as whole processes (issue 32).

usage: tests/bench/server.py [--cli build/app/simhound-cli] [--texts ../shared/corpora] [--runs 3]

Starts a throwaway PostgreSQL cluster on loopback (tests/server/with-postgres.sh)
unless SIMHOUND_TEST_PG is set, then for each run: a fresh database, `server init`,
`corpus add TEXTS` to the server, and `corpus add TEXTS` to a fresh local store.
Prints the medians (wall seconds, MB/s of text, client peak memory) and the server's
tables and indexes against the text. Client and server share this machine.
"""
import argparse
import os
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(TOP, "build/app/simhound-cli"))
    ap.add_argument("--texts", default=os.path.join(TOP, "..", "shared", "corpora"))
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if "SIMHOUND_TEST_PG" not in os.environ:
        os.execv(os.path.join(TOP, "tests/server/with-postgres.sh"),
                 [os.path.join(TOP, "tests/server/with-postgres.sh"), sys.executable] + sys.argv)
    host, port = os.environ["SIMHOUND_TEST_PG_HOST"], os.environ["SIMHOUND_TEST_PG_PORT"]
    os.environ["PGOPTIONS"] = "-c client_min_messages=warning"
    server, local, status = [], [], ""
    for run in range(a.runs):
        db = f"bench{run}"
        subprocess.run(["psql", os.environ["SIMHOUND_TEST_PG"], "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True)
        subprocess.run(["psql", os.environ["SIMHOUND_TEST_PG"], "-qc", f"CREATE DATABASE {db}"], check=True)
        uri = f"postgresql://postgres@{host}:{port}/{db}"
        subprocess.run([a.cli, "server", "init", uri], check=True, capture_output=True)
        server.append(timed([a.cli, "--store", uri, "corpus", "add", "--quiet", a.texts]))
        status = subprocess.run([a.cli, "server", "status", uri], check=True, capture_output=True, text=True).stdout
        tmp = tempfile.mkdtemp()
        try:
            local.append(timed([a.cli, "--store", os.path.join(tmp, "s.db"), "corpus", "add", "--quiet", a.texts]))
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
    print()
    print(status)


if __name__ == "__main__":
    main()
