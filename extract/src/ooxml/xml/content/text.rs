//! Content text: character data through libxml2's `areBlanks` heuristic,
//! references (character, predefined, declared entities checked once and
//! left as nodes).

use super::super::chars::is_blank;
use super::super::dtd::{ALLOWED_EXPANSION, MAX_AMPLIFICATION, REFERENCE_COST};
use super::super::{char_ref, XmlError};
use super::attrs::predefined;
use super::{Event, Open, Parser, Saved, State};
use std::borrow::Cow;
use std::rc::Rc;

impl<'a> Parser<'a, '_> {
    pub(super) fn reference(&mut self) -> Result<Event<'a>, XmlError> {
        self.st.pos += 1;
        if self.eat("#") {
            let rest = self.rest();
            let end = rest
                .find(';')
                .ok_or_else(|| self.err("a character reference without ';'"))?;
            let c =
                char_ref(&rest[..end]).ok_or_else(|| self.err("an invalid character reference"))?;
            self.st.pos += end + 1;
            self.text_node(c.len_utf8(), false)?;
            return Ok(Event::Text(Cow::Owned(c.to_string())));
        }
        let name = self.name()?;
        if !self.eat(";") {
            return Err(self.err("an entity reference without ';'"));
        }
        if let Some(c) = predefined(name) {
            self.text_node(c.len_utf8(), false)?;
            return Ok(Event::Text(Cow::Owned(c.to_string())));
        }
        let dtd = Rc::clone(&self.st.dtd);
        match dtd.entities.get(name) {
            Some(entity) if entity.unparsed => {
                return Err(self.err("a reference to an unparsed entity"));
            }
            Some(entity) => {
                if let Some(value) = entity.value.as_deref() {
                    if !entity.checked.get() {
                        self.check_entity(name, value)?;
                        entity.checked.set(true);
                    }
                    let cost = entity.size.get().saturating_add(REFERENCE_COST);
                    self.st.expanded = self.st.expanded.saturating_add(cost);
                    let total = dtd.expanded.get().saturating_add(cost);
                    dtd.expanded.set(total);
                    if total > ALLOWED_EXPANSION && total / MAX_AMPLIFICATION > self.st.pos as u64 {
                        return Err(self.err("maximum entity amplification factor exceeded"));
                    }
                }
            }
            None if dtd.lenient => {}
            None => return Err(self.err("an undeclared entity")),
        }
        self.child_node();
        Ok(Event::Node)
    }

    /// libxml2 parses an entity's replacement text once, as content, when
    /// it is first referenced: it must be well-formed on its own.
    fn check_entity(&mut self, name: &str, value: &str) -> Result<(), XmlError> {
        let dtd = Rc::clone(&self.st.dtd);
        if dtd.open.borrow().iter().any(|n| n == name) {
            return Err(self.err("detected an entity reference loop"));
        }
        dtd.open.borrow_mut().push(name.to_string());
        let mut saved = Saved {
            pos: 0,
            state: State::Content,
            open: Vec::new(),
            names: String::new(),
            bindings: self.st.bindings.clone(),
            dtd: Rc::clone(&dtd),
            max_depth: self.st.max_depth,
            pending_end: false,
            base: self.st.open.len().max(1),
            expanded: 0,
        };
        let mut sub = Parser {
            s: value,
            st: &mut saved,
        };
        for _ in 0..sub.st.base {
            sub.st.open.push(Open {
                qname_at: 0,
                ns_mark: sub.st.bindings.len(),
                space: -1,
                has_children: false,
                first_text: false,
                last_text: false,
                text_len: 0,
            });
        }
        let result = loop {
            match sub.next() {
                Ok(Event::Eof) => break Ok(()),
                Ok(_) => {}
                Err(e) => {
                    break Err(XmlError::at(
                        self.st.pos,
                        &format!("in entity '{name}': {}", e.what),
                    ))
                }
            }
        };
        dtd.open.borrow_mut().pop();
        if let Some(entity) = dtd.entities.get(name) {
            entity
                .size
                .set((value.len() as u64).saturating_add(sub.st.expanded));
        }
        result
    }

    /// A run of character data up to the next `<` or `&`.
    pub(super) fn char_data(&mut self) -> Result<Option<Event<'a>>, XmlError> {
        let start = self.st.pos;
        let rest = self.rest();
        let len = memchr::memchr2(b'<', b'&', rest.as_bytes()).unwrap_or(rest.len());
        let seg = &rest[..len];
        self.check_chars(seg)?;
        if memchr::memchr(b']', seg.as_bytes()).is_some()
            && memchr::memmem::find(seg.as_bytes(), b"]]>").is_some()
        {
            return Err(self.err("the sequence ']]>' is not allowed in content"));
        }
        self.st.pos = start + len;
        let bytes = self.s.as_bytes();
        let raw_end = bytes.get(self.st.pos).copied().unwrap_or(0);
        let nxt = bytes.get(self.st.pos + 1).copied().unwrap_or(0);
        let removable = self.st.open.last().is_some_and(|top| {
            top.space != 1
                && top.space != -2
                && (!top.has_children || (!top.last_text && !top.first_text))
        });
        let no_children = self.st.open.last().is_some_and(|top| !top.has_children);
        let drops = |raw: u8, at_end: bool| {
            removable
                && (raw == b'<' || raw == b'\r')
                && !(no_children && at_end && raw == b'<' && nxt == b'/')
        };
        let (kept, blank_path) = first_kept(seg.as_bytes(), raw_end, drops);
        let Some(k) = kept else {
            return Ok(None);
        };
        let text = normalize(&seg[k..]);
        self.text_node(text.len(), blank_path)?;
        Ok(Some(Event::Text(text)))
    }
}

