// Claude Code (the pinned @anthropic-ai/claude-code, headless `claude -p`)
// on farebox's Messages wire: the free model directly, and the paid model
// through `farebox proxy`, which pays each turn, with the chain as judge.
// The prompt names Claude Code's own Glob tool, so the scripted model calls
// it, Claude Code runs it locally and sends the tool_result back, and the
// scripted model's answer quotes what Glob returned: two turns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { devWorld, PAID, FREE } from '../lib/world.js';
import { startProxy } from '../lib/farebox.js';
import { claudePrint } from '../lib/claude.js';

const w = await devWorld();

const PROMPT = 'use Glob to list the files here';
const opts = { tools: ['Glob'], files: { 'notes.txt': 'hello\n' } };
// The scripted model answers a tool_result with "<tool> returned: <output>".
const ANSWER = /Glob returned: /;

function check(r, extra = '') {
  assert.equal(r.code, 0, `claude -p failed:\n${r.out}\n${r.err}${extra}`);
  assert.ok(r.json, `claude -p printed no JSON:\n${r.out}\n${r.err}`);
  assert.equal(r.json.is_error, false, r.out);
  assert.ok(r.json.num_turns >= 2, `a tool round trip takes two turns: ${r.out}`);
  assert.match(r.json.result, ANSWER, `farebox saw the tool_result: ${r.out}`);
}

test('claude -p against the free model: Glob runs locally, its tool_result reaches farebox, nothing paid', async () => {
  const before = await w.balance();
  const r = await claudePrint(w.dev.baseURL, FREE, PROMPT, opts);
  check(r);
  assert.equal(await w.balance(), before, 'a free model costs nothing');
});

test('claude -p through farebox proxy against the paid model: the payer pays the price per turn, exactly', async () => {
  const proxy = await startProxy(w.dev.baseURL, ['--scheme', 'exact', '--budget', '0.05'], { FAREBOX_PAYER_KEY: w.dev.payerKey });
  try {
    const before = await w.balance();
    const r = await claudePrint(proxy.baseURL, PAID, PROMPT, opts);
    check(r, `\n--- proxy ---\n${proxy.logs()}`);
    const receipts = [...proxy.logs().matchAll(/receipt \d+: scheme=exact amount=([\d.]+) USDC tx=(0x[0-9a-f]{64}) payer=(0x[0-9a-fA-F]{40})/g)];
    assert.equal(receipts.length, r.json.num_turns, `one receipt per turn, receipts:\n${proxy.logs()}`);
    for (const [, amount, transaction, payer] of receipts) {
      assert.equal(amount, w.dev.price);
      await w.assertPaid({ success: true, transaction, payer, network: w.dev.network });
    }
    assert.equal(before - (await w.balance()), w.price * BigInt(receipts.length));
  } finally {
    await proxy.stop();
  }
});
