//! Opening a file as `PdfReader.read` does: the `%%EOF` marker searched line
//! by line from the end, `startxref`, then every cross-reference table or
//! stream along the `/Prev` chain (newest entries win), with PyPDF2's
//! repairs: a pointer a few bytes off, a table not numbered from 0, and a
//! rebuild from `N G obj` headers when the pointer is wrong.

use super::document::{python_int_str, read_object_header, Document};
use super::error::{fail, Result};
use super::lexer::{self, Cursor};
use super::object::Object;
use std::collections::{HashMap, HashSet};

/// Reads the cross-reference information and trailer into `doc`.
pub(crate) fn read(doc: &mut Document<'_>) -> Result<()> {
    let data = doc.data;
    if data.is_empty() {
        return fail("Cannot read an empty file");
    }
    let mut pos = find_eof_marker(data)?;
    let startxref = find_startxref(data, &mut pos)?;
    let issue = xref_issue(data, startxref);
    read_tables(doc, startxref, issue)?;
    if doc.xref_index != 0 {
        fix_index(doc);
    }
    Ok(())
}

/// `read_previous_line`: the line ending before `pos` (CR/LF runs skipped),
/// and the new position. Fails at the start of the file.
fn previous_line(data: &[u8], pos: &mut usize) -> Result<(usize, usize)> {
    if *pos == 0 {
        return fail("Stream has ended unexpectedly");
    }
    let end = *pos;
    let mut i = end;
    while i > 0 && !matches!(data[i - 1], b'\r' | b'\n') {
        i -= 1;
    }
    let start = i;
    while i > 0 && matches!(data[i - 1], b'\r' | b'\n') {
        i -= 1;
    }
    *pos = i;
    Ok((start, end))
}

/// `_find_eof_marker`: the position before the last line starting with `%%EOF`.
fn find_eof_marker(data: &[u8]) -> Result<usize> {
    let mut pos = data.len();
    loop {
        if pos < 8 {
            return fail("EOF marker not found");
        }
        let (start, end) = previous_line(data, &mut pos)?;
        if data[start..end].starts_with(b"%%EOF") {
            return Ok(pos);
        }
    }
}

/// `_find_startxref_pos`.
fn find_startxref(data: &[u8], pos: &mut usize) -> Result<i64> {
    let (s, e) = previous_line(data, pos)?;
    let line = &data[s..e];
    if let Some(n) = python_int_str(line) {
        let (s2, e2) = previous_line(data, pos)?;
        if !data[s2..e2].starts_with(b"startxref") {
            return fail("startxref not found");
        }
        return Ok(n);
    }
    if !line.starts_with(b"startxref") {
        return fail("startxref not found");
    }
    match python_int_str(&line[9..]) {
        Some(n) => Ok(n),
        None => fail("startxref is not followed by a number"),
    }
}

/// `_get_xref_issues`: 0 when `startxref` points at `xref` or at `N G obj`
/// after a blank, else the kind of problem.
fn xref_issue(data: &[u8], startxref: i64) -> u8 {
    let Ok(at) = usize::try_from(startxref - 1) else {
        return 4; // a negative seek: PyPDF2 raises; handled as a broken pointer
    };
    let mut cur = Cursor::new(data, at);
    match cur.next() {
        None => {}
        Some(b'\r' | b'\n' | b' ' | b'\t') => {}
        Some(_) => return 1,
    }
    if cur.take(4) == b"xref" {
        return 0;
    }
    loop {
        match cur.next() {
            None => return 2,
            Some(b) if b.is_ascii_digit() || b == b' ' || b == b'\t' => {}
            Some(b) => {
                let mut word = vec![b];
                word.extend_from_slice(cur.take(2));
                return if word.eq_ignore_ascii_case(b"obj") {
                    0
                } else {
                    3
                };
            }
        }
    }
}

