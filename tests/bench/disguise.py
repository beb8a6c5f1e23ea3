#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copies disguised as a student would, checked as whole processes.

usage: disguise.py [--texts ../shared/corpora/en-news-bbc] [--n 40]
                   [--work /tmp/simhound-disguise] [--cli build/app/simhound-cli]

The first 200 texts of the folder are the corpus. N of them are copied
whole, and N more two thirds copied with a third from texts outside the
corpus; each article is then disguised six ways:
  plain       as copied;
  cyrillic    Latin a e o c p (and capitals A E O C P T) swapped for their
              Cyrillic look-alikes;
  zero-width  a zero-width space after every third letter;
  docx-vanish a DOCX whose visible text is the copy, a hidden (w:vanish)
              junk word between each pair of words;
  docx-white  the same with white 1-point junk runs;
  html-font   an HTML page opened by 300 unclosed <font> tags.
Each is checked with `simhound-cli check --json`; the table gives, for each
disguise, the mean share of the article flagged (similarity) and the mean
number of characters the report's "suspicious" list names, and how many
were refused (counted as nothing flagged). Prints Markdown.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import zipfile
from xml.sax.saxutils import escape

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
LOOK = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441", "p": "\u0440",
                      "A": "\u0410", "E": "\u0415", "O": "\u041e", "C": "\u0421", "P": "\u0420", "T": "\u0422"})


def zero_width(text):
    out, n = [], 0
    for i, ch in enumerate(text):
        out.append(ch)
        if ch.isalpha() and i + 1 < len(text) and text[i + 1].isalpha():
            n += 1
            if n % 3 == 0:
                out.append("\u200b")
    return "".join(out)


def docx(path, text, junk_props, rng):
    runs = []
    for para in text.split("\n"):
        words = para.split(" ")
        cells = []
        for w in words:
            cells.append('<w:r><w:t xml:space="preserve">%s </w:t></w:r>' % escape(w))
            junk = "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(6))
            cells.append('<w:r><w:rPr>%s</w:rPr><w:t xml:space="preserve">%s </w:t></w:r>' % (junk_props, junk))
        runs.append("<w:p>%s</w:p>" % "".join(cells))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", '<w:document %s><w:body>%s</w:body></w:document>' % (W, "".join(runs)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", default=os.path.join(os.path.dirname(__file__), "../../../shared/corpora/en-news-bbc"))
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--work", default="/tmp/simhound-disguise")
    ap.add_argument("--cli", default="build/app/simhound-cli")
    args = ap.parse_args()
    names = sorted(os.listdir(args.texts))
    if len(names) < 200 + args.n:
        sys.exit("disguise.py: %s has too few texts" % args.texts)
    shutil.rmtree(args.work, ignore_errors=True)
    corpus = os.path.join(args.work, "corpus")
    os.makedirs(corpus)
    for name in names[:200]:
        shutil.copy(os.path.join(args.texts, name), corpus)
    store = os.path.join(args.work, "store.db")
    env = dict(os.environ, SIMHOUND_STORE=store)
    subprocess.run([args.cli, "corpus", "add", corpus], env=env, check=True, capture_output=True)
    rng = random.Random(29)
    articles = []
    for k in range(args.n):
        src = open(os.path.join(args.texts, names[k * 5 % 200]), encoding="utf-8").read().strip()
        articles.append(("whole", src))
        own = open(os.path.join(args.texts, names[200 + k]), encoding="utf-8").read().strip()
        paras = [p for p in src.split("\n") if p.strip()]
        keep = paras[: max(1, 2 * len(paras) // 3)]
        articles.append(("two-thirds", "\n".join(keep + [own[: len(src) // 3]])))
    ways = ["plain", "cyrillic", "zero-width", "docx-vanish", "docx-white", "html-font"]
    out = os.path.join(args.work, "articles")
    os.makedirs(out)
    figures = {}
    for i, (kind, text) in enumerate(articles):
        for way in ways:
            base = os.path.join(out, "%03d-%s-%s" % (i, kind, way))
            if way == "plain":
                path = base + ".txt"
                open(path, "w", encoding="utf-8").write(text)
            elif way == "cyrillic":
                path = base + ".txt"
                open(path, "w", encoding="utf-8").write(text.translate(LOOK))
            elif way == "zero-width":
                path = base + ".txt"
                open(path, "w", encoding="utf-8").write(zero_width(text))
            elif way == "docx-vanish":
                path = base + ".docx"
                docx(path, text, "<w:vanish/>", rng)
            elif way == "docx-white":
                path = base + ".docx"
                docx(path, text, '<w:color w:val="FFFFFF"/><w:sz w:val="2"/>', rng)
            else:
                path = base + ".html"
                body = "".join("<p>%s</p>" % escape(p) for p in text.split("\n"))
                open(path, "w", encoding="utf-8").write("<html><body>" + '<font face="Arial">' * 300 + body +
                                                        "</body></html>")
            r = subprocess.run([args.cli, "check", "--json", path], env=env, capture_output=True)
            if r.returncode != 0:
                # Refused (an older build: "The text is empty"): nothing flagged.
                figures.setdefault((kind, way), []).append((0.0, 0, 1))
                continue
            report = json.loads(r.stdout)
            named = sum(x["count"] for x in report.get("suspicious", []))
            figures.setdefault((kind, way), []).append((report["similarity"], named, 0))
    print("| article | disguise | flagged (mean) | characters named as suspicious (mean) | refused |")
    print("|---|---|---:|---:|---:|")
    for kind in ("whole", "two-thirds"):
        for way in ways:
            rows = figures[(kind, way)]
            print("| %s | %s | %.1f%% | %.0f | %d |" % (kind, way, 100 * statistics.mean(r[0] for r in rows),
                                                     statistics.mean(r[1] for r in rows), sum(r[2] for r in rows)))
    print("\n%d articles of each kind from %s; corpus of its first 200 texts." % (args.n, args.texts))


if __name__ == "__main__":
    main()
