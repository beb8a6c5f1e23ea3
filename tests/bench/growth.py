#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Whole-process benchmarks: how the store grows, and large inputs.

usage: growth.py [--sizes 10,100,1000] [--texts ../shared/corpora]
                 [--work /tmp/simhound-growth] [--cli build/app/simhound-cli]
                 [--bench build/tests/bench/simhound-bench] [--only growth|archive|large|cross]
                 [--archive-docs 200000]

Growth: for each size (MB of text), a synthetic corpus is made from the real
texts by a seeded recipe (below), imported with `corpus add`, and measured:
import MB/s (the median of three imports below 200 MB) and peak memory,
store bytes per text byte, open time and warm
check of a 10,000-character article (simhound-bench --store, medians in one
process), and the whole `check` process cold (page cache dropped when the
machine lets us; the median of three) and warm, with its peak memory.

Archive (--only archive): a school's archive of essays, --archive-docs of
2-10 KB each (200,000 by default: about 1.2 GB) made by the same recipe,
measured as the growth corpora are.

Cross: 2,000 essays of 5,000 characters cut from distinct real text, 50 of
them with a planted copy of another, checked against each other.

Large inputs: a 1 MB article (check, and the text, JSON, HTML and PDF reports,
each a whole process), a 100 KB article against one 10 MB source, a 1 MB
article against a 10 MB source that is its first tenth ten times (JSON, HTML
and PDF), and repeated text (a sentence 20,000 times in the corpus and 2,000
times in the article).

Recipe (seed 2026): the paragraphs of every .txt under the en-* and zh-*
folders of --texts are pooled; one paragraph in ten is held out for the
articles' own text. A synthetic document is 4-40 KB of pool paragraphs in
random order, each with 15% of its words (English) or characters (Chinese)
replaced by random ones drawn from the pool, so documents are distinct and
have real statistics. Corpora are kept under --work and reused.

Prints Markdown; every figure is from this one run.
"""
import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

SEED = 2026
CJK = re.compile(r"[\u3400-\u9fff]")


def load_pool(texts):
    paragraphs = []
    for folder in sorted(os.listdir(texts)):
        if not (folder.startswith("en-") or folder.startswith("zh-")):
            continue
        for root, _, files in sorted(os.walk(os.path.join(texts, folder))):
            for name in sorted(files):
                if name.endswith(".txt"):
                    with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                        for p in re.split(r"\n\s*\n", f.read()):
                            p = p.strip()
                            if len(p) >= 80:
                                paragraphs.append(p)
    rng = random.Random(SEED)
    rng.shuffle(paragraphs)
    held = paragraphs[::10]
    pool = [p for i, p in enumerate(paragraphs) if i % 10]
    words = [w for p in pool[:5000] for w in p.split() if w.isalpha()]
    chars = [c for p in pool[:5000] for c in p if CJK.match(c)]
    return pool, held, words, chars


def mutate(p, rng, words, chars):
    if CJK.search(p):
        return "".join(rng.choice(chars) if CJK.match(c) and rng.random() < 0.15 else c for c in p)
    return " ".join(rng.choice(words) if rng.random() < 0.15 else w for w in p.split(" "))


def make_corpus(work, size_mb, pool, words, chars, n_docs=None, sizes=(4 << 10, 40 << 10)):
    """size_mb of documents of sizes[0]-sizes[1] bytes; or, given n_docs, an
    archive of that many (a school's essays: 2-10 KB)."""
    name = f"archive-{n_docs}" if n_docs else f"corpus-{size_mb}mb"
    folder = os.path.join(work, name)
    done = os.path.join(folder, ".done")
    if os.path.exists(done):
        return folder, int(open(done).read())
    shutil.rmtree(folder, ignore_errors=True)
    rng = random.Random(SEED + (n_docs or size_mb))
    target, total, n = size_mb << 20, 0, 0
    while (n < n_docs) if n_docs else (total < target):
        sub = os.path.join(folder, f"{n // 1000:04d}")
        os.makedirs(sub, exist_ok=True)
        want = rng.randint(*sizes)
        parts, size = [], 0
        while size < want:
            p = mutate(rng.choice(pool), rng, words, chars)
            parts.append(p)
            size += len(p.encode()) + 2
        text = "\n\n".join(parts) + "\n"
        with open(os.path.join(sub, f"doc-{n:07d}.txt"), "w", encoding="utf-8") as f:
            f.write(text)
        total += len(text.encode())
        n += 1
    with open(done, "w") as f:
        f.write(str(total))
    return folder, total


def make_article(folder, held, n_chars, rng):
    """Half copied from corpus documents (whole paragraphs), half held-out text."""
    docs = []
    for root, _, files in os.walk(folder):
        docs += [os.path.join(root, f) for f in files if f.endswith(".txt")]
    docs.sort()
    out, length = [], 0
    while length < n_chars:
        if len(out) % 2 == 0:
            with open(rng.choice(docs), encoding="utf-8") as f:
                p = rng.choice(f.read().split("\n\n")).strip()
        else:
            p = rng.choice(held)
        out.append(p)
        length += len(p)
    return "\n\n".join(out)[:n_chars]


def timed(cmd, env=None, stdin=None):
    """Wall seconds, peak resident MB, completed process."""
    start = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, env=env, stdin=stdin)
    wall = time.monotonic() - start
    try:
        peak = int(r.stderr.decode().strip().splitlines()[-1]) / 1024
    except (ValueError, IndexError):
        peak = float("nan")
    return wall, peak, r