/// `_read_xref_tables_and_trailers`.
fn read_tables(doc: &mut Document<'_>, startxref: i64, mut issue: u8) -> Result<()> {
    if issue == 4 {
        return fail("negative seek value (startxref is 0)");
    }
    let data = doc.data;
    let mut next = Some(startxref);
    let mut seen = HashSet::new();
    while let Some(at) = next {
        if !seen.insert((at, issue)) {
            break; // a /Prev chain that loops: PyPDF2 would loop forever
        }
        let mut cur = Cursor::new(data, usize::try_from(at).unwrap_or(usize::MAX));
        let mut x = cur.next();
        if x.is_none_or(|b| b == b'\r' || b == b'\n') {
            x = cur.next();
        }
        if x == Some(b'x') {
            next = read_standard(doc, &mut cur)?;
        } else if issue != 0 {
            match rebuild(doc) {
                Ok(()) => break,
                Err(e) if e.is_bound() => return Err(e),
                Err(_) => issue = 0,
            }
        } else if x.is_some_and(|b| b.is_ascii_digit()) {
            cur.pos -= 1;
            let stream = match read_xref_stream(doc, &mut cur) {
                Ok(s) => s,
                Err(e) if e.is_bound() => return Err(e),
                Err(e) => {
                    if doc.trailer.contains("/Root") {
                        break;
                    }
                    return fail(format!("trailer can not be read ({e})"));
                }
            };
            for key in ["/Root", "/Encrypt", "/Info", "/ID"] {
                if let Some(v) = stream.get(key) {
                    if !doc.trailer.contains(key) {
                        doc.trailer.insert(key.into(), v.clone());
                    }
                }
            }
            if let Some(o) = doc.key(&stream, "/XRefStm")?.and_then(|o| o.as_int()) {
                let mut c = Cursor::new(data, usize::try_from(o).unwrap_or(usize::MAX));
                read_xref_stream(doc, &mut c)?;
            }
            next = doc.key(&stream, "/Prev")?.map(|p| p.as_int().unwrap_or(0));
        } else {
            next = other_error(doc, &mut cur, at)?;
        }
    }
    doc.table_changed();
    Ok(())
}

/// `_read_xref`: a classic table and its trailer; the next table's offset.
fn read_standard(doc: &mut Document<'_>, cur: &mut Cursor<'_>) -> Result<Option<i64>> {
    let data = doc.data;
    let r = cur.take(4);
    if r.get(..3) != Some(b"ref") {
        return fail("xref table read error");
    }
    cur.skip_whitespace();
    let mut first = true;
    loop {
        let num = lexer::read_object(cur, Some(&*doc))?;
        let mut num = match num {
            Object::Int(n) => n,
            other => return fail(format!("xref subsection starts with a {}", other.kind())),
        };
        if first && num != 0 {
            doc.xref_index = num;
        }
        first = false;
        cur.skip_whitespace();
        let size = match lexer::read_object(cur, Some(&*doc))? {
            Object::Int(n) => n,
            other => return fail(format!("xref subsection size is a {}", other.kind())),
        };
        cur.skip_whitespace();
        let mut count = 0;
        while count < size {
            doc.work(20)?;
            let mut line = cur.take(20);
            while line.first().is_some_and(|b| *b == b'\r' || *b == b'\n') {
                if line.len() < 20 {
                    // Near the end PyPDF2's skip would cycle between two positions.
                    return fail("xref table ends early");
                }
                cur.pos -= 19;
                line = cur.take(20);
            }
            if line.is_empty() {
                return fail("xref table ends early");
            }
            if line
                .last()
                .is_some_and(|b| b.is_ascii_digit() || *b == b't')
            {
                cur.pos -= 1;
            }
            let parsed = (|| {
                let head = &line[..line.len().min(16)];
                let mut parts = head.split(|&b| b == b' ');
                let (a, b) = (parts.next()?, parts.next()?);
                if parts.next().is_some() {
                    return None;
                }
                Some((python_int_str(a)?, python_int_str(b)?))
            })();
            let kind = line.get(17).copied();
            let (offset, generation) = match parsed {
                Some(p) => p,
                None => match find_generation(doc, num)? {
                    Some((at, g)) => (at as i64, g),
                    None => (-1, 65535),
                },
            };
            let table = doc.xref.entry(generation).or_default();
            if let std::collections::hash_map::Entry::Vacant(e) = table.entry(num) {
                e.insert(offset);
                doc.free
                    .entry(generation)
                    .or_default()
                    .insert(num, kind == Some(b'f'));
                if let Some(t) = doc.free.get_mut(&65535) {
                    t.insert(num, kind == Some(b'f'));
                }
            }
            count += 1;
            // Python's int never overflows; an object number past i64 names no object we can hold.
            num = match num.checked_add(1) {
                Some(next) => next,
                None => return fail("xref subsection numbers past the largest object number"),
            };
            if count > 10_000_000 {
                return fail("xref subsection too large");
            }
        }
        cur.skip_whitespace();
        if cur.rest().starts_with(b"trailer") {
            cur.pos += 7;
            break;
        }
    }
    cur.skip_whitespace();
    let trailer = lexer::read_object(cur, Some(&*doc))?;
    let Object::Dict(trailer) = trailer else {
        return fail(format!(
            "the trailer is a {}, not a dictionary",
            trailer.kind()
        ));
    };
    for (k, v) in trailer.iter() {
        if !doc.trailer.contains(k) {
            doc.trailer.insert(k.clone(), v.clone());
        }
    }
    if let Some(o) = doc.key(&trailer, "/XRefStm")?.and_then(|o| o.as_int()) {
        let mut c = Cursor::new(data, usize::try_from(o).unwrap_or(usize::MAX));
        match read_xref_stream(doc, &mut c) {
            Err(e) if e.is_bound() => return Err(e),
            _ => {}
        }
    }
    Ok(doc.key(&trailer, "/Prev")?.map(|p| p.as_int().unwrap_or(0)))
}

