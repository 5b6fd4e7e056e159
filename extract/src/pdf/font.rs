//! A font as PyPDF2 3.0.1's `build_char_map` sees it: its encoding (a codec
//! name or a byte table with `/Differences` applied), its `/ToUnicode` map,
//! and half the width of its space, the threshold for a `TJ` gap to become a
//! space. Quirks kept: `/StandardEncoding` is unknown (the table is spelt
//! `/StandardCoding`), a glyph name missing from the list is inserted as
//! text, `/W` ranges `c1 c2 w` stop before `c2`, and a standard font without
//! `/Encoding` takes its space width as its space code.

use super::cmap::{self, ToUnicode};
use super::document::Document;
use super::encoding::{self, Encoding};
use super::error::{fail, Result};
use super::object::{Dict, Object};
use std::rc::Rc;

/// What the text path needs of one font.
#[derive(Debug, Clone)]
pub(crate) struct Font {
    /// Half the space width, in thousandths of the font size.
    pub(crate) space_width: f64,
    /// How bytes become characters.
    pub(crate) encoding: Rc<Encoding>,
    /// The `/ToUnicode` map (empty when the font has none).
    pub(crate) map: Rc<ToUnicode>,
}

impl Font {
    /// `unknown_char_map`: a font the resources do not name.
    pub(crate) fn unknown() -> Font {
        Font {
            space_width: 9999.0,
            encoding: Rc::new(Encoding::Table(
                vec![Some("\u{FFFD}".to_string()); 256].into(),
            )),
            map: Rc::new(ToUnicode::default()),
        }
    }

    /// The state before any `Tf`: Latin-1, no map, a 500 space width.
    pub(crate) fn initial() -> Font {
        Font {
            space_width: 500.0,
            encoding: Rc::new(Encoding::Codec("charmap".into())),
            map: Rc::new(ToUnicode::default()),
        }
    }
}

/// `_default_fonts_space_width` (PyPDF2 spells Courier `/Courrier`).
fn default_space_width(base: &str) -> Option<f64> {
    Some(match base {
        "/Courrier" | "/Courier-Bold" | "/Courier-BoldOblique" | "/Courier-Oblique" => 600.0,
        "/Helvetica" | "/Helvetica-Bold" | "/Helvetica-BoldOblique" | "/Helvetica-Oblique" => 278.0,
        "/Helvetica-Narrow"
        | "/Helvetica-NarrowBold"
        | "/Helvetica-NarrowBoldOblique"
        | "/Helvetica-NarrowOblique" => 228.0,
        "/Times-Roman" | "/Times-Bold" | "/Times-BoldItalic" | "/Times-Italic" | "/Symbol" => 250.0,
        "/ZapfDingbats" => 278.0,
        _ => return None,
    })
}

/// The space code before and after the encoding: an integer, or a key of the map.
enum SpaceCode {
    Int(i64),
    Key(String),
}

/// `build_char_map(font_name, 200, obj)` for the font dictionary `ft`.
pub(crate) fn build(doc: &Document<'_>, ft_obj: &Object) -> Result<Font> {
    let Some(ft) = ft_obj.as_dict() else {
        return fail(format!(
            "a font resource is a {}, not a dictionary",
            ft_obj.kind()
        ));
    };
    let subtype = doc.must(ft, "/Subtype")?;
    let base_font = doc.key(ft, "/BaseFont")?;
    let base_name = base_font
        .as_ref()
        .and_then(Object::as_name)
        .map(str::to_owned);
    let (mut enc, space) = parse_encoding(doc, ft, &subtype, base_name.as_deref())?;
    let map_rc = parse_to_unicode(doc, ft)?;
    let map = &*map_rc;
    let mut space = space;
    if let Some(k) = map.space_key() {
        space = SpaceCode::Key(k.to_string());
    }
    let enc = match &mut enc {
        Enc::Empty => {
            if map.code_bytes.is_none_or(|n| n == 1) {
                Encoding::Codec("charmap".into())
            } else {
                Encoding::Codec("utf-16-be".into())
            }
        }
        Enc::Codec(c) => Encoding::Codec(c.clone()),
        Enc::Table(t) => {
            for &x in &map.codes {
                if x <= 255 {
                    t[x as usize] = Some(char::from(x as u8).to_string());
                }
            }
            Encoding::Table(std::mem::take(t).into())
        }
    };
    let default_width = base_name
        .as_deref()
        .and_then(default_space_width)
        .unwrap_or(200.0);
    let sp = match space {
        SpaceCode::Int(i) => i,
        SpaceCode::Key(k) => {
            let mut chars = k.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if (c as u32) < 256 => i64::from(c as u32),
                (Some(c), None) => {
                    // `.encode("utf-16-be")`, then `sp[0] + 256 * sp[1]`.
                    let mut units = [0u16; 2];
                    let u = c.encode_utf16(&mut units);
                    let b = u[0].to_be_bytes();
                    i64::from(b[0]) + 256 * i64::from(b[1])
                }
                _ => {
                    let bytes: Vec<u8> = k.chars().map(|c| (c as u32).min(255) as u8).collect();
                    i64::from(bytes.first().copied().unwrap_or(32))
                }
            }
        }
    };
    let sp_width = compute_space_width(doc, ft, sp, default_width)?;
    Ok(Font {
        space_width: sp_width / 2.0,
        encoding: Rc::new(enc),
        map: Rc::clone(&map_rc),
    })
}

