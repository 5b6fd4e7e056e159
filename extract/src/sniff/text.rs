//! libmagic's text rules (the `TEXTTEST` pass of `file_softmagic`, over the
//! text re-encoded as UTF-8). Every rule whose MIME type is not
//! text-readable is here as its magic entry reads (mail and news headers,
//! KDE links, Windows shortcuts, PDF, netpbm images); of the text-readable ones the common kinds
//! (scripts by their `#!` line, HTML, XML, SVG, TeX, troff, diffs,
//! makefiles, C, Python, calendars, vCards, subtitles), which only change
//! the name, not the decision. Anything else is `text/plain`.

use super::Hit;

fn starts_ci(buf: &[u8], pattern: &[u8]) -> bool {
    buf.get(..pattern.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(pattern))
}

/// `search/N`: a match starting at one of the first N offsets.
fn find(buf: &[u8], range: usize, pattern: &[u8]) -> Option<usize> {
    let end = range
        .saturating_sub(1)
        .saturating_add(pattern.len())
        .min(buf.len());
    memchr::memmem::find(buf.get(..end)?, pattern)
}

fn find_ci(buf: &[u8], range: usize, pattern: &[u8]) -> bool {
    let end = range
        .saturating_sub(1)
        .saturating_add(pattern.len())
        .min(buf.len());
    let hay = buf.get(..end).unwrap_or(&[]);
    hay.windows(pattern.len().max(1))
        .any(|w| w.eq_ignore_ascii_case(pattern))
}

/// Magdir/mail.news (all `string/t` at offset 0).
fn mail(buf: &[u8]) -> Option<&'static str> {
    const RFC822: &str = "message/rfc822";
    const NEWS: &str = "message/news";
    let exact: [(&[u8], &str); 10] = [
        (b"Relay-Version: ", RFC822),
        (b"#! rnews", RFC822),
        (b"N#! rnews", RFC822),
        (b"Forward to ", RFC822),
        (b"Pipe to ", RFC822),
        (b"Path:", NEWS),
        (b"Xref:", NEWS),
        (b"From:", RFC822),
        (b"Date:", RFC822),
        (b"Article ", NEWS),
    ];
    if starts_ci(buf, b"delivered-to:") || starts_ci(buf, b"return-path:") {
        return Some(RFC822);
    }
    if buf.starts_with(b"Received:") {
        return Some(RFC822);
    }
    exact
        .iter()
        .find(|(p, _)| buf.starts_with(p))
        .map(|&(_, m)| m)
}

/// Magdir/images netpbm: `P1`-`P6`, whitespace, a digit.
fn netpbm(buf: &[u8]) -> Option<&'static str> {
    let kind = match buf.get(..2)? {
        b"P1" | b"P4" => "image/x-portable-bitmap",
        b"P2" | b"P5" => "image/x-portable-graymap",
        b"P3" | b"P6" => "image/x-portable-pixmap",
        _ => return None,
    };
    let rest = buf.get(2..)?;
    let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
    (ws > 0 && rest.get(ws).is_some_and(u8::is_ascii_digit)).then_some(kind)
}

/// The interpreter of a `#!` line, as the commands/perl/python/ruby/...
/// entries name it; `looks_text` false (the file had NULs or control bytes
/// before its trailing NULs were trimmed) skips the `/t` rules (shells, awk,
/// Tcl, Node), as libmagic does.
fn shebang(buf: &[u8], looks_text: bool) -> Option<&'static str> {
    let line = buf.strip_prefix(b"#!")?;
    let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
    let words: Vec<&[u8]> = line
        .split(|&b| b == b' ' || b == b'\t')
        .filter(|w| !w.is_empty())
        .collect();
    let first = *words.first()?;
    let program = if first.ends_with(b"/env") {
        words.get(1).copied().unwrap_or(first)
    } else {
        first
    };
    let name = program.rsplit(|&b| b == b'/').next().unwrap_or(program);
    let base: &[u8] = name
        .iter()
        .position(|b| b.is_ascii_digit() || *b == b'.')
        .map_or(name, |i| &name[..i]);
    let (kind, text_only) = match base {
        b"sh" | b"bash" | b"zsh" | b"ksh" | b"dash" | b"ash" | b"csh" | b"tcsh" => {
            ("text/x-shellscript", true)
        }
        b"python" | b"pypy" => ("text/x-script.python", false),
        b"perl" => ("text/x-perl", false),
        b"ruby" => ("text/x-ruby", false),
        b"node" | b"nodejs" => ("application/javascript", true),
        b"php" => ("text/x-php", false),
        b"awk" | b"gawk" | b"nawk" => ("text/x-awk", true),
        b"tclsh" | b"wish" => ("text/x-tcl", true),
        b"lua" => ("text/x-lua", true),
        _ => return None,
    };
    (looks_text || !text_only).then_some(kind)
}

