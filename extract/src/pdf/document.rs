//! The object model of one file as PyPDF2's `PdfReader` holds it: the
//! cross-reference entries (read by `xref`), the trailer, and indirect
//! objects resolved on demand (with the same repairs: an object missing from
//! the table is searched for in the file) and cached. Cycles and decoding
//! past the budget are errors, never loops.

use super::error::{fail, Result};
use super::filters::{self, Budget, Parms};
use super::lexer::{self, Cursor, Resolver};
use super::object::{Dict, Object, Stream};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// How many references may chain (`1 0 R` naming an object that is itself a
/// reference) or nest while resolving, before the file is called cyclic.
const MAX_RESOLVE_DEPTH: usize = 64;

/// One parsed file.
pub(crate) struct Document<'a> {
    /// The file's bytes.
    pub(crate) data: &'a [u8],
    /// `xref[generation][id] = offset`.
    pub(crate) xref: HashMap<i64, HashMap<i64, i64>>,
    /// Entries marked free (`f`), by generation and id.
    pub(crate) free: HashMap<i64, HashMap<i64, bool>>,
    /// Objects in object streams: id -> (stream id, index).
    pub(crate) objstm: HashMap<i64, (i64, i64)>,
    /// The merged trailer.
    pub(crate) trailer: Dict,
    /// The first object number of a table that does not start at 0.
    pub(crate) xref_index: i64,
    /// Every object read, and every failure to read one: each is read once.
    cache: RefCell<HashMap<(i64, i64), Result<Object>>>,
    resolving: RefCell<HashSet<(i64, i64)>>,
    offsets: RefCell<Option<BTreeSet<usize>>>,
    /// Where each `id gen obj` header first appears, built on the first search.
    headers: RefCell<Option<HashMap<(i64, i64), usize>>>,
    /// For a broken table line: where `N G obj` first matches each N (built on demand).
    pub(crate) generations: RefCell<Option<HashMap<i64, (usize, i64)>>>,
    /// Fonts built from a referenced font dictionary, by reference.
    pub(crate) fonts: RefCell<HashMap<(i64, i64), super::font::Font>>,
    /// What stream decoding may still produce.
    pub(crate) budget: Budget,
    /// Form XObjects read so far (bounded: forms calling forms multiply).
    pub(crate) forms_read: std::cell::Cell<usize>,
}

impl<'a> Document<'a> {
    /// An empty model over the bytes.
    pub(crate) fn new(data: &'a [u8], max_inflated_bytes: u64) -> Self {
        let file_bytes = data.len() as u64;
        Document {
            data,
            xref: HashMap::new(),
            free: HashMap::new(),
            objstm: HashMap::new(),
            trailer: Dict::default(),
            xref_index: 0,
            cache: RefCell::new(HashMap::new()),
            resolving: RefCell::new(HashSet::new()),
            offsets: RefCell::new(None),
            headers: RefCell::new(None),
            generations: RefCell::new(None),
            fonts: RefCell::new(HashMap::new()),
            budget: Budget::new(max_inflated_bytes, file_bytes),
            forms_read: std::cell::Cell::new(0),
        }
    }

    /// Caches an object read while the table was built (an xref stream).
    pub(crate) fn cache_object(&self, gen: i64, id: i64, obj: Object) {
        self.cache.borrow_mut().insert((gen, id), Ok(obj));
    }

    /// Takes `units` of work from the document's budget (see [`Budget::work`]).
    pub(crate) fn work(&self, units: usize) -> Result<()> {
        self.budget.work(units as u64)
    }

    /// The object `id gen R`, resolved (`IndirectObject.get_object()`).
    pub(crate) fn get(&self, id: i64, gen: i64) -> Result<Object> {
        let mut obj = self.get_one(id, gen)?;
        let mut hops = 0;
        while let Object::Ref(i, g) = obj {
            hops += 1;
            if hops > MAX_RESOLVE_DEPTH {
                return fail(format!("object {id} {gen} is a cycle of references"));
            }
            obj = self.get_one(i, g)?;
        }
        Ok(obj)
    }