/// `parse_encoding`'s result before the map is known.
enum Enc {
    /// `""`: decided by the map's code width.
    Empty,
    /// A codec name.
    Codec(String),
    /// A 256-entry (or longer, with `/Differences` past 255 on a dict) table.
    Table(Vec<Option<String>>),
}

fn parse_encoding(
    doc: &Document<'_>,
    ft: &Dict,
    subtype: &Object,
    base: Option<&str>,
) -> Result<(Enc, SpaceCode)> {
    let Some(enc_obj) = doc.key(ft, "/Encoding")? else {
        if let Some(width) = base.and_then(default_space_width) {
            let enc = match base.and_then(encoding::named_table) {
                Some(t) => Enc::Table(encoding::table_of(t).into_vec()),
                None => Enc::Codec("charmap".into()),
            };
            // PyPDF2 returns the width where the space code belongs.
            return Ok((enc, SpaceCode::Int(width as i64)));
        }
        let enc = if subtype.as_name() == Some("/Type1") {
            Enc::Codec("charmap".into())
        } else {
            Enc::Empty
        };
        return Ok((enc, SpaceCode::Int(32)));
    };
    // PyPDF2 compares the glyph *name* with " " here, so the space code never moves.
    let space = SpaceCode::Int(32);
    let mut table: Enc = match &enc_obj {
        Object::Name(name) => {
            if let Some(t) = encoding::named_table(name) {
                Enc::Table(encoding::table_of(t).into_vec())
            } else if let Some(codec) = encoding::predefined_cmap(name) {
                Enc::Codec(codec.into())
            } else {
                Enc::Codec(name.to_string())
            }
        }
        Object::Dict(d) if d.contains("/BaseEncoding") => {
            let base = doc.must(d, "/BaseEncoding")?;
            let t = base
                .as_name()
                .and_then(encoding::named_table)
                .unwrap_or(&super::tables::STANDARD);
            Enc::Table(encoding::table_of(t).into_vec())
        }
        _ => Enc::Table(encoding::table_of(&super::tables::STANDARD).into_vec()),
    };
    let differences = match enc_obj.as_dict() {
        Some(d) if d.contains("/Differences") => Some(doc.must(d, "/Differences")?),
        Some(_) => None,
        None => match &enc_obj {
            Object::Name(n) if n.contains("/Differences") => {
                return fail("string indices must be integers (/Encoding)")
            }
            Object::Name(_) | Object::Array(_) | Object::Str(_) => None,
            other => return fail(format!("a font /Encoding is a {}", other.kind())),
        },
    };
    if let Some(diff) = differences {
        let Object::Array(items) = diff else {
            return fail("/Differences is not an array");
        };
        doc.work(items.len())?;
        let Enc::Table(t) = &mut table else {
            return fail("/Differences on a codec encoding");
        };
        let mut x: i64 = 0;
        for o in items.iter() {
            match o {
                Object::Int(i) => x = *i,
                other => {
                    let text = match other {
                        Object::Name(n) => {
                            encoding::glyph(n).map_or_else(|| n.to_string(), str::to_string)
                        }
                        Object::Real(r) => r.to_string(),
                        _ => String::new(),
                    };
                    let len = t.len() as i64;
                    let idx = if x < 0 { x + len } else { x };
                    if idx < 0 || idx >= len {
                        return fail("list assignment index out of range (/Differences)");
                    }
                    t[idx as usize] = Some(text);
                    x += 1;
                }
            }
        }
    }
    Ok((table, space))
}

