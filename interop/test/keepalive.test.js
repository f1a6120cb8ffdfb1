// SSE keep-alive: a model paced at 2.5 s per delta behind `farebox dev
// --keepalive 1s`. Comment lines (": keep-alive") reach the wire between
// events, and the openai npm SDK still reads the stream to its end, paid
// through @x402/fetch like any other call.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { privateKeyToAccount } from 'viem/accounts';
import { parseUnits } from 'viem';
import { startDev } from '../lib/farebox.js';
import { payingFetch } from '../lib/paying.js';
import { DEV_RELAYER, chainReader } from '../lib/chain.js';
import { PAID, FREE } from '../lib/world.js';

const dev = await startDev(['--pace', '2500ms', '--keepalive', '1s']);
after(() => dev.stop());
const account = privateKeyToAccount(dev.payerKey);
const chain = chainReader({ rpcURL: dev.rpcURL, chainId: dev.chainId, token: dev.token, relayers: [DEV_RELAYER] });

// tapping wraps a fetch so the test also sees the raw text of every event
// stream the SDK reads.
function tapping(inner) {
  const wire = { text: '', done: Promise.resolve() };
  const f = async (url, init) => {
    const res = await inner(url, init);
    if (!res.body || !(res.headers.get('content-type') || '').startsWith('text/event-stream')) return res;
    const [forSDK, forTest] = res.body.tee();
    wire.done = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of forTest) wire.text += dec.decode(chunk, { stream: true });
    })();
    return new Response(forSDK, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: f, wire };
}

// frames splits an SSE body into frames and checks each is whole: a
// comment, an event with JSON data, or the final [DONE].
function frames(text) {
  const out = text.replace(/\n\n$/, '').split('\n\n');
  for (const f of out) {
    if (f === ': keep-alive' || f === 'data: [DONE]') continue;
    const m = f.match(/^event: [\w.]+\ndata: (.*)$/s);
    assert.ok(m, `a frame that is neither an event nor a comment: ${JSON.stringify(f)}`);
    JSON.parse(m[1]);
  }
  return out;
}

test('a stream paced at 2.5 s carries keep-alive comments between whole events', async () => {
  const res = await fetch(`${dev.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: FREE, input: 'slow now', stream: true }),
  });
  assert.equal(res.status, 200);
  const all = frames(await res.text());
  assert.ok(all.filter((f) => f === ': keep-alive').length >= 2, `no keep-alives in ${all.length} frames`);
  assert.equal(all.at(-1), 'data: [DONE]');
});

test('the openai SDK completes a paid, paced stream with keep-alives on the wire', async () => {
  const { fetch: tapped, wire } = tapping(payingFetch(account, { network: dev.network, asset: dev.token }));
  const openai = new OpenAI({ baseURL: dev.baseURL, apiKey: 'x402-pays-instead', fetch: tapped, maxRetries: 0 });
  const before = await chain.balanceOf(account.address);
  const final = await openai.responses.stream({ model: PAID, input: 'a slow paid stream' }).finalResponse();
  await wire.done;
  assert.equal(final.status, 'completed');
  assert.match(final.output_text, /a slow paid stream/);
  assert.ok(frames(wire.text).includes(': keep-alive'), 'the SDK read a stream with keep-alive comments');
  await chain.assertSettled(final.x402, { payer: account.address, payTo: dev.payTo, amount: parseUnits(dev.price, 6), network: dev.network });
  assert.equal(before - (await chain.balanceOf(account.address)), parseUnits(dev.price, 6));
});
