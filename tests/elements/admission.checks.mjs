// <ctxguard-attachment-preview>: the chat input's refusals before upload, as
// Wegent's frontend makes them (useMultiAttachment and what it calls): the
// number of files per message, a video without an uploader, each with the
// reference's localised toast, and attributes over the reference's defaults.
import { assert } from "../support/net.mjs";
import { same } from "./harness.mjs";

const FILES = `
  window.mkfile = ([name, body, type]) => new File([body], name, { type });
  window.rowsOf = (pv) => t.all(pv, "ctxguard-attachment-row").map((r) => {
    const e = r.querySelector('[data-testid="ctxguard-attachment-error"]');
    return { state: r.dataset.state, code: e?.dataset.code ?? null, key: e?.dataset.key ?? null, text: e?.textContent ?? "" };
  });
`;

export async function admissionChecks(h, check) {
  await check("admission: over max-attachments every file of the selection is refused unread, with the reference's toast (en and zh-CN)", () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async () => {
        const names = ["a.txt", "b.txt", "c.txt"];
        const files = () => names.map((n) => mkfile([n, "hello " + n, "text/plain"]));
        const en = t.add('<ctxguard-attachment-preview max-attachments="2" lang="en"></ctxguard-attachment-preview>');
        const zh = t.add('<ctxguard-attachment-preview max-attachments="2" lang="zh-CN"></ctxguard-attachment-preview>');
        const events = [];
        en.addEventListener("ctxguard-preview", (e) => events.push(e.detail));
        const report = await en.previewFiles(files());
        await zh.previewFiles(files());
        await t.settle();
        // The refused selection's rows, read before the next selection replaces them.
        const refusedRows = rowsOf(en);
        const two = await en.previewFiles(files().slice(0, 2));
        await t.settle();
        return { report, event: events[0], en: refusedRows, zh: rowsOf(zh), two: two.attachments.map((a) => a.state), twoRows: rowsOf(en) };
      });
      const { report } = out;
      assert(same(report.attachments.map((a) => a.state), ["rejected", "rejected", "rejected"]), JSON.stringify(report.attachments));
      const error = report.attachments[0].error;
      assert(error.code === "attachment_limit_reached" && error.message === "Material limit reached: Upload up to 2 reference materials", JSON.stringify(error));
      assert(same(error.admission, { title: { key: "chat:generate.attachment_limit_reached" }, description: { key: "chat:generate.max_attachments", params: { count: "2" } } }), JSON.stringify(error.admission));
      assert(same(out.event, report), "the event carries the report");
      assert(report.rendered === "" || !report.rendered.includes("hello"), "no file was read: " + report.rendered.slice(0, 200));
      assert(out.en.every((r) => r.key === "chat:generate.attachment_limit_reached" && r.text === "Material limit reachedUpload up to 2 reference materials"), JSON.stringify(out.en));
      assert(out.zh.every((r) => r.text === "已达到素材数量上限最多可上传 2 个参考素材"), JSON.stringify(out.zh));
      // N files pass.
      assert(same(out.two, ["fits", "fits"]) && out.twoRows.every((r) => r.code === null), JSON.stringify(out.twoRows));
    }),
  );

  await check("admission: a video without an uploader is refused with the reference's message; video-uploader-max-size-bytes admits it up to its size", () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async () => {
        const pv = t.add('<ctxguard-attachment-preview lang="zh-CN"></ctxguard-attachment-preview>');
        const picked = () => [mkfile(["notes.txt", "some notes", "text/plain"]), mkfile(["clip.mp4", "0123456789", "video/mp4"])];
        const none = await pv.previewFiles(picked());
        await t.settle();
        const rows = rowsOf(pv);
        pv.setAttribute("video-uploader-max-size-bytes", "10");
        const at = await pv.previewFiles(picked());
        pv.setAttribute("video-uploader-max-size-bytes", "9");
        const over = await pv.previewFiles(picked());
        await t.settle();
        return { none, rows, at: at.attachments[1], over: over.attachments[1], overRows: rowsOf(pv) };
      });
      const video = out.none.attachments[1];
      assert(out.none.attachments[0].state === "fits", JSON.stringify(out.none.attachments[0]));
      assert(video.state === "rejected" && video.error.code === "video_upload_unavailable", JSON.stringify(video));
      assert(video.error.message === "Video upload is not configured; video files are not supported", video.error.message);
      assert(same(video.error.admission, { title: { key: "common:attachment.errors.video_upload_unavailable" } }), JSON.stringify(video.error));
      assert(out.rows[1].text === "视频上传未配置，暂不支持上传视频文件", JSON.stringify(out.rows));
      assert(!out.at.error || out.at.error.code !== "video_upload_unavailable", JSON.stringify(out.at));
      assert(out.over.error?.code === "file_too_large" && out.over.error.admission?.title.key === "common:attachment.errors.file_too_large", JSON.stringify(out.over));
      assert(out.overRows[1].text === "文件太大了", JSON.stringify(out.overRows));
    }),
  );

  await check("admission: attributes override the reference's defaults (no count limit until max-attachments; per-type limits)", () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async () => {
        const pv = t.add("<ctxguard-attachment-preview></ctxguard-attachment-preview>");
        const five = () => ["1", "2", "3", "4", "5"].map((n) => mkfile([`${n}.txt`, `text ${n}`, "text/plain"]));
        const free = await pv.previewFiles(five());
        pv.setAttribute("max-attachments", "4");
        const capped = await pv.previewFiles(five());
        pv.removeAttribute("max-attachments");
        pv.setAttribute("max-reference-audios", "1");
        const audio = await pv.previewFiles([mkfile(["a.mp3", "x", "audio/mpeg"]), mkfile(["b.wav", "y", "audio/wav"])]);
        await t.settle();
        return { free: free.attachments.map((a) => a.state), capped: capped.attachments.map((a) => a.error?.code ?? null), audio: audio.attachments.map((a) => a.error), rows: rowsOf(pv) };
      });
      assert(out.free.every((s) => s === "fits"), JSON.stringify(out.free));
      assert(out.capped.every((c) => c === "attachment_limit_reached"), JSON.stringify(out.capped));
      assert(out.audio[0]?.code !== "max_material_type", JSON.stringify(out.audio));
      assert(out.audio[1]?.code === "max_material_type" && same(out.audio[1].admission.title, { key: "chat:generate.max_material_type", params: { count: "1" } }), JSON.stringify(out.audio));
      assert(out.rows[1].text === "Upload up to 1 materials of this type", JSON.stringify(out.rows));
    }),
  );
}
