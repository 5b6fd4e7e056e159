//! The token counter for each encoding (o200k, cl100k, p50k, r50k): core's
//! own BPE engine against tiktoken-rs. Input: UTF-8 text.
//!
//! Properties: no input panics; for every encoding the token ids equal
//! tiktoken-rs's `encode_ordinary` (special-token text is plain text), the
//! count equals their number, and decoding them gives the text back.

use crate::input;
use crate::oracle;

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(text) = input::text(data) else {
        return;
    };
    for (encoding, bpe) in oracle::encodings() {
        let counter = oracle::counter(encoding);
        let ours = counter.encode(text);
        let theirs = bpe.encode_ordinary(text);
        if ours != theirs {
            let at = ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
            panic!(
                "{encoding:?} differs from tiktoken-rs at token {at}: ours {:?}, tiktoken-rs {:?}",
                &ours[at..(at + 8).min(ours.len())],
                &theirs[at..(at + 8).min(theirs.len())]
            );
        }
        assert_eq!(counter.count_text(text), theirs.len() as i64, "{encoding:?}: count");
        assert_eq!(counter.decode_lossy(&ours), text, "{encoding:?}: decode");
    }
}
