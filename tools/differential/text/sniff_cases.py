#!/usr/bin/env python3
"""Cases for examples/text_diff.rs (mode `mime`): python-magic's
`Magic(mime=True).from_buffer` on generated text-like and binary files and on
real files of this machine. `sniff_cases.py OUT.jsonl COUNT [SEED] [REAL_LIST]`
(REAL_LIST: a file of paths, one a line; each file's first 256 KiB is used)."""
import io, json, os, random, sys, zipfile, gzip, bz2, lzma, tarfile, struct
import magic

out = open(sys.argv[1], "w")
count = int(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 5)
m = magic.Magic(mime=True)


def emit(group, b):
    out.write(json.dumps({"mode": "mime", "group": group, "hex": b.hex(), "mime": m.from_buffer(b)}) + "\n")


WORDS = "alpha beta gamma delta value index token owner report server config error data file user time".split()
def words(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))
def lines(n, f):
    return "".join(f(i) + "\n" for i in range(n))

TEXT = [
    lambda: f"import os\nimport sys\n\ndef {rng.choice(WORDS)}(x):\n    return x + {rng.randint(0,99)}\n",
    lambda: f"def main():\n    print('{words(3)}')\n\nif __name__ == '__main__':\n    main()\n",
    lambda: f"#!/usr/bin/env python3\n# {words(4)}\nprint({rng.randint(0,9)})\n",
    lambda: f"#!/bin/bash\nset -e\necho \"{words(3)}\"\n",
    lambda: f"#!/bin/sh\n{words(2)}\n",
    lambda: f"#!/usr/bin/env node\nconsole.log('{words(2)}');\n",
    lambda: f"#!/usr/bin/perl\nuse strict;\nprint \"{words(2)}\\n\";\n",
    lambda: f"#!/usr/bin/env ruby\nputs '{words(2)}'\n",
    lambda: f"const {rng.choice(WORDS)} = require('fs');\nfunction f() {{ return {rng.randint(0,9)}; }}\nmodule.exports = f;\n",
    lambda: f"export function add(a: number, b: number): number {{\n  return a + b; // {words(2)}\n}}\n",
    lambda: f"public class Main {{\n  public static void main(String[] args) {{\n    System.out.println(\"{words(2)}\");\n  }}\n}}\n",
    lambda: f"#include <stdio.h>\n\nint main(void) {{\n    printf(\"{words(2)}\\n\");\n    return 0;\n}}\n",
    lambda: f"#include <iostream>\nusing namespace std;\nint main() {{ cout << \"{words(1)}\"; }}\n",
    lambda: f"package main\n\nimport \"fmt\"\n\nfunc main() {{\n\tfmt.Println(\"{words(2)}\")\n}}\n",
    lambda: f"fn main() {{\n    println!(\"{words(2)}\");\n}}\n",
    lambda: f"require 'json'\nclass {rng.choice(WORDS).title()}\n  def run; end\nend\n",
    lambda: f"<?php\necho '{words(2)}';\n?>\n",
    lambda: f"SELECT {rng.choice(WORDS)}, name FROM users WHERE id = {rng.randint(0,99)};\n",
    lambda: f"body {{ margin: {rng.randint(0,50)}px; color: #{rng.randint(0,999):03d}; }}\n.{rng.choice(WORDS)} {{ display: none; }}\n",
    lambda: f"<!DOCTYPE html>\n<html><head><title>{words(1)}</title></head><body><p>{words(5)}</p></body></html>\n",
    lambda: f"<html>\n<body>\n{words(5)}\n</body>\n</html>\n",
    lambda: f"<div class=\"x\">{words(4)}</div>\n",
    lambda: f'<?xml version="1.0" encoding="UTF-8"?>\n<root><item id="{rng.randint(0,99)}">{words(2)}</item></root>\n',
    lambda: f'<svg xmlns="http://www.w3.org/2000/svg" width="{rng.randint(1,99)}" height="10"><rect/></svg>\n',
    lambda: f'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>x</loc></url></urlset>\n',
    lambda: json.dumps({w: rng.randint(0, 9) for w in rng.sample(WORDS, 3)}) + "\n",
    lambda: json.dumps([rng.randint(0, 9) for _ in range(5)]),
    lambda: "".join(json.dumps({"i": i, "v": words(2)}) + "\n" for i in range(rng.randint(2, 6))),
    lambda: lines(rng.randint(1, 8), lambda i: f"{rng.choice(WORDS)}: {words(1)}"),
    lambda: f"[{rng.choice(WORDS)}]\n" + lines(3, lambda i: f"{rng.choice(WORDS)} = {rng.randint(0,99)}"),
    lambda: f"[Version]\nSignature=\"$Windows NT$\"\n",
    lambda: f"[Strings]\nx = \"{words(1)}\"\n",
    lambda: f"[InternetShortcut]\nURL=https://example.com/{rng.choice(WORDS)}\n",
    lambda: f"[Desktop Entry]\nName={words(1)}\nExec=x\n",
    lambda: lines(rng.randint(3, 12), lambda i: ",".join(str(rng.randint(0, 99)) for _ in range(3))),
    lambda: lines(rng.randint(2, 6), lambda i: "\t".join(words(1) for _ in range(3))),
    lambda: f"# {words(2)}\n\nSome *{words(1)}* text.\n\n- item\n- item\n",
    lambda: f"Title\n=====\n\n{words(6)}\n",
    lambda: f"\\documentclass{{article}}\n\\begin{{document}}\n{words(4)}\n\\end{{document}}\n",
    lambda: f"--- a/{rng.choice(WORDS)}.txt\n+++ b/{rng.choice(WORDS)}.txt\n@@ -1 +1 @@\n-{words(1)}\n+{words(1)}\n",
    lambda: f"diff --git a/x b/x\nindex 123..456 100644\n--- a/x\n+++ b/x\n",
    lambda: f"all:\n\techo {words(1)}\n\nclean:\n\trm -f x\n",
    lambda: f"FROM python:3.12\nRUN pip install {rng.choice(WORDS)}\nCMD [\"python\"]\n",
    lambda: f"From: {rng.choice(WORDS)}@example.com\nTo: b@example.com\nSubject: {words(2)}\n\n{words(8)}\n",
    lambda: f"Received: from mx by x\nFrom: a@b.c\n\n{words(3)}\n",
    lambda: f"Date: Mon, 1 Jan 2024 00:00:00 +0000\nFrom: a\n\n{words(3)}\n",
    lambda: f"Return-Path: <a@b.c>\nDelivered-To: x\n\n{words(2)}\n",
    lambda: f"MIME-Version: 1.0\nContent-Type: text/plain\n\n{words(3)}\n",
    lambda: f"Path: news!x\nFrom: a\nNewsgroups: comp.x\n\n{words(3)}\n",
    lambda: f"%!PS-Adobe-3.0\n/Helvetica findfont 12 scalefont setfont\n({words(2)}) show\nshowpage\n",
    lambda: f"%!\n/x {rng.randint(0,9)} def\n",
    lambda: "{\\rtf1\\ansi " + words(3) + "}\n",
    lambda: "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
    lambda: "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQENBF\n-----END PGP PUBLIC KEY BLOCK-----\n",
    lambda: "-----BEGIN PGP SIGNATURE-----\n\niQEzBAAB\n-----END PGP SIGNATURE-----\n",
    lambda: "-----BEGIN PGP MESSAGE-----\n\nhQEMA\n-----END PGP MESSAGE-----\n",
    lambda: f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI {rng.choice(WORDS)}@host\n",
    lambda: f"1\n00:00:01,000 --> 00:00:02,000\n{words(3)}\n\n2\n00:00:03,000 --> 00:00:04,000\n{words(2)}\n",
    lambda: f"WEBVTT\n\n00:01.000 --> 00:02.000\n{words(2)}\n",
    lambda: "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nSUMMARY:" + words(2) + "\nEND:VEVENT\nEND:VCALENDAR\n",
    lambda: "BEGIN:VCARD\nVERSION:3.0\nFN:" + words(2) + "\nEND:VCARD\n",
    lambda: f".TH {rng.choice(WORDS).upper()} 1\n.SH NAME\n{words(2)}\n",
    lambda: f"@echo off\necho {words(2)}\n",
    lambda: f"P1\n2 2\n0 1\n1 0\n",
    lambda: f"P3\n1 1\n255\n{rng.randint(0,255)} 0 0\n",
    lambda: f"%PDF-1.4\n1 0 obj\n<< >>\nendobj\ntrailer\n<< >>\n%%EOF\n",
    lambda: lines(rng.randint(1, 40), lambda i: f"2024-01-0{rng.randint(1,9)} 12:00:{i%60:02d} INFO {words(3)}"),
    lambda: f"{words(rng.randint(1, 30))}\n",
    lambda: words(rng.randint(1, 5)),
    lambda: "\n" * rng.randint(1, 4),
    lambda: f"key = \"{words(1)}\"\n[table]\nx = {rng.randint(0,9)}\n",
    lambda: f"<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>{words(1)}</title></channel></rss>\n",
    lambda: f"(defun {rng.choice(WORDS)} (x) (* x 2))\n",
    lambda: f"local {rng.choice(WORDS)} = {rng.randint(0,9)}\nprint(x)\n",
    lambda: f"Write-Host '{words(2)}'\n$x = {rng.randint(0,9)}\n",
]
ENC = ["utf-8"] * 8 + ["utf-8-sig", "utf-16", "utf-16-le", "latin-1", "cp1252", "gbk", "utf-32"]
EXTRA = "café ü 中文 Привет — “q”"


