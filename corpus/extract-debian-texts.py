#!/usr/bin/env python3
"""Extract a demo reference corpus from installed Debian text packages into
OUT_DIR, one plain UTF-8 document per file:

  debian-reference-en, debian-reference-zh-cn  one file per "N.M." section
  fortunes-zh                                  one file per Tang/Song poem, plus
                                               the first modern fortunes
  bible-kjv (+ bible-kjv-text)                 one file per chapter of a few books

usage: extract-debian-texts.py OUT_DIR
Packages that are not installed are skipped with a note. Nothing is fetched.
"""
import html.parser
import os
import re
import subprocess
import sys

REFERENCE = "/usr/share/debian-reference"
FORTUNES = "/usr/share/games/fortunes"
KJV_BOOKS = ["Genesis", "Exodus", "Ruth", "Psalms", "Proverbs", "Matthew", "Mark", "Luke", "John"]


class TextParser(html.parser.HTMLParser):
    """HTML to text: block elements end lines, scripts and styles vanish."""
    BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "li", "tr", "pre", "table", "br", "dt", "dd", "title"}

    def __init__(self):
        super().__init__()
        self.parts = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)

    def text(self):
        raw = "".join(self.parts)
        lines = [re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in raw.split("\n")]
        out, blank = [], False
        for line in lines:
            if line:
                out.append(line)
                blank = False
            elif not blank:
                out.append("")
                blank = True
        return "\n".join(out).strip() + "\n"


def write(out_dir, sub, name, text):
    if len(text.strip()) < 40:
        return 0
    folder = os.path.join(out_dir, sub)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        f.write(text)
    return 1


def debian_reference(out_dir, lang):
    if not os.path.isdir(REFERENCE):
        return 0
    n = 0
    for fname in sorted(os.listdir(REFERENCE)):
        m = re.match(r"(ch\d\d|ap[a-z])\.%s\.html$" % re.escape(lang), fname)
        if not m:
            continue
        p = TextParser()
        with open(os.path.join(REFERENCE, fname), encoding="utf-8", errors="replace") as f:
            p.feed(f.read())
        text = p.text()
        # Sections start with a heading line "N.M. Title".
        pieces = re.split(r"\n(?=\d+\.\d+\. \S)", text)
        for i, piece in enumerate(pieces):
            n += write(out_dir, "debian-reference-" + lang, f"{m.group(1)}-{i:02d}.txt", piece.strip() + "\n")
    return n


def fortunes(out_dir):
    n = 0
    for book, limit in (("tang300", None), ("song100", None), ("chinese", 400)):
        path = os.path.join(FORTUNES, book)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            raw = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", f.read())  # terminal colour codes
            entries = [e.strip() for e in raw.split("\n%\n") if e.strip()]
        for i, entry in enumerate(entries[:limit]):
            n += write(out_dir, "fortunes-zh", f"{book}-{i:04d}.txt", entry + "\n")
    return n


def kjv(out_dir):
    try:
        subprocess.run(["bible", "-f", "John 1:1"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return 0
    n = 0
    for bi, book in enumerate(KJV_BOOKS):
        for chapter in range(1, 151):
            r = subprocess.run(["bible", "-f", f"{book} {chapter}:1-200"], capture_output=True,
                               text=True, errors="replace")
            if r.returncode != 0 or not re.match(r"^\S+%d:1 " % chapter, r.stdout):
                break
            body = re.sub(r"(?m)^\S*\d+:\d+ ", "", r.stdout)
            text = f"{book} {chapter}\n\n" + " ".join(body.split()) + "\n"
            n += write(out_dir, "bible-kjv", f"{bi:02d}-{book}-{chapter:03d}.txt", text)
    return n


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 1
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    counts = {
        "debian-reference-en": debian_reference(out_dir, "en"),
        "debian-reference-zh-cn": debian_reference(out_dir, "zh-cn"),
        "fortunes-zh": fortunes(out_dir),
        "bible-kjv": kjv(out_dir),
    }
    for name, count in counts.items():
        print(f"{name}: {count} documents" if count else f"{name}: not installed, skipped", file=sys.stderr)
    return 0 if sum(counts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
