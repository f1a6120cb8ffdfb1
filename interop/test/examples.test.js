// The README's "Use it from ..." examples, run as a user runs them against
// farebox dev: each must print the answer and a receipt that is on chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { devWorld } from '../lib/world.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const interop = join(here, '..');
const w = await devWorld();
const env = { ...process.env, FAREBOX_BASE_URL: w.dev.baseURL, FAREBOX_PAYER_KEY: w.dev.payerKey, FAREBOX_TOKEN: w.dev.token };

// receiptsIn finds the "paid: tx 0x.. on NETWORK by 0x.." lines.
function receiptsIn(stdout) {
  return [...stdout.matchAll(/^paid: tx (0x[0-9a-f]{64}) on (\S+) by (0x[0-9a-fA-F]{40})$/gm)]
    .map(([, transaction, network, payer]) => ({ success: true, transaction, network, payer }));
}

test('the openai-go example pays and prints the answer and its receipt', async () => {
  const before = await w.balance();
  const { stdout } = await run('go', ['run', './interop/examples/openai-go'], { cwd: join(interop, '..'), env, timeout: 300_000 });
  assert.match(stdout, /^You said: Hello from openai-go$/m);
  const receipts = receiptsIn(stdout);
  assert.equal(receipts.length, 1, stdout);
  await w.assertPaid(receipts[0]);
  assert.equal(before - (await w.balance()), w.price);
});

test('the openai npm SDK example pays twice (plain and streamed) and prints both receipts', async () => {
  const before = await w.balance();
  const { stdout } = await run(process.execPath, ['interop/examples/openai-node/main.mjs'], { cwd: join(interop, '..'), env, timeout: 120_000 });
  assert.match(stdout, /^You said: Hello from the openai npm SDK$/m);
  assert.match(stdout, /^You said: And streamed$/m);
  const receipts = receiptsIn(stdout);
  assert.equal(receipts.length, 2, stdout);
  for (const r of receipts) await w.assertPaid(r);
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('the Vercel AI SDK example runs its tool and pays for both steps', async () => {
  const before = await w.balance();
  const { stdout } = await run(process.execPath, ['interop/examples/vercel-ai/main.mjs'], { cwd: join(interop, '..'), env, timeout: 120_000 });
  assert.match(stdout, /Sunny, 21 C in \S+/);
  assert.match(stdout, /^2 steps, each paid with x402$/m);
  assert.equal(before - (await w.balance()), 2n * w.price);
});
