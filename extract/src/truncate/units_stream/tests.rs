//! The stream against the whole-list strategy, on random documents.

use super::*;
use crate::truncate::units;

/// A document as a parser reads it: `(segment, text)` in reading order.
type Reading = Vec<(usize, String)>;

/// The whole list the reference cuts: every unit of segment 0, then of segment 1.
fn whole_list(reading: &Reading) -> Vec<String> {
    let mut list: Vec<String> = Vec::new();
    for segment in 0..2 {
        list.extend(
            reading
                .iter()
                .filter(|(s, _)| *s == segment)
                .map(|(_, t)| t.clone()),
        );
    }
    list
}

/// The streamed cut, and how many reads it took.
fn streamed(unit: Unit, reading: &Reading, max: i64) -> (Result<Truncated, StrategyError>, u32) {
    let mut reads = 0;
    let mut read = |sink: &mut dyn UnitSink| -> Result<(), StrategyError> {
        reads += 1;
        for (segment, text) in reading {
            sink.unit(*segment, text);
        }
        Ok(())
    };
    let cut = units_streamed(unit, max, 2, &mut read, |e| e);
    (cut, reads)
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Units of uneven lengths (some multi-byte, some empty), in runs whose
/// lengths change along the document (so the tail may be far longer than
/// the average), from two interleaved segments.
fn document(rng: &mut Rng) -> Reading {
    // One document in two ends in a few units of the last segment far
    // longer than the rest (a tail longer than the ring), after many short ones.
    let long_end = rng.below(2) == 0;
    let count = rng.below(if long_end { 400 } else { 120 }) as usize;
    let mut scale = 1 + rng.below(if long_end { 8 } else { 40 }) as usize;
    let long_from = if long_end {
        count.saturating_sub(2 + rng.below(8) as usize)
    } else {
        count
    };
    (0..count)
        .map(|i| {
            if rng.below(25) == 0 {
                let range = if rng.below(3) == 0 { 400 } else { 40 };
                scale = 1 + rng.below(range) as usize;
            }
            if i == long_from {
                scale *= 100 + rng.below(300) as usize;
            }
            let segment = usize::from(i >= long_from || rng.below(3) == 0);
            let width = rng.below(scale as u64 * 2) as usize;
            let text = match rng.below(6) {
                0 => String::new(),
                1 => "é中".repeat(width / 2 + 1),
                _ => format!("{i}{}", "x".repeat(width)),
            };
            (segment, text)
        })
        .collect()
}

#[test]
fn the_stream_cuts_exactly_as_the_whole_list_does() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut rereads = 0;
    let mut cases = 0;
    for round in 0..600 {
        let reading = document(&mut rng);
        let list = whole_list(&reading);
        let unit = [Unit::Paragraph, Unit::Slide, Unit::Page][round % 3];
        for max in [0, -5, -1, 1, 50, 150, 201, 260, 400, 900, 3_000, 20_000] {
            let max = if round % 2 == 0 {
                max
            } else {
                max + rng.below(60) as i64
            };
            let (cut, reads) = streamed(unit, &reading, max);
            assert_eq!(
                cut,
                units(unit, &list, max),
                "round {round}, {unit:?}, max {max}"
            );
            assert!(reads <= 2);
            rereads += u32::from(reads == 2);
            cases += 1;
        }
        let (cut, _) = streamed(unit, &reading, i64::MAX);
        assert_eq!(cut, units(unit, &list, i64::MAX), "round {round}, no limit");
    }
    // Both paths are exercised: the kept head and ring, and the second read.
    assert!(rereads > 20, "{rereads} second reads of {cases}");
    assert!(rereads < cases / 4, "{rereads} second reads of {cases}");
}

#[test]
fn a_long_document_keeps_a_bounded_share() {
    let mut stream = UnitsStream::new(Unit::Paragraph, 1_000, 2);
    for i in 0..200_000 {
        stream.unit(i % 2, &format!("{i} {}", "v".repeat(i % 300)));
    }
    let kept: usize = stream
        .segments
        .iter()
        .map(|s| {
            s.head.iter().map(|u| u.len()).sum::<usize>()
                + s.ring.iter().map(|u| u.0.len()).sum::<usize>()
        })
        .sum();
    // Per segment: a head under the limit plus one unit, a ring of twice the limit plus one unit.
    assert!(kept <= 2 * (3 * 1_001 + 2 * 1_001), "{kept} bytes kept");
    let (text, info) = stream
        .finish()
        .expect("a limit of 1000 divides")
        .ok()
        .expect("the ring holds the tail of even units");
    assert!(chars::len(&text) <= 1_000);
    assert_eq!(info.original_structure["total_paragraphs"], 200_000);
}

#[test]
fn a_tail_longer_than_the_ring_is_found_by_a_second_read() {
    // Many short units, then long ones: the tail shown reaches past the ring.
    let mut reading: Reading = (0..2_000).map(|i| (0, format!("p{i}"))).collect();
    reading.extend((0..40).map(|i| (1, format!("{i}{}", "row ".repeat(400)))));
    let (cut, reads) = streamed(Unit::Paragraph, &reading, 3_000);
    assert_eq!(reads, 2);
    assert_eq!(cut, units(Unit::Paragraph, &whole_list(&reading), 3_000));
}
