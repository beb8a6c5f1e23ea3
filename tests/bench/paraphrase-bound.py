#!/usr/bin/env python3
"""How far words alone can go on the paraphrase pairs of an eval set.

usage: paraphrase-bound.py [EVAL_DIR [RESULTS_DIR]]   (default ../shared/eval-public)

For every heavy span (a paraphrase of its reference sentence) and every hard
negative pair (a sentence pair labelled NOT a paraphrase, whose reference
sentence is indexed: a detector must not report it), scores the two sides as
the alignment stage does (core/check/sim-align.c, approximated here): English words
folded to their first five letters with the same stop words skipped, CJK text
as character bigrams, a pair passing when both its Dice coefficient and its
cosine reach a threshold. Prints, per threshold, how many heavy spans pass
(the most a word-level judge could detect, were every pair retrieved) and how
many hard negatives pass too (false positives it would add). Then, for the
heavy pairs passing 0.6, how many a retrieval index could propose if it kept
K keys per stored sentence, each the two smallest of its words under one of K
hash orders (a bottom-2 sketch): the pair is proposed when a key is equal.
With RESULTS_DIR (`simhound-cli check --output-dir` of the set), also what
the check's detections and those pairs together would score: heavy spans
detected (half covered by flagged segments naming the span's source) or
passing, hard negatives flagged (half covered) or passing.
"""
import hashlib
import json
import math
import os
import re
import sys

STOP = set("""a about above after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing down during each few
for from further had has have having he her here hers herself him himself his how i if in into
is it its itself just may me might more most must my myself no nor not now of off on once only
or other our ours out over own same shall she should so some such than that the their theirs
them then there these they this those through to too under until up upon us very was we were
what when where which while who whom why will with would you your yours""".split())


def is_cjk(c):
    return "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff"


def words(text):
    out = {a + b for a, b in zip(text, text[1:]) if is_cjk(a) and is_cjk(b)}
    out |= {w.lower()[:5] for w in re.findall(r"[^\W_]+", text)
            if not any(is_cjk(c) for c in w) and w.lower() not in STOP}
    return out


def score(a, b):
    x, y = words(a), words(b)
    if not x or not y:
        return 0.0
    shared = len(x & y)
    return min(2 * shared / (len(x) + len(y)), shared / math.sqrt(len(x) * len(y)))


def flagged(results, t):
    """Whether the check's flagged segments cover half of span @t (naming its source, for a reused one)."""
    if results is None:
        return False
    path = os.path.join(results, os.path.basename(t["query"]).replace(".txt", "") + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except OSError:
        return False
    refs = [r.split("reference/")[-1] for r in [t.get("ref")] + t.get("alt_refs", []) if r]
    covered = 0
    for seg in report["segments"]:
        if seg["level"] not in ("high", "medium"):
            continue
        if refs and not (seg["matches"] and any(seg["matches"][0]["document"].endswith("/" + r) for r in refs)):
            continue
        covered += max(0, min(seg["end"], t["q_end"]) - max(seg["start"], t["q_start"]))
    bar = 0.3 if t["granularity"] == "document" else 0.5
    return covered >= bar * (t["q_end"] - t["q_start"])


def sketch(tokens, k):
    keys = set()
    for seed in range(k):
        order = sorted(tokens, key=lambda t: hashlib.blake2b(f"{seed}:{t}".encode(), digest_size=8).digest())
        if len(order) >= 2:
            keys.add((seed, order[0], order[1]))
    return keys


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/eval-public")
    results = sys.argv[2] if len(sys.argv) > 2 else None
    heavy, negative = [], []
    with open(os.path.join(top, "truth.jsonl"), encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            if t["class"] == "heavy":
                ref, start, end = t["ref"], t["r_start"], t["r_end"]
                into = heavy
            elif t["class"] == "negative" and "near_ref" in t and t.get("subclass") == "non-paraphrase-pair":
                ref, start, end = t["near_ref"], t["near_r_start"], t["near_r_end"]
                into = negative
            else:
                continue
            name = os.path.basename(t["query"])
            name = name if name.endswith(".txt") else name + ".txt"
            with open(os.path.join(top, "queries", name), encoding="utf-8") as q:
                query = q.read()
            with open(os.path.join(top, ref), encoding="utf-8") as r:
                source = r.read()
            into.append((query[t["q_start"]:t["q_end"]], source[start:end], flagged(results, t)))
    pairs = heavy
    heavy_found = [found for _, _, found in pairs]
    negative_found = [found for _, _, found in negative]
    heavy = [score(a, b) for a, b, _ in pairs]
    negative = [score(a, b) for a, b, _ in negative]
    print(f"{len(heavy)} heavy spans, {len(negative)} hard negative pairs")
    print("threshold  heavy passing  hard negatives passing")
    for th in (0.33, 0.4, 0.5, 0.6, 0.7):
        h = sum(s >= th for s in heavy)
        n = sum(s >= th for s in negative)
        print(f"{th:9.2f}  {h:4d} ({100 * h / len(heavy):4.1f}%)  {n:4d} ({100 * n / max(len(negative), 1):4.1f}%)")

    if results is not None:
        print(f"\nthe check now: {sum(heavy_found)} heavy detected, {sum(negative_found)} hard negative pairs flagged")
        print("threshold  heavy detected or passing  hard negatives flagged or passing")
        for th in (0.5, 0.6, 0.7):
            h = sum(f or s >= th for f, s in zip(heavy_found, heavy))
            n = sum(f or s >= th for f, s in zip(negative_found, negative))
            print(f"{th:9.2f}  {h:4d} ({100 * h / len(heavy):4.1f}%)  {n:4d}")
    passing = [(words(a), words(b)) for a, b, _ in pairs if score(a, b) >= 0.6]
    print(f"\nof the {len(passing)} heavy spans passing 0.6, proposed by a sketch index of")
    for k in (1, 2, 3, 4):
        n = sum(bool(sketch(a, k) & sketch(b, k)) for a, b in passing)
        print(f"  {k} key{'s' if k > 1 else ''} a sentence: {n}")


if __name__ == "__main__":
    main()