    /// Resolves a value that may be a reference.
    pub(crate) fn resolve(&self, obj: &Object) -> Result<Object> {
        match obj {
            Object::Ref(id, gen) => self.get(*id, *gen),
            other => Ok(other.clone()),
        }
    }

    /// `dict[key]`: the value resolved, or `None` when the key is missing.
    pub(crate) fn key(&self, dict: &Dict, key: &str) -> Result<Option<Object>> {
        dict.get(key).map(|v| self.resolve(v)).transpose()
    }

    /// `dict[key]` where PyPDF2 would raise `KeyError` when it is missing.
    pub(crate) fn must(&self, dict: &Dict, key: &str) -> Result<Object> {
        match self.key(dict, key)? {
            Some(v) => Ok(v),
            None => fail(format!("missing key {key}")),
        }
    }

    fn get_one(&self, id: i64, gen: i64) -> Result<Object> {
        if let Some(hit) = self.cache.borrow().get(&(gen, id)) {
            return hit.clone();
        }
        if !self.resolving.borrow_mut().insert((gen, id)) {
            return fail(format!(
                "object {id} {gen} refers to itself while being read"
            ));
        }
        if self.resolving.borrow().len() > MAX_RESOLVE_DEPTH {
            self.resolving.borrow_mut().remove(&(gen, id));
            return fail("objects nested through too many references");
        }
        let read = self.read_indirect(id, gen);
        self.resolving.borrow_mut().remove(&(gen, id));
        // A failure is kept too: an object that cannot be read is not read again.
        self.cache.borrow_mut().insert((gen, id), read.clone());
        read
    }

    /// `PdfReader.get_object` without the cache.
    fn read_indirect(&self, id: i64, gen: i64) -> Result<Object> {
        if gen == 0 {
            if let Some(&(stm, idx)) = self.objstm.get(&id) {
                return self.read_from_object_stream(id, stm, idx);
            }
        }
        if let Some(&offset) = self.xref.get(&gen).and_then(|t| t.get(&id)) {
            if self
                .free
                .get(&gen)
                .and_then(|t| t.get(&id))
                .copied()
                .unwrap_or(false)
            {
                return Ok(Object::Null);
            }
            let mut cur = Cursor::new(self.data, usize::try_from(offset).unwrap_or(usize::MAX));
            if read_object_header(&mut cur).is_none() {
                match self.find_object(id, gen)? {
                    Some(at) => {
                        cur.pos = at;
                        if read_object_header(&mut cur).is_none() {
                            return fail(format!("object {id} {gen} header unreadable"));
                        }
                    }
                    None => {
                        // idnum = -1: PyPDF2 (not strict) reads whatever is there.
                        cur.pos = usize::try_from(offset).unwrap_or(usize::MAX);
                    }
                }
            }
            return self.read_at(&mut cur);
        }
        match self.find_object(id, gen)? {
            Some(at) => {
                // seek(m.end() + 1), skip_over_whitespace, seek(-1)
                let end = header_end(self.data, at);
                let mut cur = Cursor::new(self.data, end + 1);
                while cur.peek().is_some_and(lexer::is_pdf_whitespace) {
                    cur.pos += 1;
                }
                self.read_at(&mut cur)
            }
            None => Ok(Object::Null),
        }
    }

