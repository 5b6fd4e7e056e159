#!/usr/bin/env python3
"""Cases for examples/text_diff.rs: CPython's strict decode of every 1- and
2-byte input (and every 0x8F-prefixed EUC-JP triple, every GB18030 four-byte
sequence with a lead and digit) for each codec the decoder uses, plus random
mixtures of valid characters and stray bytes. `codec_cases.py OUT.jsonl [SEED]`."""
import json, random, sys

CODECS = ["gb2312", "gbk", "gb18030", "big5", "shift_jis", "cp932", "euc_jp", "euc_kr",
          "cp949", "johab", "cp1251", "koi8_r", "iso8859_5", "mac_cyrillic", "cp866", "cp855",
          "iso8859_7", "cp1253", "tis_620", "iso8859_9", "cp1254", "cp1255", "iso8859_8",
          "mac_roman", "latin_1", "utf_16", "utf_16_le", "utf_16_be", "utf_32", "utf_32_le",
          "utf_32_be", "utf_8", "utf_8_sig"]
out = open(sys.argv[1], "w")
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)


def case(enc, b):
    try:
        t = b.decode(enc)
    except UnicodeDecodeError:
        t = None
    out.write(json.dumps({"mode": "codec", "codec": enc, "hex": b.hex(), "text": t}) + "\n")


for enc in CODECS:
    for n in range(256):
        case(enc, bytes([n]))
    for n in range(65536):
        case(enc, n.to_bytes(2, "big"))
    # valid characters of the codec to mix
    chars = []
    for n in range(0x80, 0x110000, 7):
        c = chr(n)
        try:
            chars.append(c.encode(enc))
        except (UnicodeEncodeError, ValueError):
            pass
    pool = [bytes([b]) for b in range(256)] + chars
    for _ in range(20000):
        parts = [rng.choice(chars) if chars and rng.random() < 0.8 else rng.choice(pool)
                 for _ in range(rng.randint(1, 8))]
        case(enc, b"".join(parts))
for b in range(0x80, 0x100):
    for c in range(0x80, 0x100):
        case("euc_jp", bytes([0x8F, b, c]))
for a in range(0x81, 0xFF):
    for b in range(0x30, 0x3A):
        for c in list(range(0x81, 0xFF)) + [0x30, 0x7F, 0xFF]:
            for d in list(range(0x30, 0x3A)) + [0x2F, 0x3A]:
                case("gb18030", bytes([a, b, c, d]))
