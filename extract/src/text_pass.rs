//! Decoded text read front to back in pieces, as many times as a consumer
//! needs: the plain-text and CSV parsers read an upload this way, so a text
//! far over `MAX_EXTRACTED_TEXT_LENGTH` is never held whole. A first pass
//! counts (lines, headings, rows, code points) and keeps the head; when the
//! strategy's choice needs totals known only at the end, a second pass over
//! the random-access source picks the units kept.
//!
//! [`Utf8Pass`] decodes the source as strict UTF-8 by chunks (a sequence cut
//! by a chunk boundary carried into the next); bytes that are not UTF-8 end
//! the pass with [`PassError::NotUtf8`], and the caller reads the upload
//! through a [`DecodedPass`] instead: decoded as the reference decodes it
//! (chardet's guess, then the fallbacks), chosen and then read by chunks too,
//! so that text is never held whole either (`&str` is a [`TextPass`] too,
//! for a text already in memory).

use crate::csv::CsvError;
use crate::decode::{self, Codec, CodecError, StreamDecoder};
use crate::source::{Source, SourceError, SourceReader, READ_BUFFER_BYTES};
use crate::truncate::StrategyError;
use std::io::{BufRead, Read};
use thiserror::Error;

/// Why a pass over a text stopped.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum PassError {
    /// The upload could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The bytes are not strict UTF-8: decode them as the reference does.
    #[error("the upload is not UTF-8")]
    NotUtf8,
    /// `csv.reader` stopped.
    #[error(transparent)]
    Csv(#[from] CsvError),
    /// The truncation strategy raised (a degenerate limit).
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    /// The codec chosen on an earlier pass refused the bytes of a later one.
    #[error("the upload changed while it was read ({codec} {reason}); pick the file again")]
    Changed {
        /// The codec's name, as the reference spelled it.
        codec: &'static str,
        /// What it refused.
        reason: CodecError,
    },
}

/// A text that can be read front to back, piece by piece, more than once.
pub(crate) trait TextPass {
    /// Hands every piece of the text, in order, to `each`.
    fn pass(&self, each: &mut dyn FnMut(&str) -> Result<(), PassError>) -> Result<(), PassError>;
}

impl TextPass for &str {
    fn pass(&self, each: &mut dyn FnMut(&str) -> Result<(), PassError>) -> Result<(), PassError> {
        each(self)
    }
}

/// A source read as strict UTF-8, one buffer at a time (a BOM kept as U+FEFF, as Python's `utf-8` keeps it).
pub(crate) struct Utf8Pass<'s> {
    source: &'s dyn Source,
}

impl<'s> Utf8Pass<'s> {
    /// The whole of `source`.
    pub(crate) fn new(source: &'s dyn Source) -> Self {
        Utf8Pass { source }
    }
}

impl TextPass for Utf8Pass<'_> {
    fn pass(&self, each: &mut dyn FnMut(&str) -> Result<(), PassError>) -> Result<(), PassError> {
        let mut reader = SourceReader::whole(self.source);
        let mut buf = vec![0u8; READ_BUFFER_BYTES.min(self.source.len() as usize + 4)];
        // `buf[..carried]` is the start of a sequence the last read cut.
        let mut carried = 0;
        loop {
            let n = reader.read(&mut buf[carried..]).map_err(source_error)?;
            if n == 0 {
                return if carried == 0 {
                    Ok(())
                } else {
                    Err(PassError::NotUtf8)
                };
            }
            let filled = carried + n;
            let valid = match std::str::from_utf8(&buf[..filled]) {
                Ok(text) => text.len(),
                // A sequence cut at the end of the buffer: complete it from the next read.
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                Err(_) => return Err(PassError::NotUtf8),
            };
            let text = std::str::from_utf8(&buf[..valid]).map_err(|_| PassError::NotUtf8)?;
            each(text)?;
            buf.copy_within(valid..filled, 0);
            carried = filled - valid;
        }
    }
}

/// Hands every chunk of `source`, in order, to `each` until it answers false.
fn read_chunks(source: &dyn Source, each: &mut dyn FnMut(&[u8]) -> bool) -> Result<(), PassError> {
    let mut reader = SourceReader::whole(source);
    loop {
        let chunk = reader.fill_buf().map_err(source_error)?;
        if chunk.is_empty() || !each(chunk) {
            return Ok(());
        }
        let n = chunk.len();
        reader.consume(n);
    }
}

/// A source that is not UTF-8, decoded as the reference decodes it, one
/// buffer at a time: the codec is chosen by passes over the source
/// ([`decode::choose_by_passes`]), then every pass decodes it by chunks.
pub(crate) struct DecodedPass<'s> {
    source: &'s dyn Source,
    name: &'static str,
    codec: Codec,
}

