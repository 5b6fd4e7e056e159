#!/usr/bin/env node
// How a chat backend feeds a ctxguard relay, in Node (20+, no dependency):
// publish a turn's status events, and mint the read token a browser passes
// to the toolbar. Same protocol as examples/publish.py:
//
//   CTXGUARD_PUBLISH_TOKEN=... CTXGUARD_READ_SECRET=... \
//     node examples/publish.mjs --server http://127.0.0.1:8080/ --session chat:42
import { createHmac } from 'node:crypto';
import { parseArgs } from 'node:util';

// gpt-4o's budget as ctxguard computes it (`ctxguard limits --model gpt-4o`).
const WINDOW = 128_000, RESERVED = 16_000, TRIGGER = 100_800, TARGET = 78_400;

/** A read token for `session`: "v1.{expiry}.{session}.{base64url HMAC-SHA256 of the rest}". */
export function readToken(secret, session, ttlSecs = 86_400, now = Date.now() / 1000) {
  const signed = `v1.${Math.floor(now) + ttlSecs}.${session}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

/** A context_metrics snapshot for `used` input tokens of gpt-4o. */
export function metrics(used) {
  const available = WINDOW - RESERVED;
  const remaining = Math.max(available - used, 0);
  const shown = Math.max(WINDOW - used, 0);
  return {
    context_window: WINDOW, reserved_output_tokens: RESERVED, available_input_tokens: available,
    used_input_tokens: used, remaining_input_tokens: remaining,
    remaining_percent: Math.trunc((remaining / available) * 100),
    display_remaining_tokens: shown, display_remaining_percent: Math.trunc((shown / WINDOW) * 100),
    trigger_limit: TRIGGER, target_limit: TARGET, is_over_trigger: used >= TRIGGER,
  };
}

const event = (responseId, phase, used, compaction) => ({
  type: 'response.status.updated', response_id: responseId, phase, context_metrics: metrics(used),
  ...(compaction ? { context_compaction: compaction } : {}),
});

const compaction = (status, before, createdAt, after) => ({
  type: 'summary_compact', status, before_tokens: before, trigger_limit: TRIGGER, target_limit: TARGET,
  used_legacy_fallback: false, created_at: createdAt,
  ...(after === undefined ? {} : { after_tokens: after, summary_message_id: 'cg-summary-1' }),
});

/** POSTs one payload or an array of at most 100; returns their ids, or throws with the relay's JSON error. */
export async function publish(server, session, token, events) {
  const url = new URL(`api/sessions/${encodeURIComponent(session).replace(/%3A/g, ':')}/events`, server);
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(events),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`publish failed: HTTP ${response.status}: ${JSON.stringify(body)}`);
  return body.event_ids;
}

async function main() {
  const { values } = parseArgs({
    options: {
      server: { type: 'string', default: 'http://127.0.0.1:8080/' },
      session: { type: 'string', default: 'chat:42' },
      token: { type: 'string', default: process.env.CTXGUARD_PUBLISH_TOKEN },
      'read-secret': { type: 'string', default: process.env.CTXGUARD_READ_SECRET },
    },
  });
  if (!values.token) throw new Error('no publish token: pass --token or set CTXGUARD_PUBLISH_TOKEN');
  const server = values.server.endsWith('/') ? values.server : `${values.server}/`;
  const id = 'resp_example_1';
  const started = `${new Date().toISOString().slice(0, 19)}.000000+00:00`;
  const before = 104_250;
  const turn = [
    event(id, 'build_messages', 61_500),
    [event(id, 'after_tool_end', 83_900), event(id, 'after_tool_end', before)],
    event(id, 'summary_compact', before, compaction('started', before, started)),
    [event(id, 'summary_compact', 23_750, compaction('completed', before, started, 23_750)), event(id, 'after_compaction', 23_750)],
    event(id, 'final', 24_610),
  ];
  const ids = [];
  for (const batch of turn) ids.push(...(await publish(server, values.session, values.token, batch)));
  console.log(`published ${ids.length} events to ${values.session}: ids ${ids[0]}..${ids.at(-1)}`);
  console.log(`last event id: ${ids.at(-1)}`);
  let toolbar = `${server}?session=${values.session}`;
  if (values['read-secret']) {
    const token = readToken(values['read-secret'], values.session);
    console.log(`read token: ${token}`);
    toolbar += `&token=${token}`;
  }
  console.log(`toolbar: ${toolbar}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e.message);
    process.exit(1);
  });
}
