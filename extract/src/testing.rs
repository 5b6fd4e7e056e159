//! Test fixtures shared by the text-side tests: inputs that are not UTF-8
//! (texts of many scripts in their legacy codecs, mixed with ASCII words,
//! markup and stray bytes) and a source that answers reads in pieces of
//! varying length, as a host's short reads do.

use crate::source::{Source, SourceError};
use encoding_rs::Encoding;
use proptest::prelude::*;
use proptest::sample::Index;

/// A script's words and the legacy codecs its texts are written in.
struct Script {
    words: &'static [&'static str],
    encodings: Vec<&'static Encoding>,
}

/// The scripts (the codecs are statics, read at run time).
fn scripts() -> Vec<Script> {
    vec![
        Script {
            words: &[
                "我们",
                "中国",
                "数据",
                "文件",
                "报告",
                "分析",
                "系统",
                "服务器",
                "配置",
                "错误",
                "预览",
                "窗口",
                "用户",
                "时间",
                "问题",
                "处理",
                "结果",
                "需要",
                "可以",
                "已经",
                "进行",
                "工作",
                "公司",
                "市场",
                "发展",
                "经济",
                "社会",
                "，",
                "。",
            ],
            encodings: vec![encoding_rs::GBK, encoding_rs::GB18030],
        },
        Script {
            words: &[
                "我們",
                "資料",
                "檔案",
                "報告",
                "分析",
                "系統",
                "伺服器",
                "設定",
                "錯誤",
                "預覽",
                "視窗",
                "使用者",
                "時間",
                "問題",
                "處理",
                "結果",
                "需要",
                "可以",
                "已經",
            ],
            encodings: vec![encoding_rs::BIG5],
        },
        Script {
            words: &[
                "これは",
                "日本語",
                "の",
                "テキスト",
                "です",
                "ファイル",
                "を",
                "確認",
                "して",
                "ください",
                "東京",
                "会議",
                "資料",
                "ありがとう",
                "ございます",
                "ﾊﾝｶｸ",
                "ｶﾀｶﾅ",
                "ﾃｽﾄ",
                "ﾊﾊﾝ",
                "、",
                "。",
            ],
            encodings: vec![encoding_rs::SHIFT_JIS, encoding_rs::EUC_JP],
        },
        Script {
            words: &[
                "한국어",
                "텍스트",
                "확인",
                "테스트",
                "보고서",
                "데이터",
                "파일",
                "문서",
                "서울",
                "안녕하세요",
                "감사합니다",
            ],
            encodings: vec![encoding_rs::EUC_KR],
        },
        Script {
            words: &[
                "Привет",
                "мир",
                "документ",
                "файл",
                "текст",
                "данные",
                "система",
                "ошибка",
                "отчёт",
                "сервер",
                "пользователь",
                "время",
                "вопрос",
                "работа",
                "компания",
            ],
            encodings: vec![
                encoding_rs::KOI8_R,
                encoding_rs::WINDOWS_1251,
                encoding_rs::IBM866,
                encoding_rs::ISO_8859_5,
                encoding_rs::X_MAC_CYRILLIC,
            ],
        },
        Script {
            words: &[
                "שלום",
                "עולם",
                "מסמך",
                "קובץ",
                "טקסט",
                "נתונים",
                "מערכת",
                "שגיאה",
                "דוח",
                "שרת",
                "משתמש",
                "זמן",
                "שאלה",
                "עבודה",
                "חברה",
                "ספרים",
                "אנחנו",
            ],
            encodings: vec![encoding_rs::WINDOWS_1255, encoding_rs::ISO_8859_8],
        },
        Script {
            words: &[
                "Γεια",
                "σου",
                "κόσμε",
                "έγγραφο",
                "αρχείο",
                "κείμενο",
                "δεδομένα",
                "σύστημα",
                "σφάλμα",
                "αναφορά",
            ],
            encodings: vec![encoding_rs::ISO_8859_7, encoding_rs::WINDOWS_1253],
        },
        Script {
            words: &[
                "สวัสดี",
                "โลก",
                "เอกสาร",
                "ไฟล์",
                "ข้อความ",
                "ข้อมูล",
                "ระบบ",
                "รายงาน",
            ],
            encodings: vec![encoding_rs::WINDOWS_874],
        },
        Script {
            words: &[
                "café",
                "naïve",
                "résumé",
                "façade",
                "déjà",
                "über",
                "Straße",
                "Größe",
                "Müller",
                "señor",
                "niño",
                "año",
                "Merhaba",
                "dünya",
                "çalışma",
                "şirket",
                "güzel",
                "çiçek",
            ],
            encodings: vec![encoding_rs::WINDOWS_1252, encoding_rs::WINDOWS_1254],
        },
    ]
}