/// Markup by its first tag (Magdir/sgml).
fn markup(buf: &[u8]) -> Option<&'static str> {
    let start = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let head = buf.get(start..).unwrap_or(&[]);
    if head.starts_with(b"<?xml") {
        return Some("text/xml");
    }
    for tag in [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<body",
        b"<title",
        b"<script",
        b"<style",
        b"<table",
        b"<h1",
        b"<a href",
    ] {
        if find_ci(buf, 4096, tag) {
            return Some("text/html");
        }
    }
    None
}

/// The text rules in libmagic's order, for the decision's sake exact on
/// the non-readable kinds.
pub(super) fn rules(buf: &[u8], looks_text: bool) -> Option<Hit> {
    // `string/t` rules: only for files that looked like text from the start
    if looks_text {
        if starts_ci(buf, b"[KDE Desktop Entry]") || buf.starts_with(b"# KDE Config File") {
            return Some(Hit::Mime("application/x-kdelnk"));
        }
        if let Some(m) = mail(buf) {
            return Some(Hit::Mime(m));
        }
        if buf.starts_with(b"MIME-Version:") {
            return Some(Hit::NoMime);
        }
    }
    if buf
        .get(1..)
        .is_some_and(|b| find(b, 100, b"InternetShortcut").is_some())
    {
        return Some(Hit::Mime("application/x-mswinurl"));
    }
    if let Some(m) = shebang(buf, looks_text) {
        return Some(Hit::Mime(m));
    }
    // Magdir/pdf: `search/256 %PDF-`
    if find(buf, 256, b"%PDF-").is_some() {
        return Some(Hit::Mime("application/pdf"));
    }
    if let Some(m) = netpbm(buf) {
        return Some(Hit::Mime(m));
    }
    if let Some(m) = markup(buf).filter(|_| looks_text) {
        return Some(Hit::Mime(m));
    }
    if buf.starts_with(b"<?php") {
        return Some(Hit::Mime("text/x-php"));
    }
    if buf.starts_with(b"BEGIN:VCALENDAR") {
        return Some(Hit::Mime("text/calendar"));
    }
    if starts_ci(buf, b"BEGIN:VCARD") {
        return Some(Hit::Mime("text/vcard"));
    }
    if looks_text && buf.starts_with(b"WEBVTT") {
        return Some(Hit::Mime("text/vtt"));
    }
    if buf.starts_with(b"diff ")
        || buf.starts_with(b"--- ")
        || buf.starts_with(b"*** ")
        || buf.starts_with(b"Index: ")
    {
        return Some(Hit::Mime("text/x-diff"));
    }
    if find(buf, 4096, b"\\documentclass").is_some()
        || find(buf, 4096, b"\\begin{document}").is_some()
    {
        return Some(Hit::Mime("text/x-tex"));
    }
    if buf.starts_with(b".TH ") || buf.starts_with(b".\\\"") || buf.starts_with(b"'\\\"") {
        return Some(Hit::Mime("text/troff"));
    }
    if buf.starts_with(b"#include") || find(buf, 4096, b"\n#include <").is_some() {
        return Some(Hit::Mime("text/x-c"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules_t(buf: &[u8]) -> Option<Hit> {
        rules(buf, true)
    }

    #[test]
    fn text_only_rules_need_text_from_the_start() {
        assert_eq!(rules(b"From: a@b.c\n", false), None);
        assert_eq!(rules(b"#!/bin/sh\n", false), None);
        assert_eq!(
            rules(b"#!/usr/bin/python\n", false),
            Some(Hit::Mime("text/x-script.python"))
        );
    }

    #[test]
    fn refused_kinds() {
        assert_eq!(
            rules_t(b"From: a@b.c\n\nhi"),
            Some(Hit::Mime("message/rfc822"))
        );
        assert_eq!(rules_t(b"Path: x\n"), Some(Hit::Mime("message/news")));
        assert_eq!(
            rules_t(b"[InternetShortcut]\nURL=x"),
            Some(Hit::Mime("application/x-mswinurl"))
        );
        assert_eq!(rules_t(b"x %PDF-1.4"), Some(Hit::Mime("application/pdf")));
        assert_eq!(
            rules_t(b"P1\n2 2\n0 1"),
            Some(Hit::Mime("image/x-portable-bitmap"))
        );
        assert_eq!(rules_t(b"MIME-Version: 1.0\n"), Some(Hit::NoMime));
    }

    #[test]
    fn readable_kinds() {
        assert_eq!(
            rules_t(b"#!/usr/bin/env python3\n"),
            Some(Hit::Mime("text/x-script.python"))
        );
        assert_eq!(
            rules_t(b"#!/bin/bash\n"),
            Some(Hit::Mime("text/x-shellscript"))
        );
        assert_eq!(
            rules_t(b"<?xml version=\"1.0\"?><a/>"),
            Some(Hit::Mime("text/xml"))
        );
        assert_eq!(rules_t(b"plain"), None);
    }
}
