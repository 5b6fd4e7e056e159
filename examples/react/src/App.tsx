// A chat UI with the toolbar next to its message box. The toolbar is fed by
// the host (source="host"): every `chat:status_updated` the socket receives
// goes to `pushEvent`, as in a Wegent frontend. `ctxguard-change` comes back
// into React state, which the side panel renders.
import { useEffect, useRef, useState } from "react";
import { ready } from "ctxguard-toolbar";
import type { CtxguardToolbarElement, PreviewReport, ToolbarState } from "ctxguard-toolbar";
import { FakeSocket, playConversation } from "./socket";

const MESSAGES = [
  { who: "user", text: "Why does the nightly import job time out on the large tenants?" },
  { who: "assistant", text: "I read the job's logs and the three slowest queries. The join on audit_events has no index on tenant_id; on the largest tenant it scans 41M rows." },
  { who: "tool", text: "run_sql(EXPLAIN ANALYZE …) → Seq Scan on audit_events (rows=41,208,117)" },
  { who: "assistant", text: "Adding a composite index (tenant_id, created_at) brings the query to 180 ms in staging. Shall I open a migration?" },
];

export function App() {
  const toolbar = useRef<CtxguardToolbarElement>(null);
  const [status, setStatus] = useState<ToolbarState | null>(null);
  const [report, setReport] = useState<PreviewReport | null>(null);
  const [done, setDone] = useState(false);

  useEffect(() => {
    const socket = new FakeSocket();
    // The Wegent recipe: every status update goes to the toolbar as it arrives.
    const onStatus = (payload: Parameters<CtxguardToolbarElement["pushEvent"]>[0]) => {
      toolbar.current?.pushEvent(payload);
    };
    socket.on("chat:status_updated", onStatus);
    let stop = () => {};
    let live = true;
    ready.then(() => {
      if (!live) return;
      toolbar.current?.clear();
      stop = playConversation(socket, 350, () => setDone(true));
    });
    return () => {
      live = false;
      stop();
      socket.off("chat:status_updated", onStatus);
    };
  }, []);

  const last = status?.history[0];
  return (
    <div className="app" data-done={done ? "true" : "false"}>
      <main className="chat">
        <header className="chat-head">
          <span className="avatar" aria-hidden="true" />
          <div>
            <h1>Import job timeouts</h1>
            <p>Task #4182 · gpt-4o · 128k context</p>
          </div>
        </header>
        <ol className="messages">
          {MESSAGES.map((m, i) => (
            <li key={i} className={`msg msg-${m.who}`}>
              {m.text}
            </li>
          ))}
        </ol>
        <div className="composer-area">
          <ctxguard-toolbar
            ref={toolbar}
            id="tb"
            source="host"
            session="react-demo"
            onctxguard-change={(event) => setStatus(event.detail)}
          />
          <div className="composer">
            <textarea placeholder="Reply…" rows={2} />
            <button type="button">Send</button>
          </div>
          <ctxguard-attachment-preview for="tb" onctxguard-preview={(event) => setReport(event.detail)} />
        </div>
      </main>
      <aside className="side" data-testid="react-status">
        <h2>In React state</h2>
        <p className="side-hint">
          Read from <code>ctxguard-change</code> and <code>ctxguard-preview</code>, rendered by React.
        </p>
        <dl>
          <dt>Context left</dt>
          <dd data-testid="react-remaining">{status?.metrics ? `${status.metrics.display_remaining_percent}%` : "–"}</dd>
          <dt>Turns until compaction</dt>
          <dd data-testid="react-forecast">{status?.forecast ? (status.forecast.turns === 0 ? "due" : `≈ ${status.forecast.turns}`) : "–"}</dd>
          <dt>Compactions</dt>
          <dd data-testid="react-history">{status ? status.history.length : "–"}</dd>
          <dt className="wide">Last one</dt>
          <dd className="wide" data-testid="react-last">
            {last ? (last.status === "completed" ? `saved ${last.saved_tokens?.toLocaleString("en-US")}` : `fell back (${last.reason})`) : "–"}
          </dd>
          <dt>Events applied</dt>
          <dd data-testid="react-events">{status?.last_event_id ?? "–"}</dd>
          <dt>Attachments</dt>
          <dd data-testid="react-preview">
            {report ? `${report.attachments.length} · ${report.block_tokens_after.toLocaleString("en-US")} tokens` : "–"}
          </dd>
        </dl>
        <button type="button" className="reset" onClick={() => toolbar.current?.clear()}>
          Forget saved state
        </button>
      </aside>
    </div>
  );
}
