#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Inputs built to take the machine, as whole processes: time and peak memory.

usage: limits.py [--texts ../shared/corpora/en-news-bbc] [--work /tmp/simhound-limits]
                 [--cli build/app/simhound-cli]

Against a store of 200 news texts: a check of text at the limit (12 MB of
ordinary news), of one sentence from each of four stored texts cycled to
1, 4.6 and 12 MB, of /dev/zero, of 60 MB on standard input, of a DOCX with
an entity used 50,000 times, and of a 600 KB DOCX whose text passes the
limit; a `corpus add` of a folder holding the hostile files and good ones.
Each row: exit code, seconds, peak resident MB (GNU time), and s/MB of text
accepted. The floors: 1 GB and about 5 s per MB. Prints Markdown.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import zipfile

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def timed(cmd, env, stdin=None):
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, env=env, capture_output=True,
                       stdin=stdin)
    m = re.search(rb"TIME ([0-9.]+) ([0-9]+)", r.stderr)
    return r.returncode, float(m.group(1)), int(m.group(2)) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", default=os.path.join(os.path.dirname(__file__), "../../../shared/corpora/en-news-bbc"))
    ap.add_argument("--work", default="/tmp/simhound-limits")
    ap.add_argument("--cli", default="build/app/simhound-cli")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    corpus = os.path.join(args.work, "corpus")
    os.makedirs(corpus)
    names = sorted(os.listdir(args.texts))
    for name in names[:200]:
        shutil.copy(os.path.join(args.texts, name), corpus)
    env = dict(os.environ, SIMHOUND_STORE=os.path.join(args.work, "store.db"))
    subprocess.run([args.cli, "corpus", "add", corpus], env=env, check=True, capture_output=True)
    w = lambda name, data: (open(os.path.join(args.work, name), "wb").write(data), os.path.join(args.work, name))[1]

    news = "".join(open(os.path.join(args.texts, n), encoding="utf-8").read() for n in names[200:])
    big = (news * (1 + (12 << 20) // len(news)))[: (12 << 20) - 4096]
    sentences = []
    for n in names[:4]:
        text = open(os.path.join(args.texts, n), encoding="utf-8").read()
        sentences.append([s for s in re.split(r"(?<=\.)\s+", text) if len(s) > 60][1])
    cycle = " ".join(sentences) + " "
    rows = [("12 MB of news (at the limit)", w("news12.txt", big.encode()), len(big.encode()))]
    for mb in (1, 4.6, 12):
        data = (cycle * int(1 + mb * 1e6 / len(cycle))).encode()[: int(mb * 1e6)]
        rows.append(("four sentences cycled, %g MB" % mb, w("cycled%g.txt" % mb, data), len(data)))
    rows.append(("/dev/zero", "/dev/zero", 0))
    entity = ('<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "%s">]><w:document %s><w:body><w:p><w:r><w:t>%s'
              '</w:t></w:r></w:p></w:body></w:document>' % ("copied text " * 4000, W, "&a;" * 50000))
    bomb = os.path.join(args.work, "entity.docx")
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", entity)
    rows.append(("DOCX, one entity used 50,000 times (%d bytes)" % os.path.getsize(bomb), bomb, 0))
    long_docx = os.path.join(args.work, "long.docx")
    with zipfile.ZipFile(long_docx, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "<w:document %s><w:body>%s</w:body></w:document>" %
                   (W, "<w:p><w:r><w:t>The same copied sentence again and again.</w:t></w:r></w:p>" * 400000))
    rows.append(("DOCX of %d KB holding %d MB of text" % (os.path.getsize(long_docx) >> 10, 400000 * 42 >> 20),
                 long_docx, 0))

    print("| input | exit | seconds | peak MB | s per MB accepted |")
    print("|---|---:|---:|---:|---:|")
    for label, path, size in rows:
        code, secs, peak = timed([args.cli, "check", "--json", path], env)
        per = "%.2f" % (secs / (size / 1e6)) if code == 0 and size else "-"
        print("| check: %s | %d | %.2f | %.0f | %s |" % (label, code, secs, peak, per))
    with open(w("stdin60.txt", (news * (1 + (60 << 20) // len(news))).encode()[: 60 << 20]), "rb") as f:
        code, secs, peak = timed([args.cli, "check", "-"], env, stdin=f)
    print("| check: 60 MB on standard input | %d | %.2f | %.0f | - |" % (code, secs, peak))
    folder = os.path.join(args.work, "mixed")
    os.makedirs(folder)
    for name in names[200:210]:
        shutil.copy(os.path.join(args.texts, name), folder)
    shutil.copy(bomb, folder)
    shutil.copy(long_docx, folder)
    env2 = dict(env, SIMHOUND_STORE=os.path.join(args.work, "mixed.db"))
    code, secs, peak = timed([args.cli, "corpus", "add", folder], env2)
    listed = subprocess.run([args.cli, "corpus", "list"], env=env2, capture_output=True).stdout.decode()
    n_docs = re.search(r"(\d+) documents", listed)
    print("| corpus add: 10 news texts, the entity DOCX and the long DOCX | %d | %.2f | %.0f | - (%s documents added) |"
          % (code, secs, peak, n_docs.group(1) if n_docs else "?"))


if __name__ == "__main__":
    main()