/// `re.search(f"{num}\s+(\d+)\s+obj")` (unanchored, as PyPDF2 writes it):
/// where the match starts and the generation it names. Every header is
/// indexed on the first search, so a table of broken lines costs one scan.
fn find_generation(doc: &Document<'_>, num: i64) -> Result<Option<(usize, i64)>> {
    if doc.generations.borrow().is_none() {
        doc.work(doc.data.len())?;
        *doc.generations.borrow_mut() = Some(index_generations(doc.data));
    }
    Ok(doc
        .generations
        .borrow()
        .as_ref()
        .and_then(|g| g.get(&num).copied()))
}

/// For every `\d+\s+\d+\s+obj`, each number the search could match
/// before the generation (any suffix of the digits Python would print, and
/// the digits with a `-` before them), first match first.
fn index_generations(data: &[u8]) -> HashMap<i64, (usize, i64)> {
    let mut out = HashMap::new();
    for at in memchr::memmem::find_iter(data, b"obj") {
        let mut j = at;
        let s = j;
        while j > 0 && lexer::is_py_space(data[j - 1]) {
            j -= 1;
        }
        let ge = j;
        while j > 0 && data[j - 1].is_ascii_digit() {
            j -= 1;
        }
        if j == s || j == ge || ge == s {
            continue;
        }
        let Some(gen) = python_int_str(&data[j..ge]) else {
            continue;
        };
        let s = j;
        while j > 0 && lexer::is_py_space(data[j - 1]) {
            j -= 1;
        }
        let ne = j;
        while j > 0 && data[j - 1].is_ascii_digit() {
            j -= 1;
        }
        if ne == s || j == ne {
            continue;
        }
        let mut keys: Vec<(i64, usize)> = Vec::new();
        for start in j..ne {
            let digits = &data[start..ne];
            if digits.len() > 1 && digits[0] == b'0' {
                continue;
            }
            if let Some(v) =
                lexer::python_int(digits).filter(|v| v.to_string().as_bytes() == digits)
            {
                keys.push((v, start));
            }
        }
        if j > 0 && data[j - 1] == b'-' && (data[j] != b'0' || ne - j == 1) {
            if let Some(v) = lexer::python_int(&data[j - 1..ne]) {
                if v.to_string().as_bytes() == &data[j - 1..ne] {
                    keys.push((v, j - 1));
                }
            }
        }
        for (v, start) in keys {
            let slot = out.entry(v).or_insert((start, gen));
            if start < slot.0 {
                *slot = (start, gen);
            }
        }
    }
    out
}

