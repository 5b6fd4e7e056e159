//! Turns tiktoken-rs's vocabularies into compact rank-ordered byte tables, and
//! regex-syntax's Unicode classes into a range table, at build time, so the
//! core needs no parsing at start-up (see `src/bpe/`).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let o200k = vocabulary_tokens(tiktoken_rs::o200k_base_singleton());
    let cl100k = vocabulary_tokens(tiktoken_rs::cl100k_base_singleton());
    let r50k = vocabulary_tokens(tiktoken_rs::r50k_base_singleton());
    let p50k = vocabulary_tokens(tiktoken_rs::p50k_base_singleton());
    // p50k is r50k plus a few whitespace tokens: ship only what it adds.
    assert!(
        p50k.len() >= r50k.len() && p50k[..r50k.len()] == r50k[..],
        "p50k_base no longer starts with r50k_base; store it whole"
    );
    for (name, tokens) in [
        ("o200k_base", &o200k),
        ("cl100k_base", &cl100k),
        ("r50k_base", &r50k),
    ] {
        // The merge starts from one token per byte and names parts by their ranks.
        assert!(
            (0..=255u8).all(|b| tokens.iter().any(|t| t[..] == [b])),
            "{name} lacks a single-byte token; the engine assumes every byte is one"
        );
    }
    // The engine stores a token as the two tokens BPE merges it from (its
    // parents) and looks merges up by them; that needs every token to be the
    // BPE of its own bytes, with both parents of lower rank. Checked for all four.
    let o200k_parents = parents("o200k_base", &o200k);
    for (name, tokens) in [
        ("cl100k_base", &cl100k),
        ("r50k_base", &r50k),
        ("p50k_base", &p50k),
    ] {
        parents(name, tokens);
    }
    for (name, table) in [
        ("o200k_base.parents", parents_table(&o200k, &o200k_parents)),
        // Most of cl100k is in o200k, and most of r50k in cl100k: ship references.
        ("cl100k_base.derived", derived_table(&cl100k, &o200k)),
        ("r50k_base.derived", derived_table(&r50k, &cl100k)),
        ("p50k_extra.vocab", encode_table(&p50k[r50k.len()..])),
    ] {
        fs::write(out.join(name), table).expect("OUT_DIR is writable");
    }
    let source = unicode_table();
    fs::write(out.join("unicode_classes.rs"), source).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}

/// Every rank's bytes; special tokens and unused ranks are empty (ordinary encoding never produces them).
fn vocabulary_tokens(bpe: &tiktoken_rs::CoreBPE) -> Vec<Vec<u8>> {
    let specials: Vec<Vec<u8>> = bpe
        .special_tokens()
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let ordinary = |rank: u32| {
        bpe.decode_bytes(&[rank])
            .ok()
            .filter(|b| !specials.contains(b))
    };
    let count = (0..=210_000u32)
        .rev()
        .find(|&r| ordinary(r).is_some())
        .map_or(0, |r| r + 1);
    (0..count)
        .map(|rank| ordinary(rank).unwrap_or_default())
        .collect()
}

/// Each token's parents, by rank: `None` for single bytes and empty ranks, else
/// the two tokens whose merge is the last step of BPE on the token's bytes.
/// Panics unless BPE on every token's bytes gives that token, after merges
/// of lower rank only.
fn parents(name: &str, tokens: &[Vec<u8>]) -> Vec<Option<(u32, u32)>> {
    let ranks: std::collections::HashMap<&[u8], u32> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.is_empty())
        .map(|(r, t)| (&t[..], r as u32))
        .collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (rank, token) in tokens.iter().enumerate() {
        if token.len() < 2 {
            out.push(None);
            continue;
        }
        // tiktoken's merge loop over (start, rank) parts of the token's bytes.
        let mut starts: Vec<usize> = (0..=token.len()).collect();
        let mut last = None;
        loop {
            let mut best: Option<(u32, usize)> = None;
            for i in 0..starts.len().saturating_sub(2) {
                if let Some(&r) = ranks.get(&token[starts[i]..starts[i + 2]]) {
                    if best.is_none_or(|(b, _)| r < b) {
                        best = Some((r, i));
                    }
                }
            }
            let Some((r, i)) = best else { break };
            assert!(
                r <= rank as u32,
                "{name}: BPE of token {rank} merges {r}, of higher rank"
            );
            last = Some((
                ranks[&token[starts[i]..starts[i + 1]]],
                ranks[&token[starts[i + 1]..starts[i + 2]]],
            ));
            starts.remove(i + 1);
        }
        assert!(
            starts.len() == 2,
            "{name}: token {rank} is not the BPE of its own bytes"
        );
        out.push(last);
    }
    out
}

/// A vocabulary as its tokens' parents: `u32 count`, the byte value of each
/// of ranks 0 to 255 (every one a single byte), then for ranks 256 and up the
/// parents `(l, r)` (each below 2^18) in planes that compress well: the low
/// bytes of every `l`, their middle bytes, the same two for `r`, then one
/// nibble per rank (`l >> 16 | (r >> 16) << 2`), two ranks to a byte, low nibble first.
fn parents_table(tokens: &[Vec<u8>], parents: &[Option<(u32, u32)>]) -> Vec<u8> {
    let mut table = (tokens.len() as u32).to_le_bytes().to_vec();
    for (rank, token) in tokens.iter().enumerate().take(256) {
        assert!(
            token.len() == 1,
            "rank {rank} is not a single byte; the parents table assumes ranks 0-255 are"
        );
        table.push(token[0]);
    }
    let pairs: Vec<(u32, u32)> = parents[256..]
        .iter()
        .enumerate()
        .map(|(i, p)| p.unwrap_or_else(|| panic!("rank {} has no parents", i + 256)))
        .collect();
    assert!(pairs.iter().all(|&(l, r)| l < 1 << 18 && r < 1 << 18));
    for shift in [0, 8] {
        table.extend(pairs.iter().map(|&(l, _)| (l >> shift) as u8));
    }
    for shift in [0, 8] {
        table.extend(pairs.iter().map(|&(_, r)| (r >> shift) as u8));
    }
    for two in pairs.chunks(2) {
        let nibble = |&(l, r): &(u32, u32)| ((l >> 16) | ((r >> 16) << 2)) as u8;
        table.push(nibble(&two[0]) | two.get(1).map_or(0, nibble) << 4);
    }
    table
}