    /// `_get_object_from_stream`.
    fn read_from_object_stream(&self, id: i64, stm: i64, idx: i64) -> Result<Object> {
        let obj = self.get(stm, 0)?;
        let Object::Stream(stream) = obj else {
            return fail(format!("object stream {stm} is not a stream"));
        };
        if self
            .key(&stream.dict, "/Type")?
            .as_ref()
            .and_then(Object::as_name)
            != Some("/ObjStm")
        {
            return fail(format!("object stream {stm} is not of type /ObjStm"));
        }
        let n = self.must(&stream.dict, "/N")?.as_int().unwrap_or(0);
        if idx >= n {
            return fail(format!(
                "object {id} is past the end of object stream {stm}"
            ));
        }
        let data = self.stream_data(&stream)?;
        let first = self.must(&stream.dict, "/First")?.as_int().unwrap_or(0);
        let mut cur = Cursor::new(&data, 0);
        for _ in 0..n {
            cur.skip_whitespace();
            let num = lexer::read_object(&mut cur, None)?;
            cur.skip_whitespace();
            let offset = lexer::read_object(&mut cur, None)?;
            cur.skip_whitespace();
            if num.as_int() != Some(id) {
                continue;
            }
            let at = first.saturating_add(offset.as_int().unwrap_or(0));
            let mut obj_cur = Cursor::new(&data, usize::try_from(at).unwrap_or(usize::MAX));
            obj_cur.skip_whitespace();
            return match lexer::read_object(&mut obj_cur, Some(self)) {
                Ok(obj) => Ok(obj),
                Err(e) if e.reason() == Some("Stream has ended unexpectedly") => Ok(Object::Null),
                Err(e) => Err(e),
            };
        }
        Ok(Object::Null)
    }

    /// `stream.get_data()`: the decoded bytes, decoded once.
    pub(crate) fn stream_data(&self, stream: &Stream) -> Result<Rc<[u8]>> {
        stream
            .decoded
            .get_or_init(|| self.decode_stream(stream))
            .clone()
    }

    fn decode_stream(&self, stream: &Stream) -> Result<Rc<[u8]>> {
        let filters = match stream.dict.get("/Filter") {
            None => Vec::new(),
            Some(f) => match self.resolve(f)? {
                Object::Array(items) => (*items).clone(),
                Object::Null => Vec::new(),
                other => vec![other],
            },
        };
        if filters.is_empty() {
            return Ok(stream.raw.clone());
        }
        // `stream.get("/DecodeParms")` does not resolve a reference (PyPDF2 then ignores it).
        let parms_obj = stream.dict.get("/DecodeParms").cloned();
        let parms = match &parms_obj {
            Some(Object::Dict(d)) => Parms::One(d),
            Some(Object::Array(items)) => Parms::Many(items),
            _ => Parms::None,
        };
        filters::decode(&filters, parms, &stream.raw, &self.budget).map(Rc::from)
    }

    /// Every offset the table lists, sorted (for `get_next_obj_pos`).
    fn sorted_offsets(&self) -> std::cell::Ref<'_, Option<BTreeSet<usize>>> {
        if self.offsets.borrow().is_none() {
            let set = self
                .xref
                .values()
                .flat_map(|t| t.values())
                .filter_map(|&o| usize::try_from(o).ok())
                .collect();
            *self.offsets.borrow_mut() = Some(set);
        }
        self.offsets.borrow()
    }

    /// One object at the cursor, its bytes charged to the work budget (an
    /// object is read once, but many table entries may point into one body).
    fn read_at(&self, cur: &mut Cursor<'_>) -> Result<Object> {
        let start = cur.pos;
        let read = lexer::read_object(cur, Some(self));
        self.work(cur.pos.saturating_sub(start))?;
        read
    }

    /// `re.search(rf"\s{id}\s+{gen}\s+obj")`: the offset just after the
    /// leading blank. Every header is indexed on the first search, so a file
    /// whose table is wrong everywhere is scanned once, not once per object.
    fn find_object(&self, id: i64, gen: i64) -> Result<Option<usize>> {
        if self.headers.borrow().is_none() {
            self.work(self.data.len())?;
            *self.headers.borrow_mut() = Some(index_headers(self.data));
        }
        Ok(self
            .headers
            .borrow()
            .as_ref()
            .and_then(|h| h.get(&(id, gen)).copied()))
    }

    /// Forgets the sorted offsets after the table changed.
    pub(crate) fn table_changed(&self) {
        *self.offsets.borrow_mut() = None;
    }
}

