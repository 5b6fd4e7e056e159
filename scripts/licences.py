#!/usr/bin/env python3
"""Writes THIRD-PARTY-NOTICES.md: what each published artefact contains from whom, under
which licence, and the `license` field of each npm package (an SPDX expression of what it
ships). Python 3 and cargo only; nothing to install.

    python3 scripts/licences.py             # regenerate THIRD-PARTY-NOTICES.md and the license fields
    python3 scripts/licences.py --check     # fail on a licence outside ALLOWED, or when either is stale
    python3 scripts/licences.py --self-test # the checks themselves, on made-up metadata

Where the facts come from:
- the Rust crates of each artefact: `cargo tree` over its root crate, its target and its
  features (normal dependencies, no proc-macros: what is compiled into it), and for each
  crate its licence, authors and repository from `cargo metadata`; the copyright lines
  from the licence files the crate ships;
- code and tables ctxguard derives from other projects: DERIVED below, written from each
  project's own licence file (`pip download --no-deps NAME==VERSION`, Debian's copyright
  file of libmagic1), attached to the crate that holds them;
- npm packages bundled: none (each published package.json must declare no dependencies;
  the check fails when one does, since this script would then have to list them).
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTICES = ROOT / "THIRD-PARTY-NOTICES.md"

# Licences a dependency may carry, in order of preference when it offers a choice.
ALLOWED = [
    "Apache-2.0", "MIT", "BSD-3-Clause", "BSD-2-Clause", "ISC", "Zlib", "Unicode-3.0",
    "Unicode-DFS-2016", "BSL-1.0", "CC0-1.0", "Unlicense", "CDLA-Permissive-2.0",
    "Apache-2.0 WITH LLVM-exception", "0BSD", "bzip2-1.0.6",
]
# Licences allowed only for the code listed in DERIVED (never for a new dependency).
DERIVED_ONLY = ["LGPL-2.1-or-later", "PSF-2.0"]

# The published artefacts: the root crates each is built from (crate, target, features).
ARTEFACTS = [
    {"id": "cli", "title": "the `ctxguard` binary (crate ctxguard-cli, native)",
     "roots": [("ctxguard-cli", None, [])]},
    {"id": "core", "title": "npm `ctxguard-core`: its main module (crate ctxguard-core, wasm32)",
     "roots": [("ctxguard-core", "wasm32-unknown-unknown", [])]},
    {"id": "documents", "title": "npm `ctxguard-core/documents` (crate ctxguard-extract, wasm32, feature wasm)",
     "roots": [("ctxguard-extract", "wasm32-unknown-unknown", ["wasm"])]},
    {"id": "toolbar", "title": "npm `ctxguard-toolbar` (crates ctxguard-web and ctxguard-preview-engine, wasm32)",
     "roots": [("ctxguard-web", "wasm32-unknown-unknown", []),
               ("ctxguard-preview-engine", "wasm32-unknown-unknown", [])]},
]
# Each npm package, its manifest (its `license` field is written here) and what it ships.
NPM_PACKAGES = [
    {"name": "ctxguard-core", "manifest": "core/npm/package.json", "artefacts": ["core", "documents"]},
    {"name": "ctxguard-toolbar", "manifest": "web/js/package.json", "artefacts": ["toolbar"]},
]

# Code and tables ctxguard derives from other projects, by the crate that holds them.
DERIVED = [
    {"crate": "ctxguard-extract", "name": "chardet 5.2.0", "licence": "LGPL-2.1-or-later",
     "url": "https://github.com/chardet/chardet",
     "copyright": "Copyright (C) 1998 Netscape Communications Corporation; Mark Pilgrim, Dan Blanchard, Ian Cordasco and the chardet contributors",
     "what": "`extract/src/chardet/`: the port of `chardet.detect()` and its generated tables (`tables.rs`)",
     "text": "extract/src/chardet/LICENSE"},
    {"crate": "ctxguard-extract", "name": "PyPDF2 3.0.1", "licence": "BSD-3-Clause",
     "url": "https://github.com/py-pdf/pypdf",
     "copyright": "Copyright (c) 2006-2008, Mathieu Fenniak; some contributions copyright (c) 2007, Ashish Kulkarni; (c) 2014, Steve Witham",
     "what": "`extract/src/pdf/`: its text extraction rules and its encoding tables (`tables.rs`, by `tools/generate/gen_pdf_tables.py`)",
     "text": "licences/PyPDF2.txt"},
    {"crate": "ctxguard-extract", "name": "Adobe Glyph List (through PyPDF2's `adobe_glyphs`, extended with GlyphNameFormatter's names)",
     "licence": "BSD-3-Clause", "url": "https://github.com/adobe-type-tools/agl-aglfn",
     "copyright": "Copyright 2002-2019 Adobe; GlyphNameFormatter: LettError (Erik van Blokland) and its contributors (licence not verified here)",
     "what": "`extract/src/pdf/tables.rs`: the glyph-name list",
     "text": "licences/adobe-glyph-list.txt"},
    {"crate": "ctxguard-extract", "name": "openpyxl 3.1.5", "licence": "MIT",
     "url": "https://foss.heptapod.net/openpyxl/openpyxl", "copyright": "Copyright (c) 2010 openpyxl",
     "what": "`extract/src/xlsx/`: its reading rules, number formats and class parameters (`sheet_classes.tsv`)",
     "text": "licences/openpyxl.txt"},
    {"crate": "ctxguard-extract", "name": "python-docx 1.2.0", "licence": "MIT",
     "url": "https://github.com/python-openxml/python-docx", "copyright": "Copyright (c) 2013 Steve Canny",
     "what": "`extract/src/docx/` and `extract/src/ooxml/`: its document and package reading rules",
     "text": "licences/python-docx.txt"},
    {"crate": "ctxguard-extract", "name": "python-pptx 1.0.2", "licence": "MIT",
     "url": "https://github.com/scanny/python-pptx", "copyright": "Copyright (c) 2013 Steve Canny",
     "what": "`extract/src/pptx/`: its presentation reading rules",
     "text": "licences/python-pptx.txt"},
    {"crate": "ctxguard-extract", "name": "file (libmagic) 5.44", "licence": "BSD-2-Clause",
     "url": "https://www.darwinsys.com/file/",
     "copyright": "Copyright (c) Ian F. Darwin 1986-1995; maintained 1995-present by Christos Zoulas and others",
     "what": "`extract/src/sniff/`: its text, tar, JSON and CSV tests and its tables (`tables.rs`, by `tools/generate/gen_magic_tables.py`); file's variant of BSD-2-Clause also asks that the notice stay at the beginning of each file",
     "text": "licences/libmagic.txt"},
    {"crate": "ctxguard-extract", "name": "CPython 3.12", "licence": "PSF-2.0",
     "url": "https://github.com/python/cpython", "copyright": "Copyright (c) 2001-2024 Python Software Foundation",
     "what": "`extract/src/decode/tables.rs` (its codecs' tables, by `tools/generate/gen_codec_tables.py`) and `extract/src/xmind/entities.rs` (`html.entities.html5`)",
     "text": "licences/CPython.txt"},
    {"crate": "ctxguard-extract", "name": "Unicode Character Database (through Python's `unicodedata`)", "licence": "Unicode-3.0",
     "url": "https://www.unicode.org/ucd/", "copyright": "Copyright (c) 1991-2024 Unicode, Inc.",
     "what": "`extract/src/pdf/tables.rs`: the `str.isalpha()` ranges",
     "text": "licences/Unicode-3.0.txt"},
    {"crate": "ctxguard-core", "name": "tiktoken's vocabularies (o200k_base, cl100k_base, p50k_base, r50k_base), through tiktoken-rs 0.12.1",
     "licence": "MIT", "url": "https://github.com/openai/tiktoken",
     "copyright": "Copyright (c) 2022 OpenAI, Shantanu Jain; tiktoken-rs: Roger Zurawicki",
     "what": "tables `core/build.rs` generates from tiktoken-rs (a build dependency) and embeds",
     "text": "licences/tiktoken.txt"},
]


class LicenceError(Exception):
    """A crate whose licence is missing or outside the allow-list."""


def run(*args):
    return subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def spdx_alternatives(expression):
    """The SPDX expression as a list of alternatives, each a sorted tuple of licence ids
    (`A OR B` two alternatives, `A AND B` one holding both; `WITH` keeps its exception)."""
    expression = expression.replace("/", " OR ")
    tokens = re.findall(r"\(|\)|[^\s()]+", expression)
    pos = 0

    def parse_or():
        nonlocal pos
        alts = parse_and()
        while pos < len(tokens) and tokens[pos].upper() == "OR":
            pos += 1
            alts = alts + parse_and()
        return alts

    def parse_and():
        nonlocal pos
        alts = parse_atom()
        while pos < len(tokens) and tokens[pos].upper() == "AND":
            pos += 1
            right = parse_atom()
            alts = [tuple(sorted(set(a) | set(b))) for a in alts for b in right]
        return alts

    def parse_atom():
        nonlocal pos
        if pos >= len(tokens):
            raise LicenceError(f"licence expression {expression!r} ends early")
        token = tokens[pos]
        pos += 1
        if token == "(":
            alts = parse_or()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise LicenceError(f"licence expression {expression!r}: unbalanced parenthesis")
            pos += 1
            return alts
        if pos + 1 < len(tokens) and tokens[pos].upper() == "WITH":
            token = f"{token} WITH {tokens[pos + 1]}"
            pos += 2
        return [(token,)]

    alts = parse_or()
    if pos != len(tokens):
        raise LicenceError(f"licence expression {expression!r}: unexpected {tokens[pos]!r}")
    return alts


def choose(crate, expression, allowed=ALLOWED):
    """The licence ids this crate is used under: the allowed alternative ranked first."""
    if not expression:
        raise LicenceError(f"{crate}: no licence in its Cargo.toml; read its files, then list it in scripts/licences.py")
    usable = [alt for alt in spdx_alternatives(expression) if all(i in allowed for i in alt)]
    if not usable:
        raise LicenceError(
            f"{crate}: licence {expression!r} is not in the allow-list (ALLOWED in scripts/licences.py); "
            "review it before adding it there, or drop the dependency")
    return min(usable, key=lambda alt: (sum(allowed.index(i) for i in alt), alt))


def tree(crate, target, features):
    """(name, version) of every crate compiled into `crate` for `target` with `features`."""
    args = ["cargo", "tree", "--locked", "-p", crate, "-e", "normal,no-proc-macro", "--prefix", "none", "-f", "{p}"]
    if target:
        args += ["--target", target]
    if features:
        args += ["--features", ",".join(features)]
    found = set()
    for line in run(*args).splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].startswith("v"):
            found.add((parts[0], parts[1][1:]))
    return found


COPYRIGHT = re.compile(r"^(?:Copyright\s*(?:\([cC]\)|©)?\s*\d|Copyright\s+(?:\([cC]\)|©)|COPYRIGHT\s*(?:\([cC]\)|©)?\s*\d|\([cC]\)\s*\d|©\s*\d)")
TEMPLATE = re.compile(r"\[yyyy\]|\{yyyy\}|<year>|\[name of|\{name of|<copyright holders>|\[fullname\]|<name of author>", re.IGNORECASE)


def copyright_lines(package):
    """The copyright lines of the licence files a crate ships (its authors when it has none)."""
    folder = Path(package["manifest_path"]).parent
    lines = []
    for path in sorted(folder.iterdir()):
        if path.is_file() and re.match(r"(LICEN[CS]E|COPYING|COPYRIGHT|NOTICE)", path.name, re.IGNORECASE):
            for line in path.read_text(errors="replace").splitlines():
                line = line.strip()
                if COPYRIGHT.match(line) and not TEMPLATE.search(line) and len(line) < 200 and line not in lines:
                    lines.append(line)
    if not lines:
        authors = ", ".join(package.get("authors") or [])
        lines = [authors or f"the {package['name']} authors ({package.get('repository') or 'no repository given'})"]
    return lines


def gather(metadata, trees, allowed=ALLOWED):
    """Per artefact: its third-party crates (with the licences chosen), its derived works and its licence ids.
    `trees` maps an artefact id to its (name, version) set; raises LicenceError listing every bad crate."""
    packages = {(p["name"], p["version"]): p for p in metadata["packages"]}
    members = set(metadata.get("workspace_members", []))
    errors, result = [], {}
    for artefact in ARTEFACTS:
        crates, ours, ids = [], [], {"Apache-2.0"}
        for key in sorted(trees[artefact["id"]]):
            package = packages[key]
            if package["id"] in members:
                ours.append(package["name"])
                continue
            try:
                chosen = choose(f"{key[0]} {key[1]}", package.get("license"), allowed)
            except LicenceError as e:
                errors.append(str(e))
                continue
            ids.update(chosen)
            crates.append((package, chosen))
        derived = [d for d in DERIVED if d["crate"] in ours]
        ids.update(d["licence"] for d in derived)
        result[artefact["id"]] = {"crates": crates, "ours": ours, "derived": derived, "ids": ids}
    if errors:
        raise LicenceError("\n".join(sorted(set(errors))))
    return result


def expression(ids):
    """An SPDX AND of `ids`, Apache-2.0 (ctxguard's own) first."""
    return " AND ".join(sorted(ids, key=lambda i: (i != "Apache-2.0", i)))


def licence_text(licence, crates):
    """The text of `licence`: ctxguard's own files for Apache-2.0 and LGPL, else one a crate ships."""
    if licence == "Apache-2.0":
        return (ROOT / "LICENSE").read_text()
    if licence == "LGPL-2.1-or-later":
        return (ROOT / "extract/src/chardet/LICENSE").read_text()
    keys = {"MIT": "MIT", "Zlib": "ZLIB", "Unicode-3.0": "UNICODE", "BSD-3-Clause": "BSD", "BSD-2-Clause": "BSD",
            "ISC": "ISC", "BSL-1.0": "BOOST", "CC0-1.0": "CC0", "Unlicense": "UNLICENSE",
            "CDLA-Permissive-2.0": "CDLA", "Apache-2.0 WITH LLVM-exception": "APACHE", "0BSD": "0BSD",
            "Unicode-DFS-2016": "UNICODE", "bzip2-1.0.6": "LICENSE"}
    for package, chosen in sorted(crates, key=lambda c: (c[0]["name"], c[0]["version"])):
        if licence not in chosen:
            continue
        folder = Path(package["manifest_path"]).parent
        files = [p for p in sorted(folder.iterdir()) if p.is_file() and re.match(r"(LICEN[CS]E|COPYING|UNLICENSE)", p.name, re.IGNORECASE)]
        named = [p for p in files if keys.get(licence, "#") in p.name.upper()]
        if not named and len(chosen) == 1 and len(files) == 1:
            named = files
        if named:
            return f"(as {package['name']} {package['version']} ships it, {named[0].name})\n\n" + named[0].read_text(errors="replace")
    return None


def render(gathered):
    out = ["# Third-party notices", "",
           "Generated by `scripts/licences.py` from `cargo tree`, `cargo metadata` and the list of derived code in",
           "that script; `scripts/test.sh --only lint` fails when it is stale. Do not edit.", "",
           "ctxguard's own code is Apache-2.0 (`LICENSE`), except the chardet port in `extract/src/chardet/`,",
           "LGPL-2.1-or-later. No npm package is bundled into any artefact.", ""]
    for package in NPM_PACKAGES:
        ids = set().union(*(gathered[a]["ids"] for a in package["artefacts"]))
        out.append(f"- npm `{package['name']}`: `{expression(ids)}`")
    cli_ids = gathered["cli"]["ids"]
    out += [f"- the `ctxguard` binary: `{expression(cli_ids)}`", ""]
    all_crates = []
    for artefact in ARTEFACTS:
        g = gathered[artefact["id"]]
        out += [f"## {artefact['title']}", "", f"Licences: `{expression(g['ids'])}`. ctxguard crates: {', '.join(g['ours'])}.", ""]
        if g["derived"]:
            out += ["Derived from other projects:", "", "| from | licence | copyright | what |", "| --- | --- | --- | --- |"]
            for d in g["derived"]:
                out.append(f"| [{d['name']}]({d['url']}) | {d['licence']} | {d['copyright']} | {d['what']} |")
            out.append("")
        out += [f"Rust crates compiled in ({len(g['crates'])}):", "", "| crate | licence (as used) | copyright |", "| --- | --- | --- |"]
        for package, chosen in g["crates"]:
            declared = package.get("license")
            used = " AND ".join(chosen)
            shown = used if used == declared else f"{used} (of `{declared}`)"
            out.append(f"| {package['name']} {package['version']} | {shown} | {'; '.join(copyright_lines(package))} |")
            all_crates.append((package, chosen))
        out.append("")
    out += ["## Texts of the derived works' licences", ""]
    for d in DERIVED:
        out += [f"### {d['name']}: {d['licence']}", "", "```text", (ROOT / d["text"]).read_text(errors="replace").rstrip("\n"), "```", ""]
    ids = set().union(*(set(chosen) for _, chosen in all_crates))
    out += ["## Texts of the crates' licences", "",
            "Each crate's copyright line is in its row above; the Apache-2.0 text is ctxguard's `LICENSE`.", ""]
    for licence in sorted(ids, key=lambda i: (i != "Apache-2.0", i)):
        text = licence_text(licence, all_crates)
        if text is None:
            raise LicenceError(f"no text of {licence} found in the crates that use it; add one to licence_text()")
        out += [f"### {licence}", "", "```text", text.rstrip("\n"), "```", ""]
    return "\n".join(out)


def set_licence_fields(gathered, write):
    """Each npm manifest's `license` against what its package ships; returns the mismatches."""
    problems = []
    for package in NPM_PACKAGES:
        path = ROOT / package["manifest"]
        text = path.read_text()
        manifest = json.loads(text)
        for field in ("dependencies", "bundleDependencies", "bundledDependencies"):
            if manifest.get(field):
                problems.append(f"{package['manifest']}: `{field}` is not empty; list those packages in scripts/licences.py first")
        want = expression(set().union(*(gathered[a]["ids"] for a in package["artefacts"])))
        if manifest.get("license") != want:
            if write:
                path.write_text(re.sub(r'"license": "[^"]*"', f'"license": "{want}"', text, count=1))
            else:
                problems.append(f"{package['manifest']}: license is {manifest.get('license')!r}, it ships {want!r}")
    return problems


def crate_licence_fields(metadata, write):
    """The `license` of each workspace crate whose source holds derived code (ctxguard-extract):
    Apache-2.0 and the licences of what it derives; returns the mismatches."""
    problems = []
    for crate in sorted({d["crate"] for d in DERIVED if not d["what"].startswith("tables `core/build.rs`")}):
        want = expression({"Apache-2.0"} | {d["licence"] for d in DERIVED if d["crate"] == crate})
        package = next(p for p in metadata["packages"] if p["name"] == crate)
        if package.get("license") == want:
            continue
        path = Path(package["manifest_path"])
        text = path.read_text()
        if write and re.search(r'^license(\.workspace)? *=.*$', text, re.M):
            path.write_text(re.sub(r'^license(\.workspace)? *=.*$', f'license = "{want}"', text, count=1, flags=re.M))
        else:
            problems.append(f"{path.relative_to(ROOT)}: license is {package.get('license')!r}, its source holds {want!r}")
    return problems


def main(check):
    metadata = json.loads(run("cargo", "metadata", "--locked", "--format-version", "1"))
    trees = {}
    for artefact in ARTEFACTS:
        trees[artefact["id"]] = set().union(*(tree(*root) for root in artefact["roots"]))
    try:
        gathered = gather(metadata, trees)
    except LicenceError as e:
        print(f"licences.py: {e}", file=sys.stderr)
        return 1
    try:
        text = render(gathered)
    except LicenceError as e:
        print(f"licences.py: {e}", file=sys.stderr)
        return 1
    problems = set_licence_fields(gathered, write=not check) + crate_licence_fields(metadata, write=not check)
    if check:
        if not NOTICES.exists() or NOTICES.read_text() != text:
            problems.append("THIRD-PARTY-NOTICES.md is stale: run python3 scripts/licences.py")
        for p in problems:
            print(f"licences.py: {p}", file=sys.stderr)
        if not problems:
            print("licences.py: every dependency's licence is allowed and listed; the notices are current")
        return 1 if problems else 0
    NOTICES.write_text(text)
    for p in problems:
        print(f"licences.py: {p}", file=sys.stderr)
    print(f"licences.py: wrote {NOTICES.relative_to(ROOT)}")
    return 1 if problems else 0


def self_test():
    """The checks on made-up metadata: an unlisted licence fails, a choice is made, derived code follows its crate."""
    assert spdx_alternatives("MIT OR Apache-2.0") == [("MIT",), ("Apache-2.0",)]
    assert spdx_alternatives("(MIT OR Apache-2.0) AND Unicode-3.0") == [("MIT", "Unicode-3.0"), ("Apache-2.0", "Unicode-3.0")]
    assert spdx_alternatives("Apache-2.0 WITH LLVM-exception OR MIT") == [("Apache-2.0 WITH LLVM-exception",), ("MIT",)]
    assert spdx_alternatives("MIT/Apache-2.0") == [("MIT",), ("Apache-2.0",)]
    assert choose("x", "MIT OR Apache-2.0") == ("Apache-2.0",)
    assert choose("x", "GPL-3.0-only OR MIT") == ("MIT",)

    def fails(expr, needle):
        try:
            choose("evil 1.0.0", expr)
        except LicenceError as e:
            assert needle in str(e), str(e)
            return
        raise AssertionError(f"{expr!r} was accepted")

    fails("GPL-3.0-only", "not in the allow-list")
    fails("MIT AND GPL-3.0-only", "not in the allow-list")
    fails("LGPL-2.1-or-later", "not in the allow-list")  # allowed for the chardet port only, never a dependency
    fails(None, "no licence")
    fails("(MIT", "unbalanced")

    def package(name, version, licence, member=False):
        return {"name": name, "version": version, "id": f"{'path+file:///ws/' if member else 'registry+'}{name}#{version}",
                "license": licence, "manifest_path": "/nonexistent/Cargo.toml", "authors": ["A. Author"]}

    ours = [package("ctxguard-cli", "0.1.0", "Apache-2.0", True), package("ctxguard-core", "0.1.0", "Apache-2.0", True),
            package("ctxguard-extract", "0.1.0", "Apache-2.0", True), package("ctxguard-web", "0.1.0", "Apache-2.0", True),
            package("ctxguard-preview-engine", "0.1.0", "Apache-2.0", True)]
    fine = package("serde", "1.0.0", "MIT OR Apache-2.0")
    evil = package("evil", "1.0.0", "SSPL-1.0")
    metadata = {"packages": ours + [fine, evil], "workspace_members": [p["id"] for p in ours]}
    base = {"cli": {("ctxguard-cli", "0.1.0"), ("ctxguard-extract", "0.1.0"), ("ctxguard-core", "0.1.0"), ("serde", "1.0.0")},
            "core": {("ctxguard-core", "0.1.0")}, "documents": {("ctxguard-extract", "0.1.0"), ("ctxguard-core", "0.1.0")},
            "toolbar": {("ctxguard-web", "0.1.0"), ("ctxguard-preview-engine", "0.1.0")}}
    got = gather(metadata, base)
    assert got["core"]["ids"] == {"Apache-2.0", "MIT"}, got["core"]["ids"]
    assert "LGPL-2.1-or-later" in got["documents"]["ids"] and "LGPL-2.1-or-later" not in got["core"]["ids"]
    assert expression(got["documents"]["ids"]).startswith("Apache-2.0 AND ")
    assert [c[1] for c in got["cli"]["crates"]] == [("Apache-2.0",)]
    try:
        gather(metadata, {**base, "toolbar": base["toolbar"] | {("evil", "1.0.0")}})
    except LicenceError as e:
        assert "evil 1.0.0: licence 'SSPL-1.0' is not in the allow-list" in str(e), str(e)
    else:
        raise AssertionError("a crate under SSPL-1.0 came in unnoticed")
    print("licences.py: self-test passed (an unlisted licence fails, choices and derived code resolved)")
    return 0


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "--self-test":
        sys.exit(self_test())
    if mode not in ("", "--check"):
        print("usage: scripts/licences.py [--check | --self-test]", file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(main(check=mode == "--check"))
    except subprocess.CalledProcessError as e:
        print(f"licences.py: `{' '.join(e.cmd)}` failed:\n{e.stderr.strip()}", file=sys.stderr)
        sys.exit(1)