/// The font's `/ToUnicode` map; a stream is parsed once, however many
/// fonts, pages and forms name it, its decoded bytes charged as work.
fn parse_to_unicode(doc: &Document<'_>, ft: &Dict) -> Result<Rc<ToUnicode>> {
    let Some(tu) = doc.key(ft, "/ToUnicode")? else {
        return Ok(Rc::new(ToUnicode::default()));
    };
    match &tu {
        Object::Stream(s) => s
            .to_unicode
            .get_or_init(|| {
                let data = doc.stream_data(s)?;
                doc.work(data.len())?;
                cmap::parse(&data).map(Rc::new)
            })
            .clone(),
        Object::Name(n) if n.starts_with("/Identity") => cmap::parse(cmap::IDENTITY).map(Rc::new),
        other => fail(format!("a /ToUnicode is a {}, not a stream", other.kind())),
    }
}

/// `compute_space_width`.
fn compute_space_width(doc: &Document<'_>, ft: &Dict, space: i64, default: f64) -> Result<f64> {
    let num = |o: &Object| -> Result<f64> {
        match o.as_number() {
            Some(v) => Ok(v),
            None => fail(format!("a font width is a {}", o.kind())),
        }
    };
    if let Some(desc) = doc.key(ft, "/DescendantFonts")? {
        let first = match &desc {
            Object::Array(a) => match a.first() {
                Some(f) => doc.resolve(f)?,
                None => return fail("list index out of range (/DescendantFonts)"),
            },
            other => return fail(format!("/DescendantFonts is a {}", other.kind())),
        };
        let Some(ft1) = first.as_dict() else {
            return fail("a descendant font is not a dictionary");
        };
        let dw = doc.key(ft1, "/DW")?;
        let mut found: Option<Object> = None;
        if let Some(w) = doc.key(ft1, "/W")? {
            let Object::Array(w) = w else {
                return fail("/W is not an array");
            };
            doc.work(w.len())?;
            let mut i = 0;
            while i < w.len() {
                let Some(second) = w.get(i + 1) else {
                    return fail("list index out of range (/W)");
                };
                match second {
                    Object::Int(end) => {
                        let Some(st) = w[i].as_int() else {
                            return fail("a /W range does not start with an integer");
                        };
                        let Some(width) = w.get(i + 2) else {
                            return fail("list index out of range (/W)");
                        };
                        if st <= space && space < *end {
                            found = Some(width.clone());
                        }
                        i += 3;
                    }
                    Object::Array(ws) => {
                        let Some(st) = w[i].as_int() else {
                            return fail("a /W list does not start with an integer");
                        };
                        if let Some(v) = usize::try_from(space - st).ok().and_then(|k| ws.get(k)) {
                            found = Some(v.clone());
                        }
                        i += 2;
                    }
                    _ => break,
                }
            }
        }
        return match found {
            Some(v) => num(&v),
            None => match dw {
                None => Ok(500.0),
                Some(Object::Int(d)) => Ok(d as f64 / 2.0),
                Some(Object::Real(_)) => {
                    fail("unsupported operand type(s) for /: 'FloatObject' and 'float'")
                }
                Some(other) => fail(format!("/DW is a {}", other.kind())),
            },
        };
    }
    let Some(widths) = doc.key(ft, "/Widths")? else {
        return Ok(default * 2.0);
    };
    let Object::Array(w) = widths else {
        return fail("/Widths is not an array");
    };
    doc.work(w.len())?;
    let direct = (|| -> Result<Option<f64>> {
        let (Some(st), Some(en)) = (doc.key(ft, "/FirstChar")?, doc.key(ft, "/LastChar")?) else {
            return Ok(None);
        };
        let (Some(st), Some(en)) = (st.as_number(), en.as_number()) else {
            return Ok(None);
        };
        let sc = space as f64;
        if st > sc || en < sc {
            return Ok(None);
        }
        let Some(v) = w.get((sc - st) as usize) else {
            return Ok(None);
        };
        match v.as_number() {
            Some(0.0) => Ok(None),
            Some(x) => Ok(Some(x)),
            None => Ok(None),
        }
    })()?;
    if let Some(v) = direct {
        return Ok(v);
    }
    if let Some(desc) = doc.key(ft, "/FontDescriptor")? {
        if let Some(d) = desc.as_dict() {
            if let Some(mw) = doc.key(d, "/MissingWidth")? {
                return num(&mw);
            }
        }
    }
    let (mut sum, mut count) = (0.0f64, 0usize);
    for x in w.iter() {
        let v = num(x)?;
        if v > 0.0 {
            sum += v;
            count += 1;
        }
    }
    Ok(sum / count.max(1) as f64 / 2.0)
}