impl Resolver for Document<'_> {
    fn resolve_ref(&self, id: i64, gen: i64) -> Result<Object> {
        // `pdf.get_object(length)`: one level, as PyPDF2 does.
        self.get_one(id, gen)
    }

    fn next_object_offset(&self, pos: usize) -> usize {
        // PyPDF2's 2**32 when no object follows; a 32-bit usize (wasm32) caps it at its maximum.
        let none_after = usize::try_from(1u64 << 32).unwrap_or(usize::MAX);
        let offsets = self.sorted_offsets();
        offsets
            .as_ref()
            .and_then(|s| s.range(pos + 1..).next().copied())
            .unwrap_or(none_after)
            .min(none_after)
    }
}

/// `read_object_header`: `id gen obj` with PyPDF2's tolerance for stray
/// blanks and a comment first; leaves the cursor at the object. `None` when
/// the numbers do not parse (PyPDF2's `int()` raising).
pub(crate) fn read_object_header(cur: &mut Cursor<'_>) -> Option<(i64, i64)> {
    if cur.peek() == Some(b'%') {
        while let Some(b) = cur.next() {
            if b == b'\n' || b == b'\r' {
                break;
            }
        }
    }
    skip_over_whitespace(cur);
    let id = cur.until(lexer::is_py_space, true).ok()?.to_vec();
    cur.next();
    skip_over_whitespace(cur);
    let gen = cur.until(lexer::is_py_space, true).ok()?.to_vec();
    cur.next();
    skip_over_whitespace(cur);
    cur.take(3);
    cur.skip_whitespace();
    let id = python_int_str(&id)?;
    let gen = python_int_str(&gen)?;
    Some((id, gen))
}

/// `skip_over_whitespace` then `seek(-1, 1)`.
fn skip_over_whitespace(cur: &mut Cursor<'_>) {
    cur.skip_whitespace();
}

/// Python's `int(bytes)` (surrounding blanks allowed).
pub(crate) fn python_int_str(text: &[u8]) -> Option<i64> {
    let t = text.trim_ascii();
    lexer::python_int(t)
}

/// Every `\s{id}\s+{gen}\s+obj` in the file, the first offset of each
/// (just after the leading blank), keyed by the numbers as Python prints them.
fn index_headers(data: &[u8]) -> HashMap<(i64, i64), usize> {
    let number = |b: u8| b.is_ascii_digit() || b == b'-';
    let mut out = HashMap::new();
    for at in memchr::memmem::find_iter(data, b"obj") {
        let mut j = at;
        let blanks = |j: &mut usize| {
            let s = *j;
            while *j > 0 && lexer::is_py_space(data[*j - 1]) {
                *j -= 1;
            }
            *j < s
        };
        let token = |j: &mut usize| {
            let e = *j;
            while *j > 0 && number(data[*j - 1]) {
                *j -= 1;
            }
            (*j < e).then(|| canonical_int(&data[*j..e])).flatten()
        };
        if !blanks(&mut j) {
            continue;
        }
        let Some(gen) = token(&mut j) else { continue };
        if !blanks(&mut j) {
            continue;
        }
        let Some(id) = token(&mut j) else { continue };
        if j == 0 || !lexer::is_py_space(data[j - 1]) {
            continue;
        }
        out.entry((id, gen)).or_insert(j);
    }
    out
}

/// The integer whose Python `str()` is exactly `text` (so `07` and `-0` are none).
fn canonical_int(text: &[u8]) -> Option<i64> {
    let v = lexer::python_int(text)?;
    (v.to_string().as_bytes() == text).then_some(v)
}

/// The end of the `id gen obj` match starting at `at`.
fn header_end(data: &[u8], at: usize) -> usize {
    memchr::memmem::find(&data[at..], b"obj").map_or(data.len(), |o| at + o + 3)
}