def drop_caches():
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def store_bytes(store):
    return sum(os.path.getsize(store + s) for s in ("", "-wal", ".index") if os.path.exists(store + s))


def growth(args, pool, held, words, chars, archive=False):
    rows = []
    for size in ([args.archive_docs] if archive else args.sizes):
        if archive:
            folder, text_bytes = make_corpus(args.work, 0, pool, words, chars, n_docs=size,
                                             sizes=(2 << 10, 10 << 10))
            store = os.path.join(args.work, f"store-archive-{size}.db")
        else:
            folder, text_bytes = make_corpus(args.work, size, pool, words, chars)
            store = os.path.join(args.work, f"store-{size}mb.db")
        # A small import is a fraction of a second, as noisy as any one
        # process: the median of three, each into a new store.
        adds = []
        for _ in range(3 if text_bytes < 200e6 else 1):
            for s in ("", "-wal", "-shm", ".index"):
                if os.path.exists(store + s):
                    os.remove(store + s)
            adds.append(timed([args.cli, "--store", store, "corpus", "add", folder]))
            if adds[-1][2].returncode != 0:
                sys.exit(f"corpus add failed: {adds[-1][2].stderr.decode()[-500:]}")
        wall = statistics.median(a[0] for a in adds)
        add_peak = max(a[1] for a in adds)
        article = os.path.join(args.work, f"article-{os.path.basename(folder)}.txt")
        with open(article, "w", encoding="utf-8") as f:
            f.write(make_article(folder, held, 10000, random.Random(SEED)))
        out = subprocess.run([args.bench, "--store", store, "--article", article],
                             capture_output=True, text=True, check=True).stdout
        figures = dict(kv.split("=") for kv in out.split())
        # The median of three, each after the page cache is dropped: one
        # cold run was 0.19-0.25 s at 1 GB from one run to the next.
        colds = []
        for _ in range(3):
            cold = drop_caches()
            colds.append(timed([args.cli, "--store", store, "check", "--json", article]))
            if colds[-1][2].returncode != 0:
                sys.exit(f"check failed: {colds[-1][2].stderr.decode()[-500:]}")
        cold_wall = statistics.median(c[0] for c in colds)
        cold_peak = max(c[1] for c in colds)
        warm = [timed([args.cli, "--store", store, "check", "--json", article]) for _ in range(3)]
        rows.append((folder, text_bytes, len(os.listdir(folder)), wall, add_peak, store_bytes(store),
                     figures, cold, cold_wall, cold_peak,
                     statistics.median(w[0] for w in warm), max(w[1] for w in warm)))
    print("## An archive of essays (whole processes)\n" if archive else "## Growth of the store (whole processes)\n")
    print("| corpus | documents | `corpus add` MB/s | add peak MB | store bytes / text byte | "
          "open ms, first in a process / again | check ms, warm, in process | `check` process cold s | `check` process warm s | "
          "check peak MB | similarity |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (folder, text_bytes, n_dirs, wall, add_peak, sbytes, fig, cold, cold_wall, cold_peak,
         warm_wall, warm_peak) in rows:
        n_docs = sum(len(files) for _, _, files in os.walk(folder)) - 1
        print(f"| {text_bytes / 1e6:.0f} MB | {n_docs} | {text_bytes / 1e6 / wall:.1f} | {add_peak:.0f} | "
              f"{sbytes / text_bytes:.2f} | {float(fig['first_open_ms']):.0f} / {float(fig['open_ms']):.0f} | "
              f"{float(fig['check_ms']):.1f} | "
              f"{cold_wall:.2f}{'' if cold else ' (cache not dropped)'} | {warm_wall:.2f} | "
              f"{max(cold_peak, warm_peak):.0f} | {float(fig['similarity']):.2f} |")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        print(f"\nFrom {first[1] / 1e6:.0f} MB to {last[1] / 1e6:.0f} MB of corpus: warm check "
              f"{float(last[6]['check_ms']) / float(first[6]['check_ms']):.1f}x, open "
              f"{float(last[6]['first_open_ms']) / float(first[6]['first_open_ms']):.1f}x, check peak memory "
              f"{max(last[9], last[11]) / max(first[9], first[11]):.1f}x.")
    print()