fn fast_ok(b: u8) -> bool {
    (0x20..=0x7F).contains(&b) || b == b'\t' || b == b'\n'
}

/// The first byte from `from` on that is not [`fast_ok`] (`seg.len()` if none):
/// 32 bytes at a time (a fold without an early exit, which the compiler
/// vectorises), then byte by byte in the block that holds one.
fn fast_run_end(seg: &[u8], from: usize) -> usize {
    const BLOCK: usize = 32;
    let mut at = from;
    while let Some(block) = seg.get(at..at + BLOCK) {
        if !block.iter().fold(true, |all, &b| all & fast_ok(b)) {
            break;
        }
        at += BLOCK;
    }
    seg.get(at..)
        .and_then(|tail| tail.iter().position(|&b| !fast_ok(b)))
        .map_or(seg.len().max(at), |i| at + i)
}

/// Line ends as XML normalises them: `\r\n` and a lone `\r` become `\n`.
pub(super) fn normalize(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// How libxml2's `xmlParseCharData` delivers a run in chunks, each blank
/// chunk passing `areBlanks`: the byte offset from which text is kept (a
/// kept chunk gives the element a text child, so everything after it is
/// kept too) and whether a kept chunk went through `areBlanks` (which
/// marks the element as holding text for later runs).
fn first_kept(seg: &[u8], raw_end: u8, drops: impl Fn(u8, bool) -> bool) -> (Option<usize>, bool) {
    let n = seg.len();
    let mut kept: Option<usize> = None;
    let mut blank_path = false;
    let mut cur = 0;
    let mut i = 0;
    // The fast path: ASCII, chunks ending at each `\r\n`.
    loop {
        let j = fast_run_end(seg, i);
        let chunk = &seg[cur..j];
        if let Some(&first) = chunk.first() {
            let next = if j < n { seg[j] } else { raw_end };
            if is_blank(first) {
                let all_blank = chunk.iter().all(|&b| is_blank(b));
                if !(kept.is_none() && all_blank && drops(next, j == n)) {
                    kept.get_or_insert(cur);
                    blank_path = true;
                }
            } else {
                kept.get_or_insert(cur);
            }
        }
        if j >= n {
            return (kept, blank_path);
        }
        cur = j;
        if seg[j] == b'\r' && seg.get(j + 1) == Some(&b'\n') {
            cur = j + 1;
            i = j + 2;
            if i >= n || fast_ok(seg[i]) {
                if i >= n && raw_end == 0 {
                    break;
                }
                continue;
            }
        }
        break;
    }
    // The complex path: chunks of 300 characters, line ends normalised.
    let mut k = cur;
    while k < n {
        let chunk_start = k;
        let mut count = 0;
        let mut all_blank = true;
        while k < n && count < 300 {
            let b = seg[k];
            let width = if b == b'\r' && seg.get(k + 1) == Some(&b'\n') {
                2
            } else if b < 0x80 {
                1
            } else {
                utf8_width(b)
            };
            all_blank &= is_blank(b);
            k += width;
            count += 1;
        }
        let next = if k < n { seg[k] } else { raw_end };
        if !(kept.is_none() && all_blank && drops(next, k >= n)) {
            // Every later chunk is kept through `areBlanks` too: nothing can change.
            return (kept.or(Some(chunk_start)), true);
        }
    }
    (kept, blank_path)
}

fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_run_end_finds_the_first_slow_byte_at_every_offset() {
        // Every position of one slow byte (non-ASCII, `\r`, a control) in runs
        // around the 32-byte block, from every start before it.
        for slow in [0x80u8, 0xE4, b'\r', 0x01, 0x1F] {
            for len in [0usize, 1, 31, 32, 33, 64, 65, 100] {
                for at in 0..=len {
                    let mut seg = vec![b'a'; len];
                    if at < len {
                        seg[at] = slow;
                    }
                    for from in 0..=len {
                        let naive = (from..len).find(|&i| !fast_ok(seg[i])).unwrap_or(len);
                        assert_eq!(
                            fast_run_end(&seg, from),
                            naive,
                            "{slow:#x} at {at} of {len} from {from}"
                        );
                    }
                }
            }
        }
        let all_fast = b"\ttab\nline ok~\x7f";
        assert_eq!(fast_run_end(all_fast, 0), all_fast.len());
    }
}
