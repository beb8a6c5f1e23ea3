#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Importing office documents against plain text, as a whole process.

usage: formats.py [--texts ../shared/corpora/en-news-bbc] [--n 1000]
                  [--work /tmp/simhound-formats] [--cli build/app/simhound-cli]

The same N real texts are written three ways: as .txt, and half as .docx and
half as .pdf (one paragraph per <w:p>; one text object per line on Letter
pages with the base-14 Helvetica, as a minimal writer does; both made here,
so the run needs no office suite). When LibreOffice is installed (`soffice`,
Debian's libreoffice-writer-nogui) the same halves are also written by it, as
students' files are, into a third folder. Each folder is imported into a
fresh store with `simhound-cli corpus add` (median of 3 runs) and the ratio
of the office folders' time to the text folder's is printed: the issue asks
for at most 2.
Prints Markdown; every figure is from this one run.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from xml.sax.saxutils import escape

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def write_docx(path, paragraphs):
    body = "".join('<w:p><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>' % escape(p) for p in paragraphs)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                   '<Default Extension="xml" ContentType="application/xml"/>'
                   '<Override PartName="/word/document.xml" ContentType="application/'
                   'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
        z.writestr("word/document.xml",
                   '<?xml version="1.0" encoding="UTF-8"?><w:document %s><w:body>%s</w:body></w:document>' % (W, body))


def pdf_string(text):
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def write_pdf(path, paragraphs, width=80, per_page=60):
    lines = []
    for p in paragraphs:
        words, line = p.split(), ""
        for w in words:
            if len(line) + len(w) + 1 > width:
                lines.append(line)
                line = w
            else:
                line = (line + " " + w).strip()
        lines.append(line)
        lines.append("")
    pages = [lines[i:i + per_page] for i in range(0, len(lines), per_page)] or [[""]]
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", None,
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    kids = []
    for page in pages:
        stream = "BT /F1 10 Tf 12 TL 56 740 Td " + " ".join(
            pdf_string(l.encode("latin-1", "replace").decode("latin-1")) + " Tj T*" for l in page) + " ET"
        objects.append("<< /Length %d >>\nstream\n%s\nendstream" % (len(stream.encode("latin-1")), stream))
        content = len(objects)
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                       "/Resources << /Font << /F1 3 0 R >> >> >>" % content)
        kids.append(len(objects))
    objects[1] = "<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join("%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objects, 1):
        offsets.append(len(out))
        out += ("%d 0 obj\n%s\nendobj\n" % (i, o)).encode("latin-1", "replace")
    xref = len(out)
    out += ("xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)).encode()
    for off in offsets:
        out += ("%010d 00000 n \n" % off).encode()
    out += ("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)).encode()
    with open(path, "wb") as f:
        f.write(out)


def timed_add(cli, store, folder, runs=3):
    times, last = [], ""
    for _ in range(runs):
        for suffix in ("", "-wal", "-shm", ".index"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        start = time.monotonic()
        r = subprocess.run([cli, "--store", store, "corpus", "add", folder], capture_output=True, text=True)
        times.append(time.monotonic() - start)
        if r.returncode != 0:
            sys.exit("corpus add failed: " + r.stderr)
        last = r.stdout.strip()
    return statistics.median(times), last


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", default=os.path.join(top, "..", "shared", "corpora", "en-news-bbc"))
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--work", default="/tmp/simhound-formats")
    ap.add_argument("--cli", default=os.path.join(top, "build", "app", "simhound-cli"))
    args = ap.parse_args()
    names = sorted(f for f in os.listdir(args.texts) if f.endswith(".txt"))[:args.n]
    shutil.rmtree(args.work, ignore_errors=True)
    txt, office = os.path.join(args.work, "txt"), os.path.join(args.work, "office")
    os.makedirs(txt)
    os.makedirs(office)
    total = 0
    for i, name in enumerate(names):
        with open(os.path.join(args.texts, name), encoding="utf-8") as f:
            text = f.read()
        total += len(text.encode())
        paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
        shutil.copy(os.path.join(args.texts, name), os.path.join(txt, name))
        stem = os.path.splitext(name)[0]
        if i % 2 == 0:
            write_docx(os.path.join(office, stem + ".docx"), paragraphs)
        else:
            write_pdf(os.path.join(office, stem + ".pdf"), paragraphs)
    suite = os.path.join(args.work, "libreoffice")
    if shutil.which("soffice"):
        os.makedirs(suite)
        for i, kind in enumerate(("docx", "pdf")):
            batch = [os.path.join(txt, n) for n in names[i::2]]
            for at in range(0, len(batch), 200):
                subprocess.run(["soffice", "--headless", "--convert-to", kind, "--outdir", suite] + batch[at:at + 200],
                               capture_output=True, check=True)
    t_txt, out_txt = timed_add(args.cli, os.path.join(args.work, "txt.db"), txt)
    t_off, out_off = timed_add(args.cli, os.path.join(args.work, "office.db"), office)
    print("| `corpus add` of %d documents (%.1f MB of text), median of 3 | seconds | ratio |" % (len(names), total / 1e6))
    print("|---|---:|---:|")
    print("| plain text | %.2f | 1.00 |" % t_txt)
    print("| half DOCX, half PDF (minimal writers) | %.2f | %.2f |" % (t_off, t_off / t_txt))
    if os.path.isdir(suite):
        t_lo, out_lo = timed_add(args.cli, os.path.join(args.work, "libreoffice.db"), suite)
        print("| half DOCX, half PDF (LibreOffice) | %.2f | %.2f |" % (t_lo, t_lo / t_txt))
    print()
    print("txt: " + out_txt)
    print("office: " + out_off)
    if os.path.isdir(suite):
        print("libreoffice: " + out_lo)


if __name__ == "__main__":
    main()
