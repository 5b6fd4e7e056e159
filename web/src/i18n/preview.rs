//! The attachment preview's strings.

use super::{group_thousands, Lang, Text};
use ctxguard_core::tokens::Tokens;

impl Text {
    /// Title of the attachment panel.
    pub fn attach_title(&self) -> &'static str {
        self.pick("Attachment budget preview", "附件预算预览")
    }

    /// Explanation under the panel title.
    pub fn attach_hint(&self, model: &str, limit: i64) -> String {
        match self.0 {
            Lang::En => format!(
                "See what attachments will cost before you send them. Files are read in this browser and never uploaded. Model {model}, budget {} tokens per message.",
                group_thousands(limit)
            ),
            Lang::ZhCn => format!(
                "发送之前先看看附件会占用多少上下文。文件只在本浏览器中读取，不会上传。模型 {model}，每条消息预算 {} tokens。",
                group_thousands(limit)
            ),
        }
    }

    /// Drop zone text.
    pub fn drop_here(&self) -> &'static str {
        self.pick("Drop files here or", "把文件拖到这里，或")
    }

    /// File picker button.
    pub fn choose_files(&self) -> &'static str {
        self.pick("choose files", "选择文件")
    }

    /// Clear button.
    pub fn clear(&self) -> &'static str {
        self.pick("Clear", "清除")
    }

    /// Shown while files are read.
    pub fn reading(&self) -> &'static str {
        self.pick("Reading files…", "正在读取文件…")
    }

    /// Table headers: file, size, tokens, allocation, status.
    pub fn columns(&self) -> [&'static str; 5] {
        match self.0 {
            Lang::En => ["File", "Size", "Tokens", "Allocation", "Preview"],
            Lang::ZhCn => ["文件", "大小", "Tokens", "分配", "预览"],
        }
    }

    /// Row status: cut.
    pub fn will_be_cut(&self) -> &'static str {
        self.pick("will be cut", "将被截断")
    }

    /// Row status: fits.
    pub fn fits(&self) -> &'static str {
        self.pick("fits", "完整保留")
    }

    /// Row status: binary.
    pub fn binary(&self) -> &'static str {
        self.pick("binary · no text", "二进制 · 无文本")
    }

    /// Row status: the server refuses the file.
    pub fn rejected(&self) -> &'static str {
        self.pick("refused by the server", "服务器将拒绝")
    }

    /// Row status: the server keeps only part of the file.
    pub fn truncated_on_upload(&self) -> &'static str {
        self.pick("partly kept on upload", "上传时仅保留部分")
    }

    /// Row status: a PDF with almost no text, which the server may OCR.
    pub fn scanned(&self) -> &'static str {
        self.pick("scanned? little text", "疑似扫描件 · 文本很少")
    }

    /// Note under a scanned PDF's row.
    pub fn scanned_note(&self) -> &'static str {
        self.pick(
            "This PDF has almost no text. The server may replace it by OCR text, so the count below may change.",
            "该 PDF 几乎没有文本。服务器可能改用 OCR 识别的文字，下面的计数可能会变化。",
        )
    }

    /// Wegent's own title for a refusal code (`attachment.errors.<code>`).
    pub fn error_title(&self, code: &str) -> &'static str {
        match code {
            "unsupported_type" => self.pick("Unsupported file format", "文件格式不支持"),
            "unrecognized_type" => self.pick("Unrecognized file type", "文件类型无法识别"),
            "file_too_large" => self.pick("File is too large", "文件太大了"),
            "encrypted_pdf" => self.pick("Cannot parse encrypted file", "无法解析加密文件"),
            "legacy_doc" | "legacy_ppt" | "legacy_xls" => {
                self.pick("Outdated file format", "文件格式过旧")
            }
            _ => self.pick("Failed to parse file", "文件解析失败"),
        }
    }

    /// Wegent's own hint for a refusal code (`attachment.errors.<code>_hint`);
    /// `max_upload_mb` fills the size of `file_too_large`.
    pub fn error_hint(&self, code: &str, max_upload_mb: u64) -> String {
        match (code, self.0) {
            ("unsupported_type", Lang::En) => {
                "Please upload files in these formats: documents, images, text".into()
            }
            ("unsupported_type", Lang::ZhCn) => "请上传以下格式的文件：文档、图片、文本".into(),
            ("unrecognized_type", _) => self
                .pick(
                    "Please upload documents, images, or text files",
                    "请上传文档、图片或文本类文件",
                )
                .into(),
            ("file_too_large", Lang::En) => format!(
                "File size cannot exceed {max_upload_mb} MB. Please compress and try again"
            ),
            ("file_too_large", Lang::ZhCn) => {
                format!("文件大小不能超过 {max_upload_mb} MB，请压缩后重试")
            }
            ("encrypted_pdf", _) => self
                .pick(
                    "Please remove PDF password protection and upload again",
                    "请移除 PDF 密码保护后重新上传",
                )
                .into(),
            ("legacy_doc", _) => self
                .pick(
                    "Please save the .doc file as .docx format and upload again",
                    "请将 .doc 文件另存为 .docx 格式后上传",
                )
                .into(),
            ("legacy_ppt", _) => self
                .pick(
                    "Please save the .ppt file as .pptx format and upload again",
                    "请将 .ppt 文件另存为 .pptx 格式后上传",
                )
                .into(),
            ("legacy_xls", _) => self
                .pick(
                    "Please save the .xls file as .xlsx format and upload again",
                    "请将 .xls 文件另存为 .xlsx 格式后上传",
                )
                .into(),
            _ => self
                .pick(
                    "The file may be corrupted or in an unusual format. Please re-export and upload again",
                    "该文件可能已损坏或格式异常，请尝试重新导出后上传",
                )
                .into(),
        }
    }

    /// Title of a partly kept upload (Wegent's `attachment.errors.content_truncated`).
    pub fn content_truncated(&self) -> &'static str {
        self.pick("File content truncated", "文件内容已压缩")
    }

    /// How much of a partly kept upload the server stores.
    pub fn kept_of(&self, kept: i64, total: i64) -> String {
        let (k, t) = (group_thousands(kept), group_thousands(total));
        match self.0 {
            Lang::En => format!("The server keeps {k} of {t} characters."),
            Lang::ZhCn => format!("服务器保留 {t} 个字符中的 {k} 个。"),
        }
    }

    /// Cancel button of a running preview.
    pub fn cancel(&self) -> &'static str {
        self.pick("Cancel", "取消")
    }

    /// Shown after a preview was cancelled.
    pub fn cancelled(&self) -> &'static str {
        self.pick("Preview cancelled.", "预览已取消。")
    }

    /// Remove button of one row (its accessible name).
    pub fn remove_file(&self, name: &str) -> String {
        match self.0 {
            Lang::En => format!("Remove {name}"),
            Lang::ZhCn => format!("移除 {name}"),
        }
    }

    /// Shown while files are read and parsed (the progress bars follow).
    pub fn parsing(&self) -> &'static str {
        self.pick(
            "Reading and parsing as the server will…",
            "正在按服务器的方式读取和解析…",
        )
    }

    /// Summary line of the preview.
    pub fn attach_summary(
        &self,
        before: Tokens,
        after: Tokens,
        cut: usize,
        refused: usize,
    ) -> String {
        let (b, a) = (group_thousands(before), group_thousands(after));
        let mut line = match self.0 {
            Lang::En => format!("Block: {b} → {a} tokens · {cut} cut"),
            Lang::ZhCn => format!("附件块：{b} → {a} tokens · {cut} 个被截断"),
        };
        if refused > 0 {
            line.push_str(&match self.0 {
                Lang::En => format!(" · {refused} refused"),
                Lang::ZhCn => format!(" · {refused} 个将被拒绝"),
            });
        }
        line
    }

    /// Expander of the rendered block.
    pub fn show_rendered(&self) -> &'static str {
        self.pick(
            "Rendered preview (what the model sees)",
            "渲染后的预览（模型看到的内容）",
        )
    }

    /// Row status: sent as an image block.
    pub fn image(&self) -> &'static str {
        self.pick("image block", "图片块")
    }

    /// Shown when the preview could not run.
    pub fn preview_failed(&self, why: &str) -> String {
        match self.0 {
            Lang::En => format!("The preview could not run: {why}"),
            Lang::ZhCn => format!("预览失败：{why}"),
        }
    }
}