/// `_read_pdf15_xref_stream`: the stream at the cursor (`N G obj << … >> stream`).
fn read_xref_stream(doc: &mut Document<'_>, cur: &mut Cursor<'_>) -> Result<super::object::Dict> {
    let Some((id, gen)) = read_object_header(cur) else {
        return fail("xref stream header unreadable");
    };
    let obj = lexer::read_object(cur, Some(&*doc))?;
    let Object::Stream(stream) = obj.clone() else {
        return fail("the cross-reference stream is not a stream");
    };
    if doc
        .key(&stream.dict, "/Type")?
        .as_ref()
        .and_then(Object::as_name)
        != Some("/XRef")
    {
        return fail("the cross-reference stream is not of type /XRef");
    }
    doc.cache_object(gen, id, obj);
    let data = doc.stream_data(&stream)?;
    let ints = |o: Option<&Object>| -> Option<Vec<i64>> {
        match o? {
            Object::Array(a) => a.iter().map(Object::as_int).collect(),
            _ => None,
        }
    };
    let index = match stream.dict.get("/Index") {
        Some(o) => ints(Some(o)),
        None => stream
            .dict
            .get("/Size")
            .and_then(Object::as_int)
            .map(|s| vec![0, s]),
    };
    let Some(index) = index.filter(|i| i.len() >= 2) else {
        return fail("xref stream /Index or /Size unusable");
    };
    let Some(widths) = ints(stream.dict.get("/W")).filter(|w| w.len() >= 3) else {
        return fail("xref stream /W unusable");
    };
    let w: Vec<usize> = widths
        .iter()
        .take(3)
        .map(|&x| usize::try_from(x).unwrap_or(0))
        .collect();
    if w.iter().any(|&x| x > 8) {
        return fail("invalid size in convert_to_int");
    }
    let mut c = Cursor::new(&data, 0);
    let entry = |i: usize, c: &mut Cursor<'_>| -> i64 {
        if w[i] > 0 {
            c.take(w[i])
                .iter()
                .fold(0i64, |v, &b| (v << 8) | i64::from(b))
        } else if i == 0 {
            1
        } else {
            0
        }
    };
    let mut last_end = 0i64;
    let mut i = 0;
    loop {
        let (start, size) = (index[i], index[i + 1]);
        if start < last_end {
            return fail("xref stream subsections out of order");
        }
        last_end = start.saturating_add(size);
        let mut num = start;
        while num < last_end {
            if c.rest().is_empty() && w[0] > 0 {
                break; // PyPDF2 reads zeros (free entries) from here on
            }
            let kind = entry(0, &mut c);
            match kind {
                0 => {
                    entry(1, &mut c);
                    entry(2, &mut c);
                }
                1 => {
                    let offset = entry(1, &mut c);
                    let generation = entry(2, &mut c);
                    let used = doc
                        .xref
                        .get(&generation)
                        .is_some_and(|t| t.contains_key(&num))
                        || doc.objstm.contains_key(&num);
                    let table = doc.xref.entry(generation).or_default();
                    if !used {
                        table.insert(num, offset);
                    }
                }
                2 => {
                    let stm = entry(1, &mut c);
                    let idx = entry(2, &mut c);
                    let used = doc.xref.get(&0).is_some_and(|t| t.contains_key(&num))
                        || doc.objstm.contains_key(&num);
                    if !used {
                        doc.objstm.insert(num, (stm, idx));
                    }
                }
                _ => {}
            }
            num += 1;
        }
        i += 2;
        if i + 1 >= index.len() {
            break;
        }
    }
    Ok(stream.dict.clone())
}