impl<'s> DecodedPass<'s> {
    /// Chooses the codec of `source` (a detection pass, then a check per candidate).
    pub(crate) fn new(source: &'s dyn Source) -> Result<Self, PassError> {
        let (name, codec) =
            decode::choose_by_passes(&mut |each: &mut dyn FnMut(&[u8]) -> bool| {
                read_chunks(source, each)
            })?;
        Ok(DecodedPass {
            source,
            name,
            codec,
        })
    }

    /// The name that decoded the source, as the reference spelled it.
    #[cfg(test)]
    pub(crate) fn encoding(&self) -> &'static str {
        self.name
    }
}

impl TextPass for DecodedPass<'_> {
    fn pass(&self, each: &mut dyn FnMut(&str) -> Result<(), PassError>) -> Result<(), PassError> {
        let mut decoder = StreamDecoder::new(self.codec);
        let mut text = String::new();
        let mut stopped: Option<PassError> = None;
        let changed = |reason| PassError::Changed {
            codec: self.name,
            reason,
        };
        read_chunks(self.source, &mut |chunk| {
            text.clear();
            let piece = decoder.feed(chunk, &mut text).map_err(changed);
            match piece.and_then(|()| if text.is_empty() { Ok(()) } else { each(&text) }) {
                Ok(()) => true,
                Err(e) => {
                    stopped = Some(e);
                    false
                }
            }
        })?;
        if let Some(e) = stopped {
            return Err(e);
        }
        text.clear();
        decoder.finish(&mut text).map_err(changed)?;
        if text.is_empty() {
            return Ok(());
        }
        each(&text)
    }
}

/// The reader's error back as the source's (a [`SourceReader`] only fails with one).
fn source_error(e: std::io::Error) -> PassError {
    match e.into_inner().map(|inner| inner.downcast::<SourceError>()) {
        Some(Ok(source)) => PassError::Source(*source),
        Some(Err(other)) => PassError::Source(SourceError::Read {
            offset: 0,
            reason: other.to_string(),
        }),
        None => PassError::Source(SourceError::Read {
            offset: 0,
            reason: "the read failed".into(),
        }),
    }
}

/// Code points of a piece.
pub(crate) fn chars_of(piece: &str) -> i64 {
    piece.chars().count() as i64
}

/// `parts.join("\n")` built part by part, keeping only its first `cap` code
/// points but counting them all: what a strategy needs of a result it cuts at
/// the limit.
pub(crate) struct CappedJoin {
    text: String,
    kept_chars: i64,
    total_chars: i64,
    cap: i64,
    parts: usize,
}

impl CappedJoin {
    /// An empty join keeping at most `cap` code points.
    pub(crate) fn new(cap: i64) -> Self {
        CappedJoin {
            text: String::new(),
            kept_chars: 0,
            total_chars: 0,
            cap: cap.max(0),
            parts: 0,
        }
    }

    /// Starts the next part (a `\n` before all but the first) with `piece`.
    pub(crate) fn part(&mut self, piece: &str) {
        if self.parts > 0 {
            self.extend("\n");
        }
        self.parts += 1;
        self.extend(piece);
    }

    /// Appends `piece` to the current part.
    pub(crate) fn extend(&mut self, piece: &str) {
        let room = self.cap - self.kept_chars;
        if room >= piece.len() as i64 {
            let n = chars_of(piece);
            self.text.push_str(piece);
            self.kept_chars += n;
            self.total_chars += n;
            return;
        }
        let end = piece
            .char_indices()
            .nth(room.max(0) as usize)
            .map_or(piece.len(), |(i, _)| i);
        let kept = chars_of(&piece[..end]);
        self.text.push_str(&piece[..end]);
        self.kept_chars += kept;
        self.total_chars += kept + chars_of(&piece[end..]);
    }

    /// The length of the whole join, in code points.
    pub(crate) fn total_chars(&self) -> i64 {
        self.total_chars
    }

    /// The join's first `cap` code points (all of it when it fits).
    pub(crate) fn into_text(self) -> String {
        self.text
    }

    /// The kept text so far.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

/// Splits pieces of a text into its `\n`-separated lines (`str.split('\n')`:
/// the last line counted even when empty), handing each line's pieces and its end.
pub(crate) struct LineSplit {
    index: i64,
    started: bool,
}

/// What [`LineSplit`] reports.
pub(crate) enum LineEvent<'a> {
    /// More of line `index`.
    Piece(i64, &'a str),
    /// Line `index` ended.
    End(i64),
}

impl LineSplit {
    /// Before the first line.
    pub(crate) fn new() -> Self {
        LineSplit {
            index: 0,
            started: false,
        }
    }