def large(args, pool, held, words, chars):
    work = os.path.join(args.work, "large")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = random.Random(SEED)
    folder, _ = make_corpus(args.work, 10, pool, words, chars)
    store = os.path.join(args.work, "store-10mb.db")
    if not os.path.exists(store):
        subprocess.run([args.cli, "--store", store, "corpus", "add", folder], check=True, capture_output=True)
    article = os.path.join(work, "article-1mb.txt")
    with open(article, "w", encoding="utf-8") as f:
        f.write(make_article(folder, held, 1 << 20, rng))
    print("## Large inputs (whole processes, medians of 3)\n")
    print("| what | seconds | peak MB | target |")
    print("|---|---:|---:|---|")

    def row(what, cmd, target, n=3):
        runs = [timed(cmd) for _ in range(n)]
        if any(r[2].returncode not in (0,) for r in runs):
            sys.exit(f"{what} failed: {runs[0][2].stderr.decode()[-500:]}")
        wall = statistics.median(r[0] for r in runs)
        print(f"| {what} | {wall:.2f} | {max(r[1] for r in runs):.0f} | {target} |")
        return wall

    base = [args.cli, "--store", store, "check"]
    n_chars = len(open(article, encoding="utf-8").read())
    t_json = row(f"check a {n_chars}-character article against the 10 MB corpus, JSON", base + ["--json", article], "< 3 s")
    t_text = row("the same, text report", base + [article], "")
    t_html = row("the same, HTML report", base + ["--html", os.path.join(work, "r.html"), article], "")
    t_pdf = row("the same, PDF report", base + ["--pdf", os.path.join(work, "r.pdf"), article], "")
    print(f"| text / HTML / PDF report alone (minus the JSON run) | "
          f"{t_text - t_json:.2f} / {t_html - t_json:.2f} / {t_pdf - t_json:.2f} | | < 2 s each |")

    source_dir = os.path.join(work, "source")
    os.makedirs(source_dir)
    paragraphs, size = [], 0
    while size < 10 << 20:
        p = mutate(rng.choice(pool), rng, words, chars)
        paragraphs.append(p)
        size += len(p.encode()) + 2
    with open(os.path.join(source_dir, "big.txt"), "w", encoding="utf-8") as f:
        f.write("\n\n".join(paragraphs))
    one = os.path.join(work, "one.db")
    subprocess.run([args.cli, "--store", one, "corpus", "add", source_dir], check=True, capture_output=True)
    small = os.path.join(work, "article-100kb.txt")
    out, length = [], 0
    while length < 100000:
        p = paragraphs[rng.randrange(len(paragraphs))] if len(out) % 2 == 0 else rng.choice(held)
        out.append(p)
        length += len(p)
    with open(small, "w", encoding="utf-8") as f:
        f.write("\n\n".join(out)[:100000])
    row("check a 100,000-character article against one 10 MB source, JSON",
        [args.cli, "--store", one, "check", "--json", small], "< 3 s")

    # A source that repeats itself (an archive file, a collected edition):
    # its first tenth ten times, and a 1 MB article taking 300 KB of it.
    selfrep_dir = os.path.join(work, "selfrep")
    os.makedirs(selfrep_dir)
    tenth = "\n\n".join(paragraphs).encode()[:1000000].decode(errors="ignore")  # 10 MB in all
    with open(os.path.join(selfrep_dir, "archive.txt"), "w", encoding="utf-8") as f:
        f.write(tenth * 10)
    selfrep = os.path.join(work, "selfrep.db")
    subprocess.run([args.cli, "--store", selfrep, "corpus", "add", selfrep_dir], check=True, capture_output=True)
    own, length = [], 0
    while length < 700000:
        own.append(rng.choice(held))
        length += len(own[-1]) + 2
    own_text = "\n\n".join(own)
    selfrep_article = os.path.join(work, "selfrep-article.txt")
    with open(selfrep_article, "w", encoding="utf-8") as f:
        f.write(own_text[:350000] + "\n\n" + tenth[len(tenth) // 5:len(tenth) // 2] + "\n\n" +
                own_text[350000:700000])
    sbase = [args.cli, "--store", selfrep, "check"]
    row("a 1 MB article taking 30% of a 10 MB source that is its first tenth ten times, JSON",
        sbase + ["--json", selfrep_article], "< 2 s")
    row("the same, HTML report", sbase + ["--html", os.path.join(work, "s.html"), selfrep_article], "< 3 s")
    row("the same, PDF report", sbase + ["--pdf", os.path.join(work, "s.pdf"), selfrep_article], "< 3 s")

    rep_dir = os.path.join(work, "form")
    os.makedirs(rep_dir)
    sentence = "The committee shall meet on the first Monday of every month at the town hall. "
    with open(os.path.join(rep_dir, "form.txt"), "w") as f:
        f.write(sentence * 20000)
    rep = os.path.join(work, "rep.db")
    subprocess.run([args.cli, "--store", rep, "corpus", "add", rep_dir], check=True, capture_output=True)
    rep_article = os.path.join(work, "rep.txt")
    with open(rep_article, "w") as f:
        f.write(sentence * 2000)
    row("a sentence 2,000 times in the article and 20,000 times in the corpus, JSON",
        [args.cli, "--store", rep, "check", "--json", rep_article], "< 10 s, < 500 MB")
    print()


CLASS_FOLDERS = ("en-news-bbc", "zh-news", "zh-sohu-news", "en-kjv", "en-handbook", "en-debref")


def make_class(work, texts, n=2000, chars=5000, n_planted=50):
    """n essays of `chars` characters cut from distinct real text (paragraphs
    sharing any 40-character stretch with an earlier one dropped, so essays
    share nothing by accident), and n_planted essays whose last 40% is copied
    from another essay's middle. Returns the folder and the planted pairs."""
    folder = os.path.join(work, f"class-{n}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    seen, clean = set(), []
    for name in CLASS_FOLDERS:
        for root, _, files in sorted(os.walk(os.path.join(texts, name))):
            for f in sorted(files):
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                    for p in re.split(r"\n\s*\n", fh.read()):
                        norm = re.sub(r"\s+", " ", p.strip())
                        shingles = {norm[i:i + 40] for i in range(0, max(1, len(norm) - 40), 10)}
                        if len(norm) >= 80 and not shingles & seen:
                            seen |= shingles
                            clean.append(p.strip())
    rng = random.Random(SEED)
    rng.shuffle(clean)
    blob = "\n\n".join(clean)
    chars = min(chars, len(blob) // n)
    essays = [blob[i * chars:(i + 1) * chars] for i in range(n)]
    planted = []
    for _ in range(n_planted):
        a, b = rng.sample(range(n), 2)
        essays[a] = essays[a][:chars * 6 // 10] + "\n\n" + essays[b][chars // 5:chars * 3 // 5]
        planted.append((min(a, b), max(a, b)))
    for i, e in enumerate(essays):
        with open(os.path.join(folder, f"essay-{i:04d}.txt"), "w", encoding="utf-8") as f:
            f.write(e + "\n")
    return folder, planted, chars


def cross(args):
    folder, planted, chars = make_class(args.work, args.texts)
    print(f"## A class checked against itself (`simhound-cli cross`, whole process, median of 3)\n")
    runs = [timed([args.cli, "cross", "--json", folder]) for _ in range(3)]
    if runs[0][2].returncode != 0:
        sys.exit(f"cross failed: {runs[0][2].stderr.decode()[-500:]}")
    import json
    result = json.loads(runs[0][2].stdout)
    names = {os.path.basename(d["path"]): i for i, d in enumerate(result["documents"])}
    found = {tuple(sorted((names[os.path.basename(p["a"])], names[os.path.basename(p["b"])])))
             for p in result["pairs"]}
    hit = sum(p in found for p in planted)
    print("| essays | characters each | seconds | peak MB | pairs reported | planted copies found |")
    print("|---:|---:|---:|---:|---:|---:|")
    ours = statistics.median(r[0] for r in runs)
    print(f"| {len(result['documents'])} | {chars} | {ours:.2f} | "
          f"{max(r[1] for r in runs):.0f} | {len(result['pairs'])} | {hit} of {len(planted)} |\n")
    # Debian's similarity-tester, the yardstick (line granularity,
    # percentages only), on the same files when it is installed.
    if shutil.which("sim_text"):
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
        theirs = statistics.median(timed(["sim_text", "-p", *files])[0] for _ in range(3))
        print(f"`sim_text -p` (similarity-tester) on the same files: {theirs:.2f} s; "
              f"cross takes {ours / theirs:.1f}x its time\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100", help="MB of corpus text, comma-separated (1000 for 1 GB)")
    ap.add_argument("--texts", default=os.environ.get("SIMHOUND_SHARED_DIR", "../shared") + "/corpora")
    ap.add_argument("--work", default="/tmp/simhound-growth")
    ap.add_argument("--cli", default="build/app/simhound-cli")
    ap.add_argument("--bench", default="build/tests/bench/simhound-bench")
    ap.add_argument("--only", choices=("growth", "archive", "large", "cross"))
    ap.add_argument("--archive-docs", type=int, default=200000,
                    help="essays of 2-10 KB in the archive (--only archive; 200,000: about 1.2 GB)")
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if not os.path.isdir(args.texts):
        print(f"skipped: {args.texts} not found")
        return
    os.makedirs(args.work, exist_ok=True)
    pool, held, words, chars = load_pool(args.texts)
    print(f"# Whole-process benchmarks\n\n{os.cpu_count()} cores; synthetic corpora from {args.texts} "
          f"(seed {SEED}), kept in {args.work}\n")
    if args.only in (None, "growth"):
        growth(args, pool, held, words, chars)
    if args.only == "archive":
        growth(args, pool, held, words, chars, archive=True)
    if args.only in (None, "large"):
        large(args, pool, held, words, chars)
    if args.only in (None, "cross"):
        cross(args)


if __name__ == "__main__":
    main()