const ASCII_WORDS: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "report",
    "server",
    "error",
    "data",
    "2026-12-01",
    "INFO",
    "id=42",
    "x",
    "a",
];

const SEPARATORS: &[&str] = &[" ", " ", " ", "\n", ", ", ". ", "\t", ""];

const TAGS: &[&str] = &[
    "<p class=\"x\">",
    "</p>",
    "<br/>",
    "<html><body>",
    "</body></html>",
    ">",
    "<",
];

/// Words of one list joined by picked separators.
fn joined(words: &[&str], picks: &[(Index, Index)]) -> String {
    let mut text = String::new();
    for (word, separator) in picks {
        text.push_str(word.get::<&str>(words));
        text.push_str(separator.get::<&str>(SEPARATORS));
    }
    text
}

/// One stretch of an input: a script's text in one of its codecs, ASCII
/// words, markup, or stray bytes.
fn segment() -> impl Strategy<Value = Vec<u8>> {
    let picks = || proptest::collection::vec((any::<Index>(), any::<Index>()), 1..80);
    prop_oneof![
        6 => (any::<Index>(), any::<Index>(), picks()).prop_map(|(script, encoding, picks)| {
            let scripts = scripts();
            let script = script.get(&scripts);
            let encoding = *encoding.get(&script.encodings);
            let text = joined(script.words, &picks);
            let (bytes, _, _) = encoding.encode(&text);
            bytes.into_owned()
        }),
        2 => picks().prop_map(|picks| joined(ASCII_WORDS, &picks).into_bytes()),
        1 => any::<Index>().prop_map(|tag| tag.get(TAGS).as_bytes().to_vec()),
        1 => proptest::collection::vec(0x80u8..=0xFF, 1..6),
        1 => proptest::collection::vec(any::<u8>(), 1..6),
    ]
}

/// A text of one script in one codec, with ASCII words and markup between
/// its stretches (nothing that would stop the codec's own prober).
fn one_script() -> impl Strategy<Value = Vec<u8>> {
    let picks = || proptest::collection::vec((any::<Index>(), any::<Index>()), 1..60);
    let stretch = prop_oneof![
        4 => picks().prop_map(Some),
        1 => picks().prop_map(|p| Some(p.into_iter().take(3).collect())),
        1 => Just(None),
    ];
    (
        any::<Index>(),
        any::<Index>(),
        proptest::collection::vec((stretch, any::<Index>()), 1..10),
    )
        .prop_map(|(script, encoding, stretches)| {
            let scripts = scripts();
            let script = script.get(&scripts);
            let encoding = *encoding.get(&script.encodings);
            let mut text = String::new();
            for (stretch, between) in stretches {
                match stretch {
                    Some(picks) => text.push_str(&joined(script.words, &picks)),
                    None => text.push_str(&joined(ASCII_WORDS, &[(between, between)])),
                }
                text.push_str(between.get::<&str>(TAGS));
            }
            let (bytes, _, _) = encoding.encode(&text);
            bytes.into_owned()
        })
}

/// Inputs that are mostly not UTF-8: one script's text or a mixture of
/// segments, the whole repeated up to 24 times so that the probers'
/// thresholds (a thousand characters or sequences) are crossed as often as not.
pub(crate) fn legacy_text() -> impl Strategy<Value = Vec<u8>> {
    let once = prop_oneof![
        one_script(),
        proptest::collection::vec(segment(), 1..12).prop_map(|segments| segments.concat()),
    ];
    (once, 1usize..=24).prop_map(|(once, times)| once.repeat(times))
}

/// `bytes` cut into pieces of the given sizes, taken in turn (each at least 1).
pub(crate) fn pieces<'a>(bytes: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut turn = sizes.iter().cycle();
    while !rest.is_empty() {
        let size = turn.next().copied().unwrap_or(usize::MAX).max(1);
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        out.push(piece);
        rest = tail;
    }
    out
}

/// A source of `bytes` answering each read with at most `sizes[k]` bytes, the sizes taken in turn.
pub(crate) struct ShortReads<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) sizes: Vec<usize>,
    pub(crate) reads: std::cell::Cell<usize>,
}

impl<'a> ShortReads<'a> {
    /// `bytes`, read in pieces of `sizes` in turn.
    pub(crate) fn new(bytes: &'a [u8], sizes: Vec<usize>) -> Self {
        ShortReads {
            bytes,
            sizes,
            reads: std::cell::Cell::new(0),
        }
    }
}

impl Source for ShortReads<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        let k = self.reads.get();
        self.reads.set(k + 1);
        let size = self
            .sizes
            .get(k % self.sizes.len().max(1))
            .copied()
            .unwrap_or(usize::MAX)
            .max(1);
        let n = buf.len().min(size);
        self.bytes.read_at(offset, &mut buf[..n])
    }
}
