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

    /// Row status: too large to read.
    pub fn too_large(&self) -> &'static str {
        self.pick("too large to read here", "文件过大，未读取")
    }

    /// Summary line of the preview.
    pub fn attach_summary(&self, before: Tokens, after: Tokens, cut: usize) -> String {
        let (b, a) = (group_thousands(before), group_thousands(after));
        match self.0 {
            Lang::En => format!("Block: {b} → {a} tokens · {cut} cut"),
            Lang::ZhCn => format!("附件块：{b} → {a} tokens · {cut} 个被截断"),
        }
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

    /// Shown while the tokenizer loads for the first preview.
    pub fn loading_tokenizer(&self) -> &'static str {
        self.pick("Loading the tokenizer…", "正在加载分词器…")
    }

    /// Shown when the preview could not run.
    pub fn preview_failed(&self, why: &str) -> String {
        match self.0 {
            Lang::En => format!("The preview could not run: {why}"),
            Lang::ZhCn => format!("预览失败：{why}"),
        }
    }
}
