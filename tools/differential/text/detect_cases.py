#!/usr/bin/env python3
"""Cases for examples/text_diff.rs: chardet.detect's answer and the reference's
_decode_binary_data text for generated inputs: texts of many languages in
every plausible codec, short and long, mixed with ASCII, markup and digits,
corrupted, truncated, and random or binary-looking bytes.
`detect_cases.py OUT.jsonl COUNT [SEED]` (run with the reference interpreter: ../reference-python.sh prints it)."""
import json, logging, os, random, sys

logging.disable(logging.CRITICAL)
import chardet  # noqa: E402
from app.services.attachment.parser import DocumentParser  # noqa: E402

out = open(sys.argv[1], "w")
count = int(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
parser = DocumentParser()

WORDS = {
    "zh": "我们 中国 数据 文件 报告 分析 系统 服务器 配置 错误 预览 窗口 纪要 用户 时间 问题 处理 结果 需要 可以 已经 进行 工作 公司 市场 发展 经济 社会 学生 老师 北京 上海 测试 文档 内容 信息 网络 技术 管理 项目".split(),
    "zh_t": "我們 資料 檔案 報告 分析 系統 伺服器 設定 錯誤 預覽 視窗 使用者 時間 問題 處理 結果 需要 可以 已經 進行 工作 公司 市場 發展 經濟 社會 學生 老師 臺北 香港 測試 文件 內容 資訊 網路 技術 管理 專案".split(),
    "ja": "これは 日本語 の テキスト です ファイル を 確認 して ください 東京 会議 資料 データ システム エラー 報告 ありがとう ございます 今日 明日 時間 問題 処理 結果 カタカナ ひらがな 漢字 お願い します".split(),
    "ko": "한국어 텍스트 확인 테스트 보고서 데이터 파일 문서 서울 대한민국 안녕하세요 감사합니다 회의 일정 변경 사항 공지 시스템 오류 처리 결과 사용자 시간 문제 똠방각하 펲".split(),
    "ru": "Привет мир документ файл текст данные система ошибка отчёт сервер пользователь время вопрос работа компания Москва проверка содержание информация сеть технология управление проект ещё объём".split(),
    "bg": "Здравей свят документ файл текст данни система грешка доклад сървър потребител време въпрос работа компания София проверка съдържание информация мрежа щастие".split(),
    "el": "Γεια σου κόσμε έγγραφο αρχείο κείμενο δεδομένα σύστημα σφάλμα αναφορά διακομιστής χρήστης χρόνος ερώτηση εργασία εταιρεία Αθήνα έλεγχος περιεχόμενο πληροφορίες".split(),
    "he": "שלום עולם מסמך קובץ טקסט נתונים מערכת שגיאה דוח שרת משתמש זמן שאלה עבודה חברה ירושלים בדיקה תוכן מידע רשת ספרים אנחנו".split(),
    "th": "สวัสดี โลก เอกสาร ไฟล์ ข้อความ ข้อมูล ระบบ ข้อผิดพลาด รายงาน เซิร์ฟเวอร์ ผู้ใช้ เวลา คำถาม งาน บริษัท กรุงเทพ ตรวจสอบ เนื้อหา".split(),
    "tr": "Merhaba dünya belge dosya metin veri sistem hata rapor sunucu kullanıcı zaman soru çalışma şirket İstanbul kontrol içerik bilgi ağ teknoloji yönetim proje güzel çiçek".split(),
    "west": "café naïve résumé façade déjà vu über Straße Größe Müller Ärger Öl señor niño año corazón canción São Paulo coração ação garçon élève crème brûlée fiancée smörgåsbord Ångström øre".split(),
    "en": "the quick brown fox jumps over lazy dog report server config error index value token owner data file".split(),
    "emoji": "😀 🎉 数据 données ✓ → ★ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 日本 한국".split(),
}
CODECS = {
    "zh": ["gb2312", "gbk", "gb18030", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "big5"],
    "zh_t": ["big5", "cp950", "gb18030", "utf-16"],
    "ja": ["shift_jis", "cp932", "euc_jp", "utf-16", "utf-16-le"],
    "ko": ["euc_kr", "cp949", "johab", "utf-16"],
    "ru": ["koi8_r", "cp1251", "iso8859_5", "cp866", "mac_cyrillic", "cp855", "utf-16-le"],
    "bg": ["cp1251", "iso8859_5", "koi8_r"],
    "el": ["cp1253", "iso8859_7", "utf-16"],
    "he": ["cp1255", "iso8859_8"],
    "th": ["tis_620", "cp874", "iso8859_11"],
    "tr": ["cp1254", "iso8859_9", "latin_1"],
    "west": ["cp1252", "latin_1", "mac_roman", "iso8859_15", "cp850", "cp1250", "utf-16", "utf-32-le"],
    "en": ["utf-16", "utf-16-be", "utf-32", "utf-32-be"],
    "emoji": ["utf-16", "utf-16-le", "utf-32", "gb18030"],
}


def text_of(lang, n):
    words = WORDS[lang]
    parts = []
    for i in range(n):
        r = rng.random()
        if r < 0.08:
            parts.append(rng.choice(WORDS["en"]))
        elif r < 0.11:
            parts.append(str(rng.randint(0, 99999)))
        elif r < 0.13:
            parts.append(rng.choice(["\n", ", ", ". ", "!\n", " - ", "\t", "(", ")", ":"]))
        else:
            parts.append(rng.choice(words))
    sep = "" if lang in ("zh", "zh_t", "ja", "th") and rng.random() < 0.5 else " "
    t = sep.join(parts)
    if lang == "he" and rng.random() < 0.3:
        t = t[::-1]  # visual Hebrew
    if rng.random() < 0.15:
        t = "<html><body><p class=\"x\">" + t + "</p></body></html>"
    return t


def size():
    r = rng.random()
    if r < 0.35:
        return rng.randint(1, 12)
    if r < 0.75:
        return rng.randint(12, 200)
    if r < 0.95:
        return rng.randint(200, 1500)
    return rng.randint(1500, 6000)


def corrupt(b):
    b = bytearray(b)
    for _ in range(rng.randint(1, 3)):
        if not b:
            break
        op = rng.random()
        i = rng.randrange(len(b))
        if op < 0.4:
            b[i] = rng.randrange(256)
        elif op < 0.7:
            b.insert(i, rng.randrange(0x80, 256))
        else:
            del b[i]
    return bytes(b)


def sample():
    r = rng.random()
    if r < 0.72:
        lang = rng.choice(list(CODECS))
        enc = rng.choice(CODECS[lang])
        b = text_of(lang, size()).encode(enc, errors="replace" if rng.random() < 0.5 else "ignore")
        k = rng.random()
        if k < 0.15:
            b = corrupt(b)
        elif k < 0.22:
            b = b[: rng.randint(0, len(b))]
        return f"{lang}/{enc}", b
    if r < 0.84:
        # UTF-8 with a stray byte or two, or truncated mid-character
        lang = rng.choice(list(CODECS))
        b = text_of(lang, size()).encode("utf-8")
        return "utf8-broken", corrupt(b) if rng.random() < 0.7 else b[: max(0, len(b) - 1)] + b"\xff"[: rng.randint(0, 1)]
    if r < 0.92:
        n = rng.choice([1, 2, 3, 5, 10, 50, 300, 2000, 9000])
        return "random", bytes(rng.randrange(256) for _ in range(n))
    # binary-looking: zeros, headers, mostly ASCII with a few high bytes
    n = rng.randint(8, 3000)
    kind = rng.random()
    if kind < 0.4:
        b = bytes(rng.choice([0, 0, 0, rng.randrange(256)]) for _ in range(n))
    elif kind < 0.7:
        b = bytes(rng.choice(b"abcdefghij klmnop\n") if rng.random() < 0.97 else rng.randrange(128, 256) for _ in range(n))
    else:
        b = rng.choice([b"\x7fELF\x02\x01\x01", b"\x89PNG\r\n\x1a\n", b"PK\x03\x04", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf", b"\xff\xfe\x00\x00", b"%PDF-1.4\n"]) + bytes(rng.randrange(256) for _ in range(n))
    return "binary", b


for _ in range(count):
    group, b = sample()
    d = chardet.detect(b)
    out.write(json.dumps({"mode": "detect", "group": group.split("/")[0], "hex": b.hex(),
                          "encoding": d["encoding"], "confidence": repr(float(d["confidence"]))}) + "\n")
    out.write(json.dumps({"mode": "decode", "group": group.split("/")[0], "hex": b.hex(),
                          "text": parser._decode_binary_data(b)}) + "\n")