/// `_rebuild_xref_table`: every `N G obj` header, and every trailer in file order.
fn rebuild(doc: &mut Document<'_>) -> Result<()> {
    let data = doc.data;
    doc.xref.clear();
    let mut i = 0;
    while let Some(off) = memchr::memmem::find(&data[i..], b"obj") {
        let at = i + off;
        i = at + 3;
        // Walk back over `[\r\n \t][ \t]*(\d+)[ \t]+(\d+)[ \t]+` before "obj".
        let mut j = at;
        let blank = |b: u8| b == b' ' || b == b'\t';
        let s = j;
        while j > 0 && blank(data[j - 1]) {
            j -= 1;
        }
        if j == s {
            continue;
        }
        let ge = j;
        while j > 0 && data[j - 1].is_ascii_digit() {
            j -= 1;
        }
        if j == ge {
            continue;
        }
        let gs = j;
        let s = j;
        while j > 0 && blank(data[j - 1]) {
            j -= 1;
        }
        if j == s {
            continue;
        }
        let ie = j;
        while j > 0 && data[j - 1].is_ascii_digit() {
            j -= 1;
        }
        if j == ie {
            continue;
        }
        let is = j;
        while j > 0 && blank(data[j - 1]) {
            j -= 1;
        }
        if j == 0 || !matches!(data[j - 1], b'\r' | b'\n' | b' ' | b'\t') {
            continue;
        }
        let (Some(id), Some(gen)) = (python_int_str(&data[is..ie]), python_int_str(&data[gs..ge]))
        else {
            continue;
        };
        doc.xref.entry(gen).or_default().insert(id, is as i64);
    }
    doc.table_changed();
    let mut i = 0;
    while let Some(off) = memchr::memmem::find(&data[i..], b"trailer") {
        let at = i + off;
        i = at + 7;
        let mut j = at;
        while j > 0 && (data[j - 1] == b' ' || data[j - 1] == b'\t') {
            j -= 1;
        }
        if j == 0 || !matches!(data[j - 1], b'\r' | b'\n' | b' ' | b'\t') {
            continue;
        }
        let mut k = at + 7;
        while data
            .get(k)
            .is_some_and(|b| matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
        {
            k += 1;
        }
        if !data[k..].starts_with(b"<<") {
            continue;
        }
        let mut cur = Cursor::new(data, k);
        let trailer = lexer::read_object(&mut cur, Some(&*doc))?;
        if let Some(d) = trailer.as_dict() {
            for (key, v) in d.iter() {
                doc.trailer.insert(key.clone(), v.clone());
            }
        }
    }
    Ok(())
}

/// `_read_xref_other_error`: a pointer a few bytes off, a stream nearby, or a rebuild.
fn other_error(
    doc: &mut Document<'_>,
    cur: &mut Cursor<'_>,
    startxref: i64,
) -> Result<Option<i64>> {
    if startxref == 0 {
        return Ok(None);
    }
    let data = doc.data;
    let Some(back) = cur.pos.checked_sub(11) else {
        return fail("negative seek value while looking for the xref table");
    };
    let window = &data[back.min(data.len())..(back + 20).min(data.len())];
    if let Some(loc) = memchr::memmem::find(window, b"xref") {
        return Ok(Some(startxref - (10 - loc as i64)));
    }
    let at = usize::try_from(startxref).unwrap_or(usize::MAX);
    for look in 0..5 {
        if data.get(at + look).is_some_and(u8::is_ascii_digit) {
            return Ok(Some(startxref + look as i64));
        }
    }
    if doc.trailer.contains("/Root") {
        return match rebuild(doc) {
            Ok(()) => Ok(None),
            Err(e) if e.is_bound() => Err(e),
            Err(_) => fail("can not rebuild xref"),
        };
    }
    fail("Could not find xref table at specified location")
}

/// The repair for a table numbered from `xref_index`: an entry whose object
/// header says `id - xref_index` is moved there.
fn fix_index(doc: &mut Document<'_>) {
    let data = doc.data;
    let gens: Vec<i64> = doc.xref.keys().copied().filter(|g| *g != 65535).collect();
    for gen in gens {
        let mut ids: Vec<i64> = doc.xref[&gen].keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let Some(&offset) = doc.xref[&gen].get(&id) else {
                continue;
            };
            let mut cur = Cursor::new(data, usize::try_from(offset).unwrap_or(usize::MAX));
            let Some((pid, _)) = read_object_header(&mut cur) else {
                break;
            };
            if pid == id - doc.xref_index {
                if let Some(t) = doc.xref.get_mut(&gen) {
                    t.insert(pid, offset);
                    t.remove(&id);
                }
            }
        }
    }
    doc.table_changed();
}
