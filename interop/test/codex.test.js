// The OpenAI Codex CLI (`codex exec`, the pinned @openai/codex) against
// `farebox dev`: its free model directly, and its paid model through
// `farebox proxy`, which pays for Codex, with the chain as judge. The
// prompt names one of Codex's own tools (get_goal), so the scripted model
// calls it, Codex runs it and sends the output back: two turns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { devWorld, PAID, FREE } from '../lib/world.js';
import { startProxy } from '../lib/farebox.js';
import { codexExec } from '../lib/codex.js';

const w = await devWorld();

const PROMPT = 'call get_goal please';
const ANSWER = /get_goal returned: \{"goal":null/;

test('codex exec against the free model: a tool round trip, nothing paid', async () => {
  const before = await w.balance();
  const r = await codexExec(w.dev.baseURL, FREE, PROMPT);
  assert.equal(r.code, 0, `codex exec failed:\n${r.out}\n${r.err}`);
  assert.match(r.out, ANSWER, `codex printed:\n${r.out}\n${r.err}`);
  assert.equal(await w.balance(), before, 'a free model costs nothing');
});

test('codex exec through farebox proxy against the paid model: the payer pays the price per turn, exactly', async () => {
  const proxy = await startProxy(w.dev.baseURL, ['--budget', '0.01'], { FAREBOX_PAYER_KEY: w.dev.payerKey });
  try {
    const before = await w.balance();
    const r = await codexExec(proxy.baseURL, PAID, PROMPT);
    assert.equal(r.code, 0, `codex exec failed:\n${r.out}\n${r.err}\n--- proxy ---\n${proxy.logs()}`);
    assert.match(r.out, ANSWER, `codex printed:\n${r.out}\n${r.err}`);
    const receipts = [...proxy.logs().matchAll(/receipt \d+: scheme=exact amount=([\d.]+) USDC tx=(0x[0-9a-f]{64}) payer=(0x[0-9a-fA-F]{40})/g)];
    assert.equal(receipts.length, 2, `two paid turns (the tool call, then its answer), receipts:\n${proxy.logs()}`);
    for (const [, amount, transaction, payer] of receipts) {
      assert.equal(amount, w.dev.price);
      await w.assertPaid({ success: true, transaction, payer, network: w.dev.network });
    }
    assert.equal(before - (await w.balance()), w.price * BigInt(receipts.length));
  } finally {
    await proxy.stop();
  }
});

test('codex exec through farebox proxy over its budget: a 402 naming the budget, nothing paid', async () => {
  const proxy = await startProxy(w.dev.baseURL, ['--budget', '0.0005'], { FAREBOX_PAYER_KEY: w.dev.payerKey });
  try {
    const before = await w.balance();
    const r = await codexExec(proxy.baseURL, PAID, PROMPT);
    assert.notEqual(r.code, 0, `codex exec succeeded over the budget:\n${r.out}`);
    assert.match(r.out + r.err, /unexpected status 402 Payment Required: farebox proxy: signing [0-9.]+ USDC would bring what this proxy signed to [0-9.]+ USDC, over the budget of 0.0005 USDC/);
    assert.doesNotMatch(proxy.logs(), /receipt \d+:/);
    assert.equal(await w.balance(), before, 'nothing paid over the budget');
  } finally {
    await proxy.stop();
  }
});