    /// Splits `piece`.
    pub(crate) fn feed(
        &mut self,
        piece: &str,
        on: &mut dyn FnMut(LineEvent<'_>) -> Result<(), PassError>,
    ) -> Result<(), PassError> {
        let mut rest = piece;
        while let Some(at) = memchr::memchr(b'\n', rest.as_bytes()) {
            if at > 0 {
                on(LineEvent::Piece(self.index, &rest[..at]))?;
            }
            on(LineEvent::End(self.index))?;
            self.index += 1;
            self.started = false;
            rest = &rest[at + 1..];
        }
        if !rest.is_empty() {
            self.started = true;
            on(LineEvent::Piece(self.index, rest))?;
        }
        Ok(())
    }

    /// Ends the last line; the number of lines.
    pub(crate) fn finish(
        self,
        on: &mut dyn FnMut(LineEvent<'_>) -> Result<(), PassError>,
    ) -> Result<i64, PassError> {
        on(LineEvent::End(self.index))?;
        Ok(self.index + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{legacy_text, ShortReads};

    /// A source that answers at most 5 bytes a read, to cut every sequence.
    struct Dribble<'a>(&'a [u8]);

    impl Source for Dribble<'_> {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
            let n = self.0.read_at(offset, buf)?;
            Ok(n.min(5))
        }
    }

    fn collect(pass: &dyn TextPass) -> Result<String, PassError> {
        let mut out = String::new();
        pass.pass(&mut |piece| {
            out.push_str(piece);
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn utf8_read_in_cut_pieces_is_the_same_text() {
        let text = "\u{FEFF}héllo wörld 注释 🦀\n".repeat(50);
        assert_eq!(collect(&Utf8Pass::new(&Dribble(text.as_bytes()))), Ok(text));
    }

    #[test]
    fn bytes_that_are_not_utf8_end_the_pass() {
        assert_eq!(
            collect(&Utf8Pass::new(&Dribble(b"caf\xe9 au lait"))),
            Err(PassError::NotUtf8)
        );
        assert_eq!(
            collect(&Utf8Pass::new(&Dribble(b"cut at the end \xe6\xb3"))),
            Err(PassError::NotUtf8)
        );
    }

    /// Bytes that are not UTF-8 read through a source in pieces of `sizes`:
    /// the name and text of [`decode::decode_with`] on the whole.
    fn decoded_in_pieces(bytes: &[u8], sizes: Vec<usize>) -> (&'static str, String) {
        let source = ShortReads::new(bytes, sizes);
        let pass = DecodedPass::new(&source).expect("a source in memory reads");
        let text = collect(&pass).expect("the chosen codec decodes every pass");
        (pass.encoding(), text)
    }

    #[test]
    fn legacy_texts_are_decoded_by_pieces_as_whole() {
        let gbk = "# 注释 数据文件报告\n".repeat(40);
        let (gbk, _, _) = encoding_rs::GBK.encode(&gbk);
        let big5 = "我們的資料檔案報告分析系統，伺服器設定錯誤。".repeat(50);
        let (big5, _, _) = encoding_rs::BIG5.encode(&big5);
        let latin: &[u8] = b"caf\xe9 \xff";
        let four: &[u8] = b"\x81\x30\x81\x30 gb18030 four";
        for bytes in [&gbk[..], &big5[..], latin, four] {
            let whole = decode::decode_with(bytes);
            for sizes in [vec![1], vec![2], vec![3, 5], vec![4096]] {
                assert_eq!(
                    decoded_in_pieces(bytes, sizes),
                    (whole.encoding.expect("not UTF-8"), whole.text.clone())
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        #[test]
        fn a_decode_by_pieces_picks_and_reads_as_the_whole_decode(
            bytes in legacy_text(),
            sizes in proptest::collection::vec(1usize..=4096, 1..6),
        ) {
            proptest::prop_assume!(std::str::from_utf8(&bytes).is_err());
            let whole = decode::decode_with(&bytes);
            let streamed = decoded_in_pieces(&bytes, sizes);
            proptest::prop_assert_eq!(Some(streamed.0), whole.encoding);
            proptest::prop_assert!(streamed.1 == whole.text, "the texts differ");
        }
    }

    #[test]
    fn a_capped_join_keeps_the_head_and_counts_the_whole() {
        let mut join = CappedJoin::new(7);
        join.part("héllo");
        join.part("wörld");
        join.extend("!");
        assert_eq!(join.total_chars(), 12);
        assert_eq!(join.into_text(), "héllo\nw");
        let mut fits = CappedJoin::new(100);
        fits.part("a");
        fits.part("");
        assert_eq!(fits.total_chars(), 2);
        assert_eq!(fits.into_text(), "a\n");
    }

    #[test]
    fn lines_split_as_python_splits_at_newlines() {
        let mut lines: Vec<String> = vec![String::new()];
        let mut split = LineSplit::new();
        let mut on = |e: LineEvent<'_>| {
            match e {
                LineEvent::Piece(i, p) => lines[i as usize].push_str(p),
                LineEvent::End(_) => lines.push(String::new()),
            }
            Ok(())
        };
        for piece in ["ab", "c\n", "\nd", "e\n"] {
            split.feed(piece, &mut on).expect("no error");
        }
        let total = split.finish(&mut on).expect("no error");
        lines.pop();
        assert_eq!(total, 4);
        assert_eq!(lines, "abc\n\nde\n".split('\n').collect::<Vec<_>>());
    }
}
