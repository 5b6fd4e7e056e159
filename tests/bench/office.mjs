// Generated Office documents for the preview bench: a .docx of paragraphs and
// an .xlsx of one sheet of rows, each of about the size asked for, made from
// the lines of a text file, as a minimal but complete OPC package (content
// types, relationships, the main part), deflated as Word and Excel write them.
// Node built-ins only.
import { deflateRawSync } from "node:zlib";

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf) {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A zip archive of `[name, Buffer]` entries, deflated (ZIP64 is not needed below 4 GiB). */
export function zip(entries) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const nameBytes = Buffer.from(name, "utf8");
    const packed = deflateRawSync(data, { level: 6 });
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    locals.push(local, nameBytes, packed);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(packed.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(nameBytes.length, 28);
    dir.writeUInt32LE(offset, 42);
    central.push(dir, nameBytes);
    offset += 30 + nameBytes.length + packed.length;
  }
  const size = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}

const xmlEscape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

const RELS = (type, target) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${type}" Target="${target}"/></Relationships>`;
const OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";

/** XML parts of about `rawBytes` bytes of content built from `lines`, cycling (a Buffer: past a few hundred MB a string would not fit). */
function body(lines, rawBytes, element) {
  const chunks = [];
  let parts = [];
  let size = 0;
  let pending = 0;
  for (let i = 0; size < rawBytes; i++) {
    const piece = element(xmlEscape(lines[i % lines.length]), i);
    parts.push(piece);
    size += piece.length;
    pending += piece.length;
    if (pending >= 16 * 1024 * 1024) {
      chunks.push(Buffer.from(parts.join("")));
      parts = [];
      pending = 0;
    }
  }
  chunks.push(Buffer.from(parts.join("")));
  return chunks;
}

/** A .docx whose file is about `fileBytes` (paragraphs of `lines`). */
export function docx(lines, fileBytes) {
  const make = (raw) => {
    const doc = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'),
      ...body(lines, raw, (t) => `<w:p><w:r><w:t xml:space="preserve">${t}</w:t></w:r></w:p>`),
      Buffer.from("</w:body></w:document>"),
    ]);
    return zip([
      [
        "[Content_Types].xml",
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        ),
      ],
      ["_rels/.rels", Buffer.from(RELS(OFFICE_DOCUMENT, "word/document.xml"))],
      ["word/document.xml", doc],
    ]);
  };
  return sized(make, fileBytes);
}

/** An .xlsx whose file is about `fileBytes` (one sheet: a row per line, the line and its number). */
export function xlsx(lines, fileBytes) {
  const make = (raw) => {
    const sheet = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'),
      ...body(lines, raw, (t, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t>${t}</t></is></c><c r="B${i + 1}"><v>${i}</v></c></row>`),
      Buffer.from("</sheetData></worksheet>"),
    ]);
    return zip([
      [
        "[Content_Types].xml",
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
        ),
      ],
      ["_rels/.rels", Buffer.from(RELS(OFFICE_DOCUMENT, "xl/workbook.xml"))],
      [
        "xl/workbook.xml",
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>',
        ),
      ],
      ["xl/_rels/workbook.xml.rels", Buffer.from(RELS("http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet", "worksheets/sheet1.xml"))],
      ["xl/worksheets/sheet1.xml", sheet],
    ]);
  };
  return sized(make, fileBytes);
}

/** `make(raw)` scaled once so that its file is about `fileBytes`. */
function sized(make, fileBytes) {
  const probe = make(4 * 1024 * 1024);
  const ratio = (4 * 1024 * 1024) / probe.length;
  return make(Math.round(fileBytes * ratio));
}