/// `u32 count`, then one length byte per rank, then every token's bytes in rank order.
fn encode_table(tokens: &[Vec<u8>]) -> Vec<u8> {
    let mut table = (tokens.len() as u32).to_le_bytes().to_vec();
    for (rank, token) in tokens.iter().enumerate() {
        assert!(
            token.len() < 256,
            "token {rank} is {} bytes; the table stores lengths in one byte",
            token.len()
        );
        table.push(token.len() as u8);
    }
    for token in tokens {
        table.extend_from_slice(token);
    }
    table
}

/// A vocabulary as references into a base one: `u32 count`, `u32` byte length of
/// the references, then per rank a LEB128 varint (0 = a literal token; else
/// 1 + zigzag of the base rank's difference from the previous reference),
/// then `u32` literal count, one length byte per literal, and the literals' bytes.
fn derived_table(tokens: &[Vec<u8>], base: &[Vec<u8>]) -> Vec<u8> {
    let index: std::collections::HashMap<&[u8], u32> = base
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.is_empty())
        .map(|(r, t)| (&t[..], r as u32))
        .collect();
    let mut refs = Vec::new();
    let mut literals: Vec<&[u8]> = Vec::new();
    let mut prev = 0i64;
    for token in tokens {
        match index.get(&token[..]).filter(|_| !token.is_empty()) {
            Some(&r) => {
                let delta = i64::from(r) - prev;
                prev = i64::from(r);
                let mut z = ((delta << 1) ^ (delta >> 63)) as u64 + 1;
                while z >= 0x80 {
                    refs.push((z as u8 & 0x7f) | 0x80);
                    z >>= 7;
                }
                refs.push(z as u8);
            }
            None => {
                refs.push(0);
                literals.push(token);
            }
        }
    }
    let mut table = (tokens.len() as u32).to_le_bytes().to_vec();
    table.extend_from_slice(&(refs.len() as u32).to_le_bytes());
    table.extend_from_slice(&refs);
    table.extend_from_slice(&(literals.len() as u32).to_le_bytes());
    for lit in &literals {
        assert!(lit.len() < 256, "literal token of {} bytes", lit.len());
        table.push(lit.len() as u8);
    }
    for lit in &literals {
        table.extend_from_slice(lit);
    }
    table
}

/// Disjoint `(first, last, mask)` code point ranges for the classes the pre-tokenizers test.
fn unicode_table() -> String {
    // Bits, in the order of `src/bpe/unicode.rs`.
    let classes = [
        r"\p{L}",
        r"\p{N}",
        r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
        r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
        r"\s",
        r"(?i:s)",
        r"(?i:t)",
        r"(?i:d)",
        r"(?i:m)",
        r"(?i:l)",
        r"(?i:v)",
        r"(?i:e)",
        r"(?i:r)",
        r"\d",
    ];
    let mut boundaries = std::collections::BTreeSet::new();
    let mut sets = Vec::new();
    for pattern in classes {
        let hir = regex_syntax::Parser::new()
            .parse(pattern)
            .expect("class pattern parses");
        let ranges: Vec<(u32, u32)> = match hir.kind() {
            regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => class
                .ranges()
                .iter()
                .map(|r| (r.start() as u32, r.end() as u32))
                .collect(),
            regex_syntax::hir::HirKind::Literal(lit) => {
                let c = std::str::from_utf8(&lit.0)
                    .expect("utf-8 literal")
                    .chars()
                    .next()
                    .expect("one char") as u32;
                vec![(c, c)]
            }
            other => panic!("unexpected class shape for {pattern}: {other:?}"),
        };
        for &(a, b) in &ranges {
            boundaries.insert(a);
            boundaries.insert(b + 1);
        }
        sets.push(ranges);
    }
    let points: Vec<u32> = boundaries.into_iter().collect();
    let mut merged: Vec<(u32, u32, u16)> = Vec::new();
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1] - 1);
        let mut mask = 0u16;
        for (bit, ranges) in sets.iter().enumerate() {
            if ranges.iter().any(|&(x, y)| x <= a && a <= y) {
                mask |= 1 << bit;
            }
        }
        if mask == 0 {
            continue;
        }
        match merged.last_mut() {
            Some(last) if last.1 + 1 == a && last.2 == mask => last.1 = b,
            _ => merged.push((a, b, mask)),
        }
    }
    let mut src = String::from("// Generated by build.rs from regex-syntax's Unicode tables.\n");
    let _ = writeln!(
        src,
        "pub(crate) static CLASS_RANGES: [(u32, u32, u16); {}] = [",
        merged.len()
    );
    for (a, b, m) in merged {
        let _ = writeln!(src, "    ({a:#x}, {b:#x}, {m:#x}),");
    }
    src.push_str("];\n");
    src
}
