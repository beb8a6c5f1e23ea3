#!/usr/bin/env python3
"""Write a sample article that reuses a few passages of a demo corpus made by
extract-debian-texts.py, among original text, so the first run shows real
hits of every kind:

  - an English paragraph copied exactly;
  - an English paragraph lightly edited (case, punctuation, full-width letters);
  - a Chinese passage converted to traditional characters (opencc, when installed)
    with a few words swapped for synonyms;
  - an English paragraph reworded (synonyms, swapped words);
  - a Bible verse run into the writer's own sentence;
  - and paragraphs of the writer's own, in both languages.

usage: make-sample.py DEMO_TEXT_DIR OUT_FILE [WORDS]
With WORDS, more English paragraphs of the corpus, copied, lightly edited
and reworded in turn, until the article has that many words (the
benchmark's essay). Deterministic: the same corpus gives the same article.
"""
import os
import random
import re
import subprocess
import sys

OWN_EN = ("When I started this essay I wanted to write about how small teams keep their "
          "servers running without a dedicated administrator. What follows mixes my notes "
          "with things I read while preparing it.")
OWN_ZH = "我第一次用 Linux 的时候，什么都不懂，只能一边查资料一边摸索。下面是我整理的一些笔记和体会。"
OWN_END = ("In the end, the most useful habit was writing down every change before making it. "
           "总之，养成记录的习惯比记住任何一个命令都重要。")
EN_SYNONYMS = {"use": "employ", "provide": "supply", "system": "platform", "file": "document",
               "command": "instruction", "package": "bundle", "program": "application",
               "configuration": "setup", "users": "people", "data": "information", "easy": "simple",
               "important": "essential", "change": "modify", "show": "display", "run": "execute"}
SYNONYMS = {"可以": "能够", "使用": "运用", "系统": "体系", "需要": "须要", "重要": "关键", "如果": "假如"}


def paragraphs(path, min_len, max_len):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [p.strip() for p in re.split(r"\n\s*\n", text)
            if min_len <= len(p.strip()) <= max_len and not re.match(r"^[\d.]+ ", p.strip())]


def pick(rng, folder, min_len, max_len, want_cjk):
    files = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    rng.shuffle(files)
    for name in files:
        for p in paragraphs(os.path.join(folder, name), min_len, max_len):
            cjk = sum(1 for c in p if "\u4e00" <= c <= "\u9fff")
            if (cjk > len(p) / 3) == want_cjk and p.count("\n") < 3:
                return " ".join(p.split()) if not want_cjk else p.replace("\n", "")
    return None


def light_edit(rng, text):
    words = text.split(" ")
    for i in rng.sample(range(len(words)), max(1, len(words) // 8)):
        words[i] = words[i].upper() if rng.random() < 0.5 else "".join(
            chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in words[i])
    return " ".join(words).replace(", ", "; ", 1).replace(".", ";", 1)


def reword(rng, text):
    """A medium edit: synonyms where we know one, and some neighbouring words swapped."""
    words = text.split(" ")
    i = 0
    while i < len(words) - 1:
        w = words[i].lower()
        if w in EN_SYNONYMS:
            words[i] = EN_SYNONYMS[w]
        elif i % 5 == 2 and rng.random() < 0.6:
            words[i], words[i + 1] = words[i + 1], words[i]
            i += 1
        i += 1
    return " ".join(words)


def to_traditional(text):
    try:
        r = subprocess.run(["opencc", "-c", "s2t.json"], input=text, capture_output=True,
                           text=True, check=True)
        return r.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return text


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 1
    root, out = sys.argv[1], sys.argv[2]
    rng = random.Random(20261122)
    parts = [OWN_EN]
    exact = pick(rng, os.path.join(root, "debian-reference-en"), 180, 500, False)
    edited = pick(rng, os.path.join(root, "debian-reference-en"), 150, 400, False)
    chinese = pick(rng, os.path.join(root, "debian-reference-zh-cn"), 60, 200, True)
    verse = pick(rng, os.path.join(root, "bible-kjv"), 300, 2000, False)
    reworded = pick(rng, os.path.join(root, "debian-reference-en"), 150, 400, False)
    if exact:
        parts.append(exact)
    parts.append(OWN_ZH)
    if chinese:
        for a, b in SYNONYMS.items():
            chinese = chinese.replace(a, b, 1)
        parts.append(to_traditional(chinese))
    if edited and edited != exact:
        parts.append(light_edit(rng, edited))
    if reworded and reworded not in (exact, edited):
        parts.append(reword(rng, reworded))
    if verse:
        sentence = re.split(r"(?<=[.:;]) ", verse)
        run = " ".join(sentence[1:3]).rstrip(".;:")
        parts.append("My grandmother liked to quote an old line here: " + run +
                     ", and she said it whenever the power went out.")
    if len(sys.argv) == 4:
        edits = (lambda p: p, lambda p: light_edit(rng, p), lambda p: reword(rng, p))
        while sum(len(p.split()) for p in parts) < int(sys.argv[3]):
            more = pick(rng, os.path.join(root, "debian-reference-en"), 150, 600, False)
            if more is None:
                break
            parts.append(edits[len(parts) % 3](more))
    parts.append(OWN_END)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n\n".join(parts) + "\n")
    print(f"wrote {out}: {sum(len(p) for p in parts)} characters", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