def gen_text():
    t = rng.choice(TEXT)()
    if rng.random() < 0.3:
        t = t.replace(rng.choice(WORDS), rng.choice(EXTRA.split()), 1)
    enc = rng.choice(ENC)
    b = t.encode(enc, errors="replace")
    r = rng.random()
    if r < 0.05:
        b += b"\x00" * rng.randint(1, 3)
    elif r < 0.08:
        i = rng.randrange(len(b) + 1)
        b = b[:i] + bytes([rng.choice([0, 1, 2, 0x1B, 0x7F, 0x0C])]) + b[i:]
    elif r < 0.10:
        b = b.replace(b"\n", b"\r\n")
    return enc, b


def z(entries, first_stored=False):
    bio = io.BytesIO()
    with zipfile.ZipFile(bio, "w") as zf:
        for i, (n, d) in enumerate(entries):
            zf.writestr(zipfile.ZipInfo(n), d, compress_type=zipfile.ZIP_STORED if first_stored and i == 0 else zipfile.ZIP_DEFLATED)
    return bio.getvalue()


def payload(n):
    return bytes(rng.randrange(256) for _ in range(n))


def gen_binary():
    k = rng.randrange(30)
    p = payload(rng.randint(0, 600))
    if k == 0:
        return "zip", z([(f"{w}.txt", words(20).encode()) for w in rng.sample(WORDS, rng.randint(1, 4))])
    if k == 1:
        parts = rng.choice([["word/document.xml"], ["xl/workbook.xml", "xl/styles.xml"], ["ppt/presentation.xml"]])
        names = ["[Content_Types].xml"] + rng.sample(["_rels/.rels", "docProps/app.xml", "docProps/core.xml"], rng.randint(0, 3)) + parts
        return "ooxml", z([(n, ("<x>" + words(30) + "</x>").encode()) for n in names])
    if k == 2:
        kind = rng.choice(["text", "spreadsheet", "presentation", "graphics", "text-template"])
        return "odf", z([("mimetype", f"application/vnd.oasis.opendocument.{kind}".encode()), ("content.xml", b"<x/>" * 50)], True)
    if k == 3:
        return "jar", z([("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\n"), ("a/B.class", payload(rng.randint(10, 900)))])
    if k == 4:
        return "epub", z([("mimetype", b"application/epub+zip"), ("META-INF/container.xml", b"<x/>")], True)
    if k == 5:
        return "gzip", gzip.compress(words(50).encode())
    if k == 6:
        return "bz2", bz2.compress(words(50).encode())
    if k == 7:
        return "xz", lzma.compress(words(50).encode())
    if k == 8:
        bio = io.BytesIO()
        with tarfile.open(fileobj=bio, mode="w", format=rng.choice([tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT])) as tf:
            for w in rng.sample(WORDS, 2):
                d = words(10).encode()
                ti = tarfile.TarInfo(f"docs/{w}.txt"); ti.size = len(d); tf.addfile(ti, io.BytesIO(d))
        return "tar", bio.getvalue()
    if k == 9:
        t = rng.choice([1, 2, 3, 4, 0])
        return "elf", b"\x7fELF" + bytes([rng.choice([1, 2]), 1, 1, 0]) + b"\x00" * 8 + struct.pack("<HH", t, 0x3e) + p
    if k == 10:
        return "png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + p
    if k == 11:
        return "jpeg", b"\xff\xd8\xff" + bytes([rng.choice([0xe0, 0xe1, 0xdb, 0xee])]) + p
    if k == 12:
        return "gif", b"GIF8" + rng.choice([b"9a", b"7a"]) + p
    if k == 13:
        return "pdf", b"%PDF-1." + str(rng.randint(0, 7)).encode() + b"\n%\xe2\xe3\xcf\xd3\n" + p
    if k == 14:
        return "sqlite", b"SQLite format 3\x00" + struct.pack(">H", rng.choice([0, 1024, 4096])) + p
    if k == 15:
        return "wasm", b"\x00asm" + struct.pack("<I", rng.choice([1, 1, 2])) + p
    if k == 16:
        return "riff", b"RIFF" + struct.pack("<I", len(p) + 4) + rng.choice([b"WAVE", b"AVI ", b"WEBP", b"RMID"]) + p
    if k == 17:
        return "ftyp", struct.pack(">I", 24) + b"ftyp" + rng.choice([b"mp42", b"isom", b"M4A ", b"qt  ", b"heic", b"avif", b"3gp4", b"dash", b"mif1", b"XAVC", b"zzzz"]) + b"\x00\x00\x00\x00" + p
    if k == 18:
        return "mz", b"MZ" + p
    if k == 19:
        return "7z", b"7z\xbc\xaf\x27\x1c\x00\x04" + p
    if k == 20:
        return "rar", b"Rar!\x1a\x07" + rng.choice([b"\x00", b"\x01\x00"]) + p
    if k == 21:
        return "mp3", rng.choice([b"\xff\xfb\x90\x44", b"\xff\xf3\x40\xc4", b"\xff\xfa\x00\x00", b"ID3\x03\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x44"]) + p
    if k == 22:
        return "ogg", b"OggS\x00\x02" + b"\x00" * 22 + rng.choice([b"\x01vorbis", b"OpusHead", b"\x80theora", b"\x7fFLAC", b"zzzz"]) + p
    if k == 23:
        return "font", rng.choice([b"\x00\x01\x00\x00\x00\x0e\x00\x80\x00\x03\x00\x60FFTM", b"OTTO\x00\x0a\x00\x80\x00\x03\x00\x20CFF ", b"wOFF\x00\x01\x00\x00", b"wOF2\x00\x01\x00\x00"]) + p
    if k == 24:
        return "class", b"\xca\xfe\xba\xbe\x00\x00\x00" + bytes([rng.choice([0x34, 0x3d, 0x41, 0x02])]) + p
    if k == 25:
        return "zstd", b"\x28\xb5\x2f\xfd" + p
    if k == 26:
        return "mkv", b"\x1a\x45\xdf\xa3\x01\x00\x00\x00\x00\x00\x00\x1f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82" + rng.choice([b"\x84webm", b"\x88matroska"]) + p
    if k == 27:
        return "random", payload(rng.choice([2, 3, 7, 50, 300, 2000]))
    if k == 28:
        return "flac", b"fLaC\x00\x00\x00\x22" + p
    return "bmp", b"BM" + struct.pack("<IHHI", 70, 0, 0, 54) + struct.pack("<I", rng.choice([40, 12, 108, 124, 7])) + p


for _ in range(count):
    if rng.random() < 0.6:
        enc, b = gen_text()
        emit("text/" + enc, b)
    else:
        g, b = gen_binary()
        emit("bin/" + g, b)
if len(sys.argv) > 4:
    for path in open(sys.argv[4]).read().split("\n"):
        if not path:
            continue
        try:
            with open(path, "rb") as f:
                b = f.read(256 * 1024)
        except OSError:
            continue
        if b:
            emit("real/" + (os.path.splitext(path)[1].lower() or "none"), b)
