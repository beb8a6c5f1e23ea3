#!/usr/bin/env python3
"""End-to-end tests of simhound-cli: real files in a temp dir, a real store,
the JSON document checked against the schema in the README.

usage: test_cli.py PATH/TO/simhound-cli
"""
import json
import os
import shutil
import subprocess
import time
import sys
import tempfile
import unittest

CLI = None

EN = ("The lighthouse keeper climbed the spiral stairs every evening before sunset. "
      "He trimmed the wick, polished the great lens and wrote the weather into a leather book. "
      "Ships passing the northern reef relied on his lamp to find the safe channel.")
ZH = ("老城区的石板路在雨后显得格外明亮。街角那家茶馆已经开了六十多年，每天清晨都有老人带着鸟笼来喝茶。"
      "茶馆的主人说，他最喜欢听客人们讲过去的故事。")


class CliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="simhound-cli-")
        self.store = os.path.join(self.dir, "store.db")
        self.docs = os.path.join(self.dir, "docs")
        os.makedirs(os.path.join(self.docs, "zh"))
        self.write("docs/lighthouse.txt", EN + "\n")
        self.write("docs/zh/teahouse.txt", ZH + "\n")
        self.env = dict(os.environ, SIMHOUND_STORE=self.store, NO_COLOR="1")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return path

    def run_cli(self, *args, stdin=None, env=None):
        return subprocess.run([CLI, *args], input=stdin, capture_output=True,
                              env=env or self.env, timeout=120)

    def add_docs(self):
        r = self.run_cli("corpus", "add", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def test_add_list_remove(self):
        r = self.add_docs()
        self.assertIn(b"Added 2", r.stdout)
        r = self.run_cli("corpus", "add", self.docs)
        self.assertIn(b"unchanged 2", r.stdout)
        r = self.run_cli("corpus", "list")
        self.assertEqual(r.returncode, 0)
        out = r.stdout.decode()
        self.assertIn("lighthouse.txt", out)
        self.assertIn("2 documents", out)
        r = self.run_cli("corpus", "remove", os.path.join(self.docs, "zh", "teahouse.txt"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"Removed 1", r.stdout)
        self.assertIn(b"1 documents", self.run_cli("corpus", "list").stdout)
        r = self.run_cli("corpus", "remove", "/nowhere/x.txt")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"/nowhere/x.txt", r.stderr)

    def test_rescan_removes_deleted_files_and_refuses_a_missing_folder(self):
        self.add_docs()
        os.remove(os.path.join(self.docs, "zh", "teahouse.txt"))
        r = self.run_cli("corpus", "rescan", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"unchanged 1, removed 1", r.stdout)
        self.assertIn(b"1 documents", self.run_cli("corpus", "list").stdout)
        r = self.run_cli("corpus", "rescan", os.path.join(self.dir, "unplugged"))
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"nothing was changed", r.stderr)
        self.assertIn(b"1 documents", self.run_cli("corpus", "list").stdout)

    def test_store_option_before_or_after_command(self):
        other = os.path.join(self.dir, "other.db")
        r = self.run_cli("--store", other, "corpus", "add", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(other))
        r = self.run_cli("corpus", "list", "--store", other)
        self.assertIn(b"2 documents", r.stdout)
        self.assertFalse(os.path.exists(self.store))

    def test_launcher_asks_for_huge_pages_for_heavy_commands_only(self):
        # simhound-cli starts simhound-cli-main beside it with the same
        # arguments (argv[0] too) and stdin, GLIBC_TUNABLES asking for huge
        # pages when the command is heavy, unless the user set them.
        bindir = os.path.join(self.dir, "bin")
        os.makedirs(bindir)
        launcher = os.path.join(bindir, "simhound-cli")
        shutil.copy(CLI, launcher)
        fake = self.write("bin/simhound-cli-main",
                          "#!/bin/sh\nprintf '%s|' \"$0\" \"$@\"; echo \"tunables=$GLIBC_TUNABLES\"; cat\n")
        os.chmod(fake, 0o755)
        small = self.write("small.txt", EN)
        big = self.write("big.txt", EN * 2000)
        env = {k: v for k, v in self.env.items() if k != "GLIBC_TUNABLES"}

        def run(*args, tunables=None):
            e = dict(env, GLIBC_TUNABLES=tunables) if tunables is not None else env
            r = subprocess.run([launcher, *args], input=b"from stdin", capture_output=True, env=e, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout.decode()

        out = run("corpus", "add", self.docs)
        self.assertTrue(out.startswith(fake + "|corpus|add|" + self.docs + "|"), out)
        self.assertIn("tunables=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864", out)
        self.assertTrue(out.endswith("from stdin"), out)
        self.assertIn("hugetlb=1", run("cross", small, small))
        self.assertIn("hugetlb=1", run("check", "--json", big))
        self.assertIn("hugetlb=1", run("--store", self.store, "compare", big, small))
        self.assertIn("tunables=\n", run("check", "--json", small))
        self.assertIn("tunables=\n", run("corpus", "list"))
        # An add to a corpus server holds a batch or two: no huge pages,
        # named on the command line or in the environment.
        self.assertIn("tunables=\n", run("--store", "postgresql://school@db/simhound", "corpus", "add", self.docs))
        self.assertIn("tunables=\n", run("--store=service=simhound", "corpus", "add", self.docs))
        local_store = env["SIMHOUND_STORE"]
        env["SIMHOUND_STORE"] = "host=db dbname=simhound"
        self.assertIn("tunables=\n", run("corpus", "add", self.docs))
        # A check through a server decodes thousands of rows: huge pages,
        # however short the article.
        self.assertIn("hugetlb=1", run("check", "--json", small))
        env["SIMHOUND_STORE"] = local_store
        self.assertIn("hugetlb=1", run("--store", "postgresql://school@db/simhound", "check", small))
        # The user's own tunables are kept, and theirs for huge pages win.
        self.assertIn("tunables=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1",
                      run("corpus", "add", self.docs, tunables="glibc.malloc.arena_max=2"))
        self.assertIn("tunables=glibc.malloc.hugetlb=0\n",
                      run("corpus", "add", self.docs, tunables="glibc.malloc.hugetlb=0"))
        # Without the real program: a clear error that names it.
        missing = os.path.join(self.dir, "nowhere", "simhound-cli-main")
        r = subprocess.run([launcher, "corpus", "list"], capture_output=True,
                           env=dict(env, SIMHOUND_CLI_MAIN=missing), timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn(("simhound-cli: cannot run " + missing).encode(), r.stderr)

    def test_check_against_a_large_store_restarts_with_the_same_report(self):
        # A check of 64 KB or more against a store of 16 MB or more starts
        # once more with huge pages for malloc (unless the user set
        # glibc.malloc.hugetlb): the same arguments, the same report. The
        # index file made sparse and 16 MB long makes the store that large
        # (and stale: it is built again and rewritten).
        self.add_docs()
        own = "".join("My own line number %d says something of its own about the harbour.\n" % i
                      for i in range(1000))
        path = self.write("essay.txt", "我自己写的开头。街角那家茶館已經開了六十多年，每天清晨都有老人帶著鳥籠來喝茶。\n"
                          "Ships passing the northern reef relied on his lamp to find the safe channel.\n" + own)
        self.assertGreater(os.path.getsize(path), 64 << 10)
        env = dict(self.env, GLIBC_TUNABLES="glibc.malloc.hugetlb=0")
        first = self.run_cli("check", "--json", path, env=env)
        self.assertEqual(first.returncode, 0, first.stderr)
        os.truncate(self.store + ".index", 16 << 20)
        again = self.run_cli("check", "--json", path)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertLess(os.path.getsize(self.store + ".index"), 16 << 20)
        self.assertEqual(json.loads(again.stdout), json.loads(first.stdout))

    def test_check_json_schema_and_offsets(self):
        self.add_docs()
        own = "我自己写的开头，和别人没有关系。"
        essay = own + "街角那家茶館已經開了六十多年，每天清晨都有老人帶著鳥籠來喝茶。\n" + \
            "Ships passing the northern reef relied on his lamp to find the safe channel."
        path = self.write("essay.txt", essay)
        r = self.run_cli("check", "--json", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        for key in ("settings", "corpus", "format", "similarity", "segments", "passages", "sources"):
            self.assertIn(key, report)
        self.assertEqual(report["settings"]["mode"], "sentence")
        self.assertEqual(report["format"], "text")
        self.assertEqual(report["settings"]["max_distance"], 0)
        self.assertEqual(report["corpus"]["documents"], 2)
        # The corpus's stored units are its anchors; "segments" are the article's.
        self.assertGreater(report["corpus"]["anchors"], 0)
        self.assertNotIn("segments", report["corpus"])
        segs = report["segments"]
        self.assertEqual(segs[0]["start"], 0)
        self.assertEqual(segs[0]["end"], len(own))
        self.assertEqual(segs[0]["level"], "low")
        flagged = [s for s in segs if s["level"] in ("high", "medium")]
        self.assertEqual(len(flagged), 2)
        for s in flagged:
            m = s["matches"][0]
            for key in ("document", "doc_id", "start", "end", "similarity", "distance"):
                self.assertIn(key, m)
            # Source offsets point into the stored text (the file as added).
            with open(m["document"], encoding="utf-8") as f:
                src = f.read()
            self.assertLess(m["start"], m["end"])
            self.assertLessEqual(m["end"], len(src))
        en = flagged[1]
        self.assertEqual(essay[en["start"]:en["end"]],
                         "Ships passing the northern reef relied on his lamp to find the safe channel.")
        m = en["matches"][0]
        with open(m["document"], encoding="utf-8") as f:
            self.assertEqual(f.read()[m["start"]:m["end"]], essay[en["start"]:en["end"]])
        self.assertGreater(report["similarity"], 0.5)
        self.assertLess(report["similarity"], 1.0)

    def test_check_many_files_json_lines_and_output_dir(self):
        self.add_docs()
        a = self.write("in/a.txt", "My own opening line here. " + EN)
        b = self.write("in/b.md", ZH + "\n")
        c = self.write("in/c.txt", "Nothing copied at all in this little note of mine.")
        missing = os.path.join(self.dir, "in", "missing.txt")
        r = self.run_cli("check", "--json", a, "-", b, missing, c, stdin=EN.encode())
        # One JSON object per line, in the order given; the unreadable file is
        # reported and the rest are still checked, exit 2.
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"missing.txt", r.stderr)
        lines = r.stdout.decode().splitlines()
        self.assertEqual(len(lines), 4)
        reports = [json.loads(line) for line in lines]
        self.assertEqual([x["file"] for x in reports], [a, "-", b, c])
        self.assertGreater(reports[0]["similarity"], 0.5)
        self.assertEqual(reports[1]["characters"], len(EN))
        self.assertEqual(reports[1]["similarity"], 1.0)
        self.assertGreater(reports[2]["similarity"], 0.9)
        self.assertEqual(reports[3]["similarity"], 0.0)
        for x in reports:
            self.assertIn("passages", x)
            for seg in x["segments"]:
                self.assertIn(seg["level_from"], ("segment", "passage"))

        out = os.path.join(self.dir, "results")
        r = self.run_cli("check", "--output-dir", out, a, b, c)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["a.json", "b.json", "c.json"])
        with open(os.path.join(out, "b.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["file"], b)
        r = self.run_cli("check", "--html", os.path.join(self.dir, "x.html"), a, b)
        self.assertEqual(r.returncode, 1)
        r = self.run_cli("check", "-", "-", stdin=b"x")
        self.assertEqual(r.returncode, 1)

    def test_output_dir_keeps_a_report_for_each_input_of_the_same_name(self):
        self.add_docs()
        a = self.write("a/essay.txt", EN)
        b = self.write("b/essay.txt", "Nothing copied at all in this little note of mine.")
        out = os.path.join(self.dir, "results")
        r = self.run_cli("check", "--output-dir", out, a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["essay-2.json", "essay.json"])
        files = {}
        for name in os.listdir(out):
            with open(os.path.join(out, name), encoding="utf-8") as f:
                files[json.load(f)["file"]] = name
        self.assertEqual(files, {a: "essay.json", b: "essay-2.json"})

    def test_devices_pipes_and_stdin_are_read_within_the_limit(self):
        self.add_docs()
        limit = None
        if "ASAN_OPTIONS" not in os.environ:
            import resource
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        r = subprocess.run([CLI, "check", "/dev/zero"], capture_output=True, env=self.env, timeout=60,
                           preexec_fn=limit)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"/dev/zero is too large", r.stderr)
        self.assertIn(b"50 MB", r.stderr)
        big = (EN + "\n").encode() * ((51 << 20) // len(EN))
        r = self.run_cli("check", "-", stdin=big)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"standard input is too large", r.stderr)
        # Under the file limit, over the text limit: refused by the text's size.
        r = self.run_cli("check", "-", stdin=big[:13 << 20])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"MB of text", r.stderr)

    def test_a_folder_import_goes_on_past_files_over_the_limits(self):
        import zipfile
        w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
        with zipfile.ZipFile(os.path.join(self.docs, "entities.docx"), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("word/document.xml", '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "%s">]><w:document %s>'
                       '<w:body><w:p><w:r><w:t>%s</w:t></w:r></w:p></w:body></w:document>'
                       % ("copied text " * 4000, w, "&a;" * 50000))
        with zipfile.ZipFile(os.path.join(self.docs, "long.docx"), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("word/document.xml", "<w:document %s><w:body>%s</w:body></w:document>" %
                       (w, "<w:p><w:r><w:t>The same copied sentence again and again.</w:t></w:r></w:p>" * 400000))
        limit = None
        if "ASAN_OPTIONS" not in os.environ:
            import resource
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        r = subprocess.run([CLI, "corpus", "add", self.docs], capture_output=True, env=self.env, timeout=120,
                           preexec_fn=limit)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"Added 2,", r.stdout)
        self.assertIn(b"entities.docx is not read: its XML declares a document type", r.stderr)
        self.assertIn(b"long.docx holds too much text", r.stderr)

    def test_nul_bytes_are_called_nul_bytes(self):
        self.add_docs()
        essay = self.write("essay.txt", EN.replace(". ", ".\0 ", 2).encode())
        r = self.run_cli("check", essay)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"2 NUL bytes were replaced", r.stderr)
        self.assertNotIn(b"invalid UTF-8", r.stderr)

    def test_hidden_text_in_a_docx_is_left_out_and_reported(self):
        import zipfile
        self.add_docs()
        words = EN.split(" ")
        runs = "".join(f'<w:r><w:t xml:space="preserve">{w} </w:t></w:r>'
                       f'<w:r><w:rPr><w:vanish/></w:rPr><w:t xml:space="preserve">junk{i} </w:t></w:r>'
                       for i, w in enumerate(words))
        path = os.path.join(self.dir, "hidden.docx")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("word/document.xml",
                       '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                       f"<w:body><w:p>{runs}</w:p></w:body></w:document>")
        r = self.run_cli("check", "--json", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report["similarity"], 1.0)
        hidden = [x for x in report["suspicious"] if x["kind"] == "hidden-text"]
        self.assertEqual(len(hidden), 1)
        self.assertEqual(hidden[0]["count"], sum(len(f"junk{i}") for i in range(len(words))))
        r = self.run_cli("check", path)
        self.assertIn(b"characters of hidden text in the file", r.stdout)

    def test_file_names_reach_no_terminal_raw(self):
        evil = self.write("docs/evil\x1b]0;pwned\x07.bin", b"\x00\x01\x02\x03" * 100)
        r = self.run_cli("corpus", "add", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(b"\x1b", r.stderr)
        self.assertIn(b"evil\\x1b]0;pwned\\x07.bin", r.stderr)
        essay = self.write("in/essay\x1b[2J.txt", EN)
        missing = os.path.join(self.dir, "in", "gone\x1b[2J.txt")
        r = self.run_cli("check", essay, missing)
        self.assertEqual(r.returncode, 2)
        for stream in (r.stdout, r.stderr):
            self.assertNotIn(b"\x1b", stream)
        self.assertIn(b"== " + essay.replace("\x1b", "\\x1b").encode() + b" ==", r.stdout)
        self.assertIn(b"gone\\x1b[2J.txt", r.stderr)

    def test_cross_walks_folders_as_corpus_add_does(self):
        # A link in the class folder to a file outside it is not read (run as
        # root it once put /etc/shadow in the report); a link inside is.
        cls = os.path.join(self.dir, "class")
        self.write("class/a.txt", EN)
        self.write("class/b.txt", EN)
        secret = self.write("outside/secret.txt", "ZQXJSECRET " + EN)
        os.symlink(secret, os.path.join(cls, "c.txt"))
        os.symlink(os.path.join(cls, "a.txt"), os.path.join(cls, "d.txt"))
        html = os.path.join(self.dir, "class.html")
        r = self.run_cli("cross", "--json", "--html", html, cls)
        # Checked, and exit 2 as for any file left out.
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"c.txt: skipped: a link to a file outside the folder", r.stderr)
        self.assertNotIn(b"ZQXJSECRET", r.stdout)
        with open(html, "rb") as f:
            self.assertNotIn(b"ZQXJSECRET", f.read())
        names = {os.path.basename(d["path"]) for d in json.loads(r.stdout)["documents"]}
        self.assertEqual(names, {"a.txt", "b.txt", "d.txt"})

    def docx(self, name, paragraphs):
        import zipfile
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("[Content_Types].xml", "<Types/>")
            z.writestr("word/document.xml",
                       '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                       f"<w:body>{body}</w:body></w:document>")
        return path

    def test_documents_in_other_formats_are_read_by_content(self):
        # An HTML page named .txt, a DOCX source, and `text` shows what check sees.
        html = self.write("page.txt", "<!DOCTYPE html><html><head><script>var x;</script></head>"
                                      f"<body><nav>Menu</nav><p>{EN}</p></body></html>")
        r = self.run_cli("text", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode(), EN + "\n")
        self.docx("docs/essay.docx", ["Essay", ZH])
        self.add_docs()
        r = self.run_cli("corpus", "list")
        self.assertIn(b"essay.docx", r.stdout)
        article = self.docx("article.docx", ["My own words first, about the mountains I grew up in.", ZH])
        r = self.run_cli("check", "--json", article)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report["format"], "docx")
        text = self.run_cli("text", article).stdout.decode()
        self.assertEqual(report["characters"], len(text))
        flagged = [p for p in report["passages"] if p["level"] == "high"]
        self.assertTrue(flagged)
        self.assertIn(text[flagged[0]["start"]:flagged[0]["end"]].strip()[:10], ZH)
        r = self.run_cli("check", "--json", html)
        self.assertEqual(json.loads(r.stdout)["format"], "html")
        # A damaged one is refused by name; the rest of a folder imports.
        self.write("docs/broken.docx", b"PK\x03\x04 not really a zip")
        r = self.run_cli("corpus", "add", self.docs)
        self.assertIn(b"broken.docx", r.stderr)

    def test_exclusions_and_ratios(self):
        copy = "The lighthouse keeper climbed the spiral stairs every evening to light the great lamp."
        ref = "Smith, J. (2001). A history of lighthouses on the northern coast. Harbour Press, London."
        self.write("docs/source.txt", copy + "\n\n" + ref + "\n")
        self.add_docs()
        essay = self.write("essay.txt", "My own introduction talks about the mountains where I grew up, far from any coast or sea.\n\n"
                                        f"As one historian put it, \u201c{copy}\u201d\n\nReferences\n\n{ref}\n")
        plain = json.loads(self.run_cli("check", "--json", essay).stdout)
        ratios = plain["ratios"]
        self.assertEqual(set(ratios), {"total", "excluding_quotes", "excluding_references",
                                       "excluding_both", "largest_source"})
        self.assertEqual(plain["similarity"], ratios["total"])
        self.assertEqual(plain["excluded"], [])
        self.assertLess(ratios["excluding_both"], ratios["excluding_quotes"])
        r = self.run_cli("check", "--json", "--exclude-quotes", "--exclude-references", essay)
        both = json.loads(r.stdout)
        self.assertEqual(both["similarity"], ratios["excluding_both"])
        self.assertEqual([x["reason"] for x in both["excluded"]], ["quote", "references"])
        text = open(essay, encoding="utf-8").read()
        self.assertTrue(text[both["excluded"][1]["start"]:].startswith("References"))
        r = self.run_cli("check", "--json", "--exclude-source", os.path.join(self.docs, "source.txt"), essay)
        self.assertEqual(json.loads(r.stdout)["similarity"], 0)
        r = self.run_cli("check", "--exclude-source", "/no/such/doc.txt", essay)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"no such document", r.stderr)
        template = self.write("assignment.txt", "Assignment.\n\nMy own introduction talks about the mountains where I grew up, far from any coast or sea.\n")
        r = self.run_cli("check", "--json", "--template", template, essay)
        self.assertIn("template", [x["reason"] for x in json.loads(r.stdout)["excluded"]])
        r = self.run_cli("check", essay)
        self.assertIn(b"without quotes", r.stdout)

    def test_cross_checks_a_class_against_itself(self):
        own = ["My grandmother grew tomatoes behind the house and sold them at the Saturday market.",
               "The river froze early that year, and the children skated from the mill to the bridge.",
               "Our school band practised every Thursday evening, and the drummer was always late."]
        self.docx("class/anna.docx", [own[0], EN])
        self.write("class/ben.txt", own[1] + "\n\n" + EN + "\n")
        self.write("class/cleo.txt", own[2] + "\n")
        self.write("class/.hidden.txt", EN)
        r = self.run_cli("cross", "--json", os.path.join(self.dir, "class"))
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)
        self.assertEqual([os.path.basename(d["path"]) for d in result["documents"]],
                         ["anna.docx", "ben.txt", "cleo.txt"])
        self.assertEqual(result["documents"][0]["format"], "docx")
        self.assertEqual(len(result["pairs"]), 1)
        pair = result["pairs"][0]
        self.assertTrue(pair["a"].endswith("anna.docx") and pair["b"].endswith("ben.txt"))
        self.assertGreater(pair["share_a"], 0.5)
        text_b = open(os.path.join(self.dir, "class/ben.txt"), encoding="utf-8").read()
        p = pair["passages"][0]
        self.assertIn("lighthouse keeper", text_b[p["source_start"]:p["source_end"]])
        # cross starts once more with huge pages for malloc unless the user
        # set glibc.malloc.hugetlb: the same arguments, the same result.
        env = dict(self.env, GLIBC_TUNABLES="glibc.malloc.hugetlb=0")
        again = self.run_cli("cross", "--json", os.path.join(self.dir, "class"), env=env)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(json.loads(again.stdout), result)
        r = self.run_cli("cross", os.path.join(self.dir, "class"))
        self.assertIn(b"1 pair of 3 documents shares passages", r.stdout)
        # The HTML: a matrix of the two documents that share, each cell
        # linking to the pair's passages, shown side by side.
        html = os.path.join(self.dir, "class.html")
        r = self.run_cli("cross", "--html", html, os.path.join(self.dir, "class"))
        self.assertEqual(r.returncode, 0, r.stderr)
        page = open(html, encoding="utf-8").read()
        self.assertIn('class="matrix"', page)
        self.assertEqual(page.count('href="#pair-1"'), 2)
        self.assertIn('id="pair-1"', page)
        self.assertIn("anna.docx", page)
        self.assertNotIn("cleo.txt", page)   # shares nothing: not in the matrix
        self.assertIn("lighthouse keeper", page)
        # With the corpus too: each document's similarity and largest source.
        self.add_docs()
        r = self.run_cli("cross", "--json", "--with-corpus", os.path.join(self.dir, "class"))
        self.assertEqual(r.returncode, 0, r.stderr)
        docs = json.loads(r.stdout)["documents"]
        self.assertGreater(docs[0]["corpus"]["similarity"], 0.5)          # anna copies the lighthouse
        self.assertTrue(docs[0]["corpus"]["sources"][0]["document"].endswith("lighthouse.txt"))
        self.assertEqual(docs[2]["corpus"]["similarity"], 0)              # cleo's own words
        r = self.run_cli("cross", "--with-corpus", "--html", html, os.path.join(self.dir, "class"))
        self.assertIn(b"Against the reference corpus:", r.stdout)
        self.assertIn("Against the reference corpus", open(html, encoding="utf-8").read())
        r = self.run_cli("cross", os.path.join(self.dir, "class/cleo.txt"))
        self.assertEqual(r.returncode, 2)

    def test_compare_two_documents(self):
        own = "My grandmother kept bees in the orchard behind her farmhouse for forty summers. "
        copied = ("The lighthouse keeper climbed the spiral stairs every evening before\n"
                  "sunset. He trimmed the wick, polished the great lens and wrote the weather\n"
                  "into a leather book. Ships passing the northern reef relied on his lamp\n"
                  "to find the safe channel.")
        a = self.write("a.txt", own + copied + "\n\nEvery autumn she sold jars of dark heather honey.\n")
        b = self.write("b.txt", "A Keeper's Life\n\n" + EN + "\n")
        r = self.run_cli("compare", "--json", a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)
        self.assertEqual(result["a"], {"path": a, "characters": len(open(a, encoding="utf-8").read())})
        self.assertEqual(result["b"]["path"], b)
        # The copied paragraph is one passage, whole, whatever its line breaks.
        self.assertEqual(len(result["passages"]), 1)
        p = result["passages"][0]
        self.assertEqual(p["start"], len(own))
        self.assertEqual(p["end"], len(own) + len(copied))
        btext = open(b, encoding="utf-8").read()
        self.assertEqual(btext[p["source_start"]:p["source_end"]], EN)
        self.assertEqual(p["level"], "high")
        self.assertGreater(p["similarity"], 0.9)
        self.assertGreater(result["similarity"], 0.5)
        r = self.run_cli("compare", a, b)
        self.assertEqual(r.returncode, 0)
        self.assertIn(b"1 passage of A found in", r.stdout)
        pdf = os.path.join(self.dir, "compare.pdf")
        r = self.run_cli("compare", "--pdf", pdf, a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(pdf, "rb") as f:
            self.assertEqual(f.read(5), b"%PDF-")
        r = self.run_cli("compare", a)
        self.assertEqual(r.returncode, 1)
        r = self.run_cli("compare", a, os.path.join(self.dir, "nope.txt"))
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"nope.txt", r.stderr)

    def test_compare_levels_a_passage_by_its_similarity_alone(self):
        # A passage is high from 0.7 and medium from 0.4 of its words found in
        # the source, in compare as everywhere: two sentence pairs in order
        # with a fifth of their words shared (topical echoes between two web
        # pages of the PAN slice) are no match.
        pan = os.path.join(os.environ.get("SIMHOUND_SHARED_DIR", ""), "eval-pan13-train")
        pairs = [("queries/suspicious-document00111.txt", "reference/source-document01653.txt"),
                 ("queries/suspicious-document00035.txt", "reference/source-document03020.txt"),
                 ("queries/suspicious-document00070.txt", "reference/source-document02500.txt")]
        if os.path.isdir(pan):
            paths = [(os.path.join(pan, q), os.path.join(pan, r)) for q, r in pairs]
        else:
            paths = [(self.write("a.txt", "My own words first. " + EN), os.path.join(self.docs, "lighthouse.txt"))]
        n_passages = 0
        for a, b in paths:
            r = self.run_cli("compare", "--json", a, b)
            self.assertEqual(r.returncode, 0, r.stderr)
            for p in json.loads(r.stdout)["passages"]:
                n_passages += 1
                want = "high" if p["similarity"] >= 0.7 else "medium" if p["similarity"] >= 0.4 else "low"
                self.assertEqual(p["level"], want, (a, b, p))
        if not os.path.isdir(pan):
            self.assertGreater(n_passages, 0)

    SOURCE30 = ("The old lighthouse stood on a rocky island two miles from the coast. Its keeper rowed across "
                "every Saturday to collect food, oil and letters from the village. In the winter of 1881 a storm "
                "kept him on the island for six weeks without supplies. He survived on dried fish, rainwater and "
                "the biscuits that sailors had left behind years earlier. When the weather finally cleared, the "
                "whole village came down to the harbour to welcome him home. The island lighthouse was finally "
                "automated in 1962 and the keeper's cottage now serves as a small museum for visitors.")

    def test_compare_ends_a_passage_where_the_copy_ends(self):
        # The copy's last sentence is followed by the writer's own, which
        # shares "island", "keeper's cottage" and "visitors" with the
        # source's next sentence: the passage ends at the copy.
        src = self.write("src.txt", self.SOURCE30 + "\n")
        copied = self.SOURCE30.rsplit(" The island lighthouse", 1)[0]
        essay = self.write("essay.txt", "My grandmother often told stories about the sea. " + copied +
                           " Last summer my brother and I took a small boat to the island and found the keeper's "
                           "cottage locked, with visitors waiting outside.\n")
        r = self.run_cli("compare", "--json", essay, src)
        self.assertEqual(r.returncode, 0, r.stderr)
        text = open(essay, encoding="utf-8").read()
        passages = json.loads(r.stdout)["passages"]
        self.assertEqual(len(passages), 1)
        self.assertEqual(text[passages[0]["start"]:passages[0]["end"]], copied)

    def test_compare_finds_a_copy_with_one_word_in_ten_replaced_whole(self):
        words = self.SOURCE30.split(" ")
        others = ["lantern", "copper", "meadow", "violin", "quarry", "saddle", "pepper", "canyon"]
        edited = " ".join((others[i % len(others)] + ("." if w.endswith(".") else "")) if i % 10 == 5 else w
                          for i, w in enumerate(words))
        src = self.write("src.txt", self.SOURCE30 + "\n")
        essay = self.write("essay.txt", "My grandmother often told stories about the sea. " + edited +
                           " We never went back there.\n")
        r = self.run_cli("compare", "--json", essay, src)
        self.assertEqual(r.returncode, 0, r.stderr)
        text = open(essay, encoding="utf-8").read()
        passages = json.loads(r.stdout)["passages"]
        self.assertEqual(len(passages), 1)
        self.assertEqual(text[passages[0]["start"]:passages[0]["end"]], edited)
        self.assertEqual(passages[0]["level"], "high")

    def test_compare_keeps_one_sentence_pair_with_the_same_words(self):
        # The check's rule: a single sentence pair stands as a passage when
        # nearly all its words are the same, not when it shares a name.
        a = self.write("a.txt", "We drove north for three hours. A black and white cow in a pen with hay. "
                                "The radio played old songs all the way.\n")
        b = self.write("b.txt", "A child rides a red bicycle down the street.\n"
                                "a black and white cow in hay.\n"
                                "Two dogs run across a snowy field.\n")
        c = self.write("c.txt", "The radio station in Tracy played a song about cows and hay bales.\n")
        r = self.run_cli("compare", "--json", a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        passages = json.loads(r.stdout)["passages"]
        self.assertEqual(len(passages), 1)
        atext = open(a, encoding="utf-8").read()
        self.assertEqual(atext[passages[0]["start"]:passages[0]["end"]].rstrip("."),
                         "A black and white cow in a pen with hay")
        r = self.run_cli("compare", "--json", a, c)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["passages"], [])

    def test_check_stdin_window_mode_and_readable_output(self):
        self.add_docs()
        r = self.run_cli("check", "--json", "--window", "13", "--max-distance", "3", "--precise", "-",
                         stdin=ZH.encode())
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report["settings"]["mode"], "window")
        self.assertEqual(report["settings"]["window"], 13)
        self.assertTrue(all(s["level"] == "high" for s in report["segments"]))
        r = self.run_cli("check", "-", stdin=EN.encode())
        self.assertEqual(r.returncode, 0)
        self.assertIn(b"Similarity 100.0%", r.stdout)
        self.assertIn(b"lighthouse.txt", r.stdout)

    def test_check_writes_html_and_pdf_reports(self):
        self.add_docs()
        html = os.path.join(self.dir, "report.html")
        pdf = os.path.join(self.dir, "report.pdf")
        r = self.run_cli("check", "--html", html, "--pdf", pdf, "-", stdin=("My own line. " + EN).encode())
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        self.assertIn('<mark class="high"', page)
        self.assertIn("lighthouse.txt", page)
        with open(pdf, "rb") as f:
            self.assertEqual(f.read(5), b"%PDF-")
        if shutil.which("pdftotext"):
            text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True).stdout
            self.assertIn("lighthouse.txt", text)
        r = self.run_cli("check", "--pdf", "/nonexistent/dir/r.pdf", "-", stdin=EN.encode())
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"/nonexistent/dir/r.pdf", r.stderr)
        # The paper: the locale's by default, or as asked.
        letter = os.path.join(self.dir, "letter.pdf")
        r = self.run_cli("check", "--pdf", letter, "--paper", "letter", "-", stdin=EN.encode())
        self.assertEqual(r.returncode, 0, r.stderr)
        if shutil.which("pdfinfo"):
            info = subprocess.run(["pdfinfo", letter], capture_output=True, text=True).stdout
            self.assertIn("612 x 792", info)
            a4 = os.path.join(self.dir, "a4.pdf")
            self.assertEqual(self.run_cli("check", "--pdf", a4, "--paper", "A4", "-", stdin=EN.encode()).returncode, 0)
            info = subprocess.run(["pdfinfo", a4], capture_output=True, text=True).stdout
            self.assertIn("595 x 842", info)
        r = self.run_cli("check", "--pdf", letter, "--paper", "legal", "-", stdin=EN.encode())
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"a4 or letter", r.stderr)

    def test_pdf_and_markup_support_is_loaded_only_when_needed(self):
        # PDFs, and documents with markup (HTML, DOCX, ODT, Markdown), are
        # read by modules of their own: a command that meets none does not
        # load poppler, cairo, pango, libxml2 or libarchive, and without a
        # module such a document fails with a message that names the
        # missing part while every other file and report still works.
        self.add_docs()
        pdf = os.path.join(self.dir, "report.pdf")
        r = self.run_cli("check", "--json", "--pdf", pdf, "-", stdin=EN.encode())
        self.assertEqual(r.returncode, 0, r.stderr)
        shutil.copy(pdf, os.path.join(self.docs, "report.pdf"))
        if os.path.exists("/proc/self/maps"):
            # The libraries a run without PDFs has mapped, read from /proc
            # while it waits for its stdin.
            p = subprocess.Popen([CLI, "check", "--json", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=self.env)
            try:
                maps = ""
                for _ in range(200):
                    try:
                        with open(f"/proc/{p.pid}/maps") as f:
                            maps = f.read()
                    except FileNotFoundError:
                        break
                    if "libsqlite3" in maps:
                        break
                    time.sleep(0.01)
                self.assertIn("libsqlite3", maps)
                for lib in ("libpoppler", "libcairo", "libpango", "libsimhound-pdf", "libxml2", "libarchive",
                            "libsimhound-markup"):
                    self.assertNotIn(lib, maps)
            finally:
                p.communicate(EN.encode(), timeout=60)
        empty = os.path.join(self.dir, "no-modules")
        os.makedirs(empty)
        env = dict(self.env, SIMHOUND_MODULEDIR=empty)
        r = self.run_cli("check", "--pdf", os.path.join(self.dir, "r2.pdf"), "-", stdin=EN.encode(), env=env)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"A part of Simhound is missing or damaged", r.stderr)
        self.assertIn(b"libsimhound-pdf", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "r2.pdf")))
        r = self.run_cli("check", "--html", os.path.join(self.dir, "r.html"), "-", stdin=EN.encode(), env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.write("docs/page.html", "<html><body><p>" + EN + "</p></body></html>")
        r = self.run_cli("corpus", "add", self.docs, env=env)
        out = r.stdout + r.stderr
        self.assertIn(b"report.pdf cannot be read", out)
        self.assertIn(b"libsimhound-pdf", out)
        self.assertIn(b"page.html cannot be read", out)
        self.assertIn(b"libsimhound-markup", out)
        # With them, the PDF and the page are read.
        r = self.run_cli("corpus", "add", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        listed = self.run_cli("corpus", "list").stdout
        self.assertIn(b"report.pdf", listed)
        self.assertIn(b"page.html", listed)

    def test_check_errors_and_exit_codes(self):
        r = self.run_cli("check", self.write("a.txt", "hello"))
        self.assertEqual(r.returncode, 2)  # no store yet
        self.assertIn(b"corpus add", r.stderr)
        self.add_docs()
        r = self.run_cli("check", os.path.join(self.dir, "missing.txt"))
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"missing.txt", r.stderr)
        r = self.run_cli("check", self.write("bin.dat", b"\x00\x01\x02binary\x00"))
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"not a text file", r.stderr)
        r = self.run_cli("check", self.write("empty.txt", " \n\n "))
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"empty", r.stderr)
        r = self.run_cli("check", "--window", "2", self.write("b.txt", "hello"))
        self.assertEqual(r.returncode, 1)
        r = self.run_cli("check", "--fast", "--precise", self.write("c.txt", "hello"))
        self.assertEqual(r.returncode, 1)
        r = self.run_cli("frobnicate")
        self.assertEqual(r.returncode, 1)
        # Broken UTF-8 is repaired and reported, never a crash.
        r = self.run_cli("check", "--json", self.write("broken.txt", b"My words \xff\xfe here. " + EN.encode()))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"U+FFFD", r.stderr)
        self.assertGreater(json.loads(r.stdout)["similarity"], 0.8)

    def test_corpus_add_reports_bad_files_and_keeps_going(self):
        self.write("docs/picture.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
        r = self.run_cli("corpus", "add", self.docs, os.path.join(self.dir, "nope"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"Added 2", r.stdout)
        self.assertIn(b"failed 2", r.stdout)
        self.assertIn(b"picture.png is not a text file", r.stderr)

    def test_corpus_add_skips_pipes_and_outside_links_and_fails_when_nothing_is_added(self):
        outside = self.write("private/passwd.txt", "root secret words that must stay private\n")
        os.symlink(outside, os.path.join(self.docs, "link.txt"))
        os.symlink(os.path.join(self.docs, "lighthouse.txt"), os.path.join(self.docs, "zh", "inside.txt"))
        os.mkfifo(os.path.join(self.docs, "pipe"))
        r = self.run_cli("corpus", "add", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        # lighthouse, teahouse and the link that stays inside the folder
        self.assertIn(b"Added 3", r.stdout)
        self.assertIn(b"link.txt: skipped: a link to a file outside the folder", r.stderr)
        self.assertIn(b"pipe: skipped: not a regular file (a named pipe)", r.stderr)
        listing = self.run_cli("corpus", "list").stdout
        self.assertNotIn(b"passwd", listing)
        self.assertNotIn(b"link.txt", listing)
        # Nothing added at all: exit 2.
        r = self.run_cli("corpus", "add", self.write("bad/x.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\x00"))
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"no document could be added", r.stderr)
        os.makedirs(os.path.join(self.dir, "empty"))
        r = self.run_cli("corpus", "add", os.path.join(self.dir, "empty"))
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"no documents found", r.stderr)

    def test_new_store_is_private_and_list_never_creates_one(self):
        store = os.path.join(self.dir, "new", "sub", "store.db")
        r = self.run_cli("--store", store, "corpus", "list")
        self.assertEqual(r.returncode, 2)
        self.assertIn(store.encode(), r.stderr)
        self.assertFalse(os.path.exists(store))
        r = self.run_cli("--store", store, "corpus", "add", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.stat(store).st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(os.path.dirname(store)).st_mode & 0o777, 0o700)

    def test_terminal_output_escapes_control_characters(self):
        name = "docs/evil\x1b]0;pwned\x07name.txt"
        self.write(name, "The lighthouse keeper climbed the spiral stairs every evening before sunset.\x1b[2J\n")
        self.add_docs()
        essay = self.write("essay.txt", "\x1b[2JThe lighthouse keeper climbed the spiral stairs every evening before sunset.")
        for args in (("corpus", "list"), ("check", essay)):
            r = self.run_cli(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn(b"\x1b", r.stdout)
            self.assertNotIn(b"\x07", r.stdout)
        self.assertIn(b"evil\\x1b]0;pwned\\x07name.txt", self.run_cli("corpus", "list").stdout)

    def test_removed_text_is_gone_and_huge_files_are_refused(self):
        self.write("docs/private.txt", "ZQXJ a private essay marker ZQXJ " * 100 + "\n")
        self.add_docs()
        with open(self.store, "rb") as f:
            self.assertIn(b"ZQXJ", f.read())
        r = self.run_cli("corpus", "remove", os.path.join(self.docs, "private.txt"))
        self.assertEqual(r.returncode, 0, r.stderr)
        for suffix in ("", "-wal"):
            if os.path.exists(self.store + suffix):
                with open(self.store + suffix, "rb") as f:
                    self.assertNotIn(b"ZQXJ", f.read(), suffix)
        big = os.path.join(self.dir, "big", "huge.txt")
        os.makedirs(os.path.dirname(big))
        with open(big, "wb") as f:
            f.truncate(51 << 20)   # sparse: refused before it is read
        for args in (("corpus", "add", big), ("check", big)):
            r = self.run_cli(*args)
            self.assertEqual(r.returncode, 2)
            self.assertIn(b"huge.txt is too large", r.stderr)
            self.assertIn(b"50 MB", r.stderr)

    def test_read_only_store_can_be_listed_and_checked(self):
        self.add_docs()
        essay = self.write("essay.txt", EN)
        os.chmod(self.store, 0o444)
        os.chmod(self.dir, 0o555)
        # root may write anyway: run as nobody, who may only read.
        as_reader = (lambda: os.setuid(65534)) if os.geteuid() == 0 else None
        try:
            for args in (("corpus", "list"), ("check", "--json", essay)):
                r = subprocess.run([CLI, *args], capture_output=True, env=self.env, timeout=120,
                                   preexec_fn=as_reader)
                self.assertEqual(r.returncode, 0, r.stderr)
            self.assertGreater(json.loads(r.stdout)["similarity"], 0.9)
        finally:
            os.chmod(self.dir, 0o755)

    def test_store_on_a_read_only_disk_is_checked_and_says_read_only(self):
        if os.geteuid() != 0:
            self.skipTest("mounting a read-only disk needs root (CI runs as root)")
        mnt = os.path.join(self.dir, "mnt")
        os.makedirs(mnt)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "simhound-test", mnt], check=True)
        try:
            store = os.path.join(mnt, "store.db")
            env = dict(self.env, SIMHOUND_STORE=store)
            r = self.run_cli("corpus", "add", self.docs, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
            essay = self.write("essay.txt", EN)
            r = self.run_cli("corpus", "list", env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(b"2 documents", r.stdout)
            r = self.run_cli("check", "--json", essay, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["similarity"], 1.0)
            r = self.run_cli("corpus", "add", essay, env=env)
            self.assertEqual(r.returncode, 2)
            self.assertIn(b"is read-only", r.stderr)
            self.assertNotIn(b"unable to open database file", r.stderr)
        finally:
            subprocess.run(["umount", mnt])

    def test_repeated_text_keeps_memory_and_time_bounded(self):
        sentence = "The committee shall meet on the first Monday of every month at the town hall. "
        self.write("docs/form.txt", sentence * 20000)
        self.add_docs()
        article = self.write("article.txt", sentence * 2000)
        limit = None
        if "ASAN_OPTIONS" not in os.environ:   # AddressSanitizer reserves terabytes of address space
            import resource
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        r = subprocess.run([CLI, "check", "--json", article], capture_output=True, env=self.env,
                           timeout=60, preexec_fn=limit)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report["counts"]["high"], 2000)
        self.assertTrue(all(p["document"].endswith("form.txt") for p in report["passages"]))

    def test_sentences_of_four_sources_cycled_keep_memory_and_time_bounded(self):
        # One sentence of each of four documents, repeated to 2.3 MB: the
        # alignment peeled a group apart a sentence at a time (83 s, 1.09 GB).
        sentences = []
        for k, topic in enumerate(("harbour", "orchard", "glacier", "violin")):
            own = [f"The {topic} report number {i} describes {topic} matters at length in plain words."
                   for i in range(30)]
            self.write(f"docs/{topic}.txt", " ".join(own) + "\n")
            sentences.append(own[7])
        self.add_docs()
        article = self.write("cycled.txt", (" ".join(sentences) + " ") * (2300000 // (len(" ".join(sentences)) + 1)))
        limit = None
        if "ASAN_OPTIONS" not in os.environ:
            import resource
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        r = subprocess.run([CLI, "check", "--json", article], capture_output=True, env=self.env,
                           timeout=60, preexec_fn=limit)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertGreater(report["similarity"], 0.99)
        self.assertEqual({os.path.basename(p["document"]) for p in report["passages"]},
                         {"harbour.txt", "orchard.txt", "glacier.txt", "violin.txt"})

    def test_damaged_store_is_reported_and_rebuilt(self):
        import sqlite3
        self.add_docs()
        essay = self.write("essay.txt", EN)

        def damage(sql):
            db = sqlite3.connect(self.store)
            db.execute(sql)
            db.commit()
            db.close()
            # The index files, which still answer for these documents, go:
            # the index is made from the texts again.
            if "texts" in sql:
                for suffix in (".index", ".index-delta"):
                    if os.path.exists(self.store + suffix):
                        os.unlink(self.store + suffix)

        for sql in ("UPDATE df SET counts = x'0102'",):
            damage(sql)
            for args in (("check", essay), ("corpus", "list")):
                r = self.run_cli(*args)
                self.assertEqual(r.returncode, 2, (sql, args, r.stdout))
                self.assertIn(b"is damaged", r.stderr)
                self.assertIn("simhound-cli corpus rebuild".encode(), r.stderr)
            r = self.run_cli("corpus", "rebuild")
            self.assertEqual(r.returncode, 0, r.stderr)
            r = self.run_cli("check", "--json", essay)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["similarity"], 1.0)
        # A damaged text: rebuild reads it again from its unchanged file.
        damage("UPDATE texts SET body = x'ff00fe' WHERE doc_id = (SELECT min(doc_id) FROM texts)")
        r = self.run_cli("corpus", "rebuild")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"read again from its unchanged file", r.stdout)
        self.assertEqual(self.run_cli("corpus", "verify").returncode, 0)

    def flip_text_byte(self, doc_path):
        """Flips one byte in the middle of a document's stored text."""
        import sqlite3
        db = sqlite3.connect(self.store)
        (doc_id, body), = db.execute("SELECT t.doc_id, t.body FROM texts t JOIN documents d ON d.id = t.doc_id "
                                     "WHERE d.path = ?", (doc_path,))
        body = bytearray(body)
        body[len(body) // 2 + 7] ^= 0x10
        db.execute("UPDATE texts SET body = ? WHERE doc_id = ?", (bytes(body), doc_id))
        db.commit()
        db.close()
        return doc_id

    def test_damaged_database_pages_are_salvaged(self):
        for i in range(30):
            self.write(f"docs/more/n{i:02d}.txt", f"Report {i}: " + EN.replace("lighthouse", f"tower{i}") + "\n")
        self.add_docs()
        essay = self.write("essay.txt", EN)
        # A page in the middle of the file overwritten: SQLite's own damage.
        with open(self.store, "r+b") as f:
            size = os.fstat(f.fileno()).st_size
            page = 4096
            f.seek((size // page // 2) * page)
            f.write(b"\xa5" * page)
        r = self.run_cli("corpus", "verify")
        self.assertEqual(r.returncode, 2, r.stdout)
        r = self.run_cli("corpus", "rebuild")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"the database was damaged and copied anew", r.stdout)
        kept = [n for n in os.listdir(self.dir) if n.startswith("store.db.damaged-")]
        self.assertTrue(kept, os.listdir(self.dir))
        self.assertEqual(self.run_cli("corpus", "verify").returncode, 0)
        # What was lost is added again; nothing is stored twice.
        r = self.run_cli("corpus", "add", self.docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"32 documents", self.run_cli("corpus", "list").stdout)
        r = self.run_cli("check", "--json", essay)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["similarity"], 1.0)

    def test_one_flipped_byte_is_found_and_healed(self):
        long_en = " ".join([EN] * 40)
        self.write("docs/lighthouse.txt", long_en + "\n")
        self.write("docs/other.txt", ZH * 30 + "\n")
        self.add_docs()
        essay = self.write("essay.txt", long_en)
        self.assertEqual(self.run_cli("corpus", "verify").returncode, 0)
        path = os.path.join(self.docs, "lighthouse.txt")
        doc_id = self.flip_text_byte(path)
        # Found by verify and named; a check that reads it says so.
        r = self.run_cli("corpus", "verify")
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn(f"document {doc_id}, {path}".encode(), r.stdout)
        r = self.run_cli("check", essay)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"corpus rebuild", r.stderr)
        # The file is there and unchanged: read again, and all is as before.
        r = self.run_cli("corpus", "rebuild")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"read again from its unchanged file: " + path.encode(), r.stdout)
        self.assertEqual(self.run_cli("corpus", "verify").returncode, 0)
        r = self.run_cli("check", "--json", essay)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["similarity"], 1.0)

        # The file changed since: set aside and named, the rest usable.
        self.flip_text_byte(path)
        for suffix in (".index", ".index-delta"):
            if os.path.exists(self.store + suffix):
                os.unlink(self.store + suffix)
        self.write("docs/lighthouse.txt", "Another text now.\n")
        r = self.run_cli("corpus", "rebuild")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"set aside (add the file again to restore it): " + path.encode(), r.stdout)
        r = self.run_cli("corpus", "list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"2 documents", r.stdout)
        self.assertNotIn(b"lighthouse.txt", r.stdout)
        self.assertEqual(self.run_cli("corpus", "verify").returncode, 0)

        # Removing a damaged document is no dead end either.
        other = os.path.join(self.docs, "other.txt")
        self.flip_text_byte(other)
        r = self.run_cli("corpus", "remove", other)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"1 documents", self.run_cli("corpus", "list").stdout)

    def test_check_reads_only_the_pieces_it_needs(self):
        import sqlite3
        import struct
        words = ("harbour", "lantern", "copper", "meadow", "glacier", "orchard", "violin", "quarry",
                 "saddle", "thunder", "pepper", "canyon", "marble", "falcon", "ribbon", "tunnel",
                 "walnut", "anchor", "blanket", "cinder", "dolphin", "ember", "fiddle", "garnet")
        seed, sentences = 11, []
        while sum(len(x) for x in sentences) < 40000:
            n = []
            for _ in range(12):
                seed = (seed * 1103515245 + 12345) % 2 ** 31
                n.append(words[(seed >> 8) % len(words)])
            sentences.append(" ".join(n).capitalize() + ". ")
        text = "".join(sentences)
        self.write("docs/long.txt", text)
        self.add_docs()
        essay = self.write("essay.txt", "".join(sentences)[:4000].rsplit(". ", 1)[0] + ".")
        db = sqlite3.connect(self.store)
        doc_id, body = db.execute("SELECT doc_id, body FROM texts WHERE doc_id = "
                                  "(SELECT id FROM documents WHERE path LIKE '%long.txt')").fetchone()
        db.close()
        # A text is kept in pieces behind a checksummed table of their sizes.
        self.assertEqual(body[:4], b"SHT\x02")
        n = struct.unpack_from("<I", body, 4)[0]
        self.assertGreaterEqual(n, 5)
        sizes = [struct.unpack_from("<III", body, 24 + 12 * i) for i in range(n)]
        self.assertEqual(sum(t for _, t, _ in sizes), len(text.encode()))
        self.assertEqual(sum(c for _, _, c in sizes), len(text))

        def damaged(piece):
            at = 24 + 12 * n + sum(p for p, _, _ in sizes[:piece])
            out = bytearray(body)
            out[at:at + sizes[piece][0]] = bytes(sizes[piece][0])
            db = sqlite3.connect(self.store)
            db.execute("UPDATE texts SET body = ? WHERE doc_id = ?", (bytes(out), doc_id))
            db.commit()
            db.close()
            return self.run_cli("check", "--json", essay)

        # The last piece is far from what the essay copies: never read.
        r = damaged(n - 1)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertGreater(report["similarity"], 0.9)
        self.assertTrue(report["passages"][0]["document"].endswith("long.txt"))
        # The second is within reach of the alignment, not of the
        # candidates: the check meets it late, and says the store is damaged.
        r = damaged(1)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn(b"is damaged (the text of document", r.stderr)

    def test_a_part_compared_far_from_the_rest_reads_its_own_piece(self):
        # A sentence runs a short copy from the start of a long source into
        # a long copy from its end: the short part is compared where it is,
        # in a piece nothing else reads, and a damage there is met and told.
        import sqlite3
        import struct
        near = "the ferryman carried salt across the brown river every spring"
        far = ("The harbour master counted every fishing boat that came through the narrow channel "
               "before the evening storm closed the old northern gate for the whole long winter")
        filler = "".join(f"Paragraph {i} tells of weather, of rope number {3 * i + 1} and of gulls over roof "
                         f"{7 * i + 2}.\n\n" for i in range(400))
        self.write("docs/source.txt", f"In the old days {near}, as the songs say.\n\n{filler}{far}.\n")
        self.add_docs()
        essay = self.write("essay.txt", f"{far}, and {near}.")
        r = self.run_cli("check", "--json", essay)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        text = open(essay, encoding="utf-8").read()
        part = [s for s in report["segments"] if text[s["start"]:s["end"]].startswith("and the ferryman")]
        self.assertEqual(len(part), 1)
        self.assertEqual(part[0]["level"], "high")
        self.assertLess(part[0]["matches"][0]["start"], 100)
        db = sqlite3.connect(self.store)
        doc_id, body = db.execute("SELECT doc_id, body FROM texts WHERE doc_id = "
                                  "(SELECT id FROM documents WHERE path LIKE '%source.txt')").fetchone()
        n = struct.unpack_from("<I", body, 4)[0]
        self.assertGreaterEqual(n, 3)
        first = struct.unpack_from("<III", body, 24)
        out = bytearray(body)
        out[24 + 12 * n:24 + 12 * n + first[0]] = bytes(first[0])
        db.execute("UPDATE texts SET body = ? WHERE doc_id = ?", (bytes(out), doc_id))
        db.commit()
        db.close()
        r = self.run_cli("check", "--json", essay)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn(b"is damaged (the text of document", r.stderr)

    def test_an_older_store_is_upgraded_and_its_fingerprint_table_dropped(self):
        import sqlite3
        self.add_docs()
        essay = self.write("essay.txt", EN)
        # A store of feature version 6 kept each document's windows in a
        # table of their own; the index files are their only home now.
        db = sqlite3.connect(self.store)
        version = int(db.execute("SELECT value FROM meta WHERE key = 'feature_version'").fetchone()[0])
        db.execute("CREATE TABLE segments (doc_id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        db.execute("INSERT INTO segments SELECT id, randomblob(200000) FROM documents")
        dropped = 200000 * db.execute("SELECT count(*) FROM documents").fetchone()[0]
        # Its texts were kept as they are, not compressed: still read.
        for doc_id, path in db.execute("SELECT id, path FROM documents").fetchall():
            with open(path, encoding="utf-8") as f:
                db.execute("UPDATE texts SET body = CAST(? AS TEXT) WHERE doc_id = ?", (f.read(), doc_id))
        self.assertEqual(db.execute("SELECT count(*) FROM texts WHERE typeof(body) = 'text'").fetchone()[0], 2)
        db.execute("UPDATE meta SET value = ? WHERE key = 'feature_version'", (str(version - 1),))
        db.commit()
        db.close()
        size = os.path.getsize(self.store)
        r = self.run_cli("check", "--json", essay)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["similarity"], 1.0)
        db = sqlite3.connect(self.store)
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        now = db.execute("SELECT value FROM meta WHERE key = 'feature_version'").fetchone()[0]
        db.close()
        self.assertNotIn("segments", tables)
        self.assertEqual(now, str(version))
        # The passage's source text, read from the uncompressed row.
        report = json.loads(r.stdout)
        self.assertTrue(report["passages"][0]["document"].endswith("lighthouse.txt"))
        self.assertLess(os.path.getsize(self.store), size - dropped * 0.9)

    def test_file_names_that_are_not_utf8_keep_reports_valid(self):
        name = os.path.join(self.docs.encode(), b"caf\xe9-\x1b.txt")
        with open(name, "wb") as f:
            f.write(EN.encode() + b"\n")
        self.add_docs()
        essay = self.write("essay.txt", "Ships passing the northern reef relied on his lamp to find the safe channel.")
        html = os.path.join(self.dir, "r.html")
        pdf = os.path.join(self.dir, "r.pdf")
        r = self.run_cli("check", "--json", "--html", html, "--pdf", pdf, essay)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout.decode("utf-8"))   # strict: the JSON is valid UTF-8
        docs = {s["document"] for s in report["sources"]}
        self.assertTrue(any("caf\ufffd-\x1b.txt" in d for d in docs), docs)
        with open(html, "rb") as f:
            f.read().decode("utf-8")
        if shutil.which("pdftotext"):
            text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True).stdout.decode("utf-8")
            self.assertIn("caf\ufffd", text)
        r = self.run_cli("corpus", "list")
        self.assertEqual(r.returncode, 0)
        r.stdout.decode("utf-8")
        self.assertNotIn(b"\x1b", r.stdout)

    def test_signal_during_a_long_check_and_report_ends_it_within_a_second(self):
        import signal
        import time
        self.add_docs()
        article = self.write("long.txt", "".join(
            "Paragraph %d of my essay is about the harvest festival. %s\n\n" % (i, EN) for i in range(5000)))
        pdf = os.path.join(self.dir, "long.pdf")
        for sig in (signal.SIGINT, signal.SIGTERM):
            p = subprocess.Popen([CLI, "check", "--pdf", pdf, article], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, env=self.env)
            time.sleep(1.5)
            self.assertIsNone(p.poll(), "the check finished before the signal: make the article longer")
            sent = time.monotonic()
            p.send_signal(sig)
            p.wait(timeout=30)
            self.assertLess(time.monotonic() - sent, 1.0)
            self.assertEqual(p.returncode, 3)
            self.assertIn(b"interrupted", p.stderr.read())
            p.stderr.close()
            self.assertFalse(os.path.exists(pdf))
            self.assertFalse(os.path.exists(pdf + ".part"))

    def test_two_writers_at_once_leave_the_store_as_a_fresh_build(self):
        import sqlite3

        def make(folder, n):
            for i in range(n):
                words = " ".join("w%dx%d" % (i, k) for k in range(40))
                self.write("%s/doc%03d.txt" % (folder, i),
                           "Document %d of %s. %s. %s\n" % (i, folder, words, EN))
        make("one", 150)
        make("two", 150)
        one, two = os.path.join(self.dir, "one"), os.path.join(self.dir, "two")

        def state(store):
            db = sqlite3.connect(store)
            paths = sorted(r[0] for r in db.execute("SELECT path FROM documents"))
            df = db.execute("SELECT n_docs, counts FROM df").fetchone()
            db.close()
            return paths, df

        # The same folder twice and another one, all at once; then a removal
        # racing a re-import of changed files.
        procs = [subprocess.Popen([CLI, "corpus", "add", folder], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=self.env) for folder in (one, one, two)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
        for i in range(0, 150, 3):
            self.write("two/doc%03d.txt" % i, "Changed %d. %s\n" % (i, ZH))
        procs = [subprocess.Popen([CLI, "corpus", "add", two], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=self.env),
                 subprocess.Popen([CLI, "corpus", "remove", one], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=self.env)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)

        fresh = os.path.join(self.dir, "fresh.db")
        r = self.run_cli("--store", fresh, "corpus", "add", two)
        self.assertEqual(r.returncode, 0, r.stderr)
        got, expected = state(self.store), state(fresh)
        self.assertEqual(len(got[0]), 150)
        self.assertEqual(got[0], expected[0])
        self.assertEqual(got[1][0], expected[1][0])
        self.assertEqual(got[1][1], expected[1][1])   # the document frequencies, bucket by bucket

    def test_cross_leaves_out_the_assignment_given_as_template(self):
        # Issue 31, fault 3: two essays that both repeat the assignment are
        # a pair without --template and none with it.
        prompt = ("Assignment: describe a place that changed the way you see your town, and explain "
                  "in about three hundred words why it matters to you and to the people who live there.")
        a = self.write("class/anna.txt", prompt + "\n\nMy grandmother grew tomatoes behind the house "
                       "and sold them at the market every Saturday morning.\n")
        self.write("class/ben.txt", prompt + "\n\nThe river froze early that year, and the children "
                   "skated all the way to the old mill and back.\n")
        template = self.write("assignment.txt", prompt + "\n")
        plain = json.loads(self.run_cli("cross", "--json", os.path.join(self.dir, "class")).stdout)
        self.assertEqual(len(plain["pairs"]), 1)
        out = self.run_cli("cross", "--json", "--template", template, os.path.join(self.dir, "class"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["pairs"], [])

    def test_compare_leaves_out_the_assignment_given_as_template(self):
        prompt = ("Assignment: describe a place that changed the way you see your town, and explain "
                  "in about three hundred words why it matters to you and to the people who live there.")
        a = self.write("a.txt", prompt + "\n\nMy grandmother grew tomatoes behind the house. " + EN + "\n")
        b = self.write("b.txt", prompt + "\n\nThe river froze early that year. " + EN + "\n")
        template = self.write("assignment.txt", prompt + "\n")
        plain = json.loads(self.run_cli("compare", "--json", a, b).stdout)
        out = self.run_cli("compare", "--json", "--template", template, a, b)
        self.assertEqual(out.returncode, 0, out.stderr)
        kept = json.loads(out.stdout)
        text = open(a, encoding="utf-8").read()
        prompt_end = len(prompt)
        self.assertTrue(any(p["start"] < prompt_end for p in plain["passages"]))
        self.assertFalse(any(p["end"] <= prompt_end + 1 for p in kept["passages"]))
        self.assertTrue(any(EN[:40] in text[p["start"]:p["end"]] for p in kept["passages"]))
        self.assertLess(kept["similarity"], plain["similarity"] - 0.2)

    def test_chinese_pdf_is_set_in_simplified_chinese_faces_only(self):
        # Issue 31, fault 14: a Chinese report, in the Chinese interface,
        # set some glyphs in the Japanese variant of Noto CJK.
        self.add_docs()
        article = self.write("essay.txt", "我们去了老城。" + ZH + "我很喜欢。\n")
        pdf = os.path.join(self.dir, "essay.pdf")
        env = dict(self.env, LANGUAGE="zh_CN", LANG="zh_CN.UTF-8", LC_ALL="zh_CN.UTF-8")
        out = self.run_cli("check", "--pdf", pdf, article, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("相似度", out.stdout.decode())  # the interface is Chinese
        fonts = subprocess.run(["pdffonts", pdf], capture_output=True, text=True).stdout
        self.assertIn("CJKsc", fonts)
        self.assertNotIn("CJKjp", fonts)

    def test_screenshots_refuse_to_take_chinese_shots_in_english(self):
        # Issue 31, fault 14: without the zh_CN locale the script said
        # nothing and took English shots under the Chinese names.
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui", "screenshots.sh")
        fake = os.path.join(self.dir, "bin")
        os.makedirs(fake)
        with open(os.path.join(fake, "locale"), "w") as f:
            f.write("#!/bin/sh\necho C\necho C.utf8\necho POSIX\n")
        os.chmod(os.path.join(fake, "locale"), 0o755)
        env = dict(self.env, PATH=fake + os.pathsep + os.environ["PATH"])
        out = subprocess.run(["bash", script, os.path.join(self.dir, "shots")], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 1)
        self.assertIn("zh_CN.UTF-8 locale is missing", out.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "shots", "sources-en.png")))

    def test_corpus_set_fold_traditional(self):
        self.add_docs()
        traditional = "街角那家茶館已經開了六十多年，每天清晨都有老人帶著鳥籠來喝茶。"
        def similarity():
            r = self.run_cli("check", "--json", "-", stdin=traditional.encode())
            self.assertEqual(r.returncode, 0, r.stderr)
            return json.loads(r.stdout)["segments"][0]["similarity"]
        self.assertGreater(similarity(), 0.9)
        r = self.run_cli("corpus", "set", "fold-traditional", "off")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(similarity(), 0.7)  # only the characters both scripts share
        self.assertEqual(self.run_cli("corpus", "set", "fold-traditional", "maybe").returncode, 1)

    def test_store_that_is_not_a_store(self):
        bad = self.write("bad.db", "just some text")
        r = self.run_cli("--store", bad, "corpus", "list")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"not a Simhound store", r.stderr)


if __name__ == "__main__":
    CLI = os.path.abspath(sys.argv.pop(1))
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
