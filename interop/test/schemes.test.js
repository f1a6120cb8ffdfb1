// Per-token billing with the official x402 clients: @x402/evm's
// BatchSettlementEvmScheme and UptoEvmScheme through @x402/fetch under the
// openai npm SDK, paying `farebox dev`'s per-token model. Every charge is
// recomputed here from the answer's usage and the prices /v1/models
// publishes, and the chain judges every balance.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from '@x402/fetch';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { toClientEvmSigner } from '@x402/evm';
import { privateKeyToAccount } from 'viem/accounts';
import { devWorld } from '../lib/world.js';
import { chainReader, DEV_RELAYER } from '../lib/chain.js';
import { countingFetch } from '../lib/paying.js';
import { startDev } from '../lib/farebox.js';
import { startBareAnvil } from '../lib/anvil.js';

const METERED = 'farebox-scripted-metered';

// prices reads the per-token model's prices from /v1/models.
async function prices(baseURL) {
  const res = await fetch(`${baseURL}/models`);
  assert.equal(res.status, 200);
  const model = (await res.json()).data.find((m) => m.id === METERED);
  assert.ok(model, `${METERED} is listed`);
  assert.equal(model.price.unit, 'token');
  return {
    input: BigInt(model.price.input_atomic_per_mtok),
    output: BigInt(model.price.output_atomic_per_mtok),
    max: BigInt(model.price.max_atomic_per_call),
  };
}

// expected is the charge for usage: ceil((in*inP + out*outP) / 1e6), capped.
function expected(p, usage) {
  const micro = BigInt(usage.input_tokens) * p.input + BigInt(usage.output_tokens) * p.output;
  const c = (micro + 999_999n) / 1_000_000n;
  return c < p.max ? c : p.max;
}

// client is the openai SDK paying with one official scheme for dev's token.
function client(dev, scheme) {
  const counter = countingFetch();
  const fetch = wrapFetchWithPaymentFromConfig(counter, {
    schemes: [{ network: 'eip155:*', client: scheme }],
    spendControls: { allowedAssets: [{ network: dev.network, asset: dev.token, maxAmountPerPayment: '1000000' }] },
  });
  return { openai: new OpenAI({ baseURL: dev.baseURL, apiKey: 'x402-pays-instead', fetch, maxRetries: 0 }), counter };
}

function batchScheme(key, rpcURL, storage = new InMemoryClientChannelStorage()) {
  const account = privateKeyToAccount(key);
  const reader = chainReader({ rpcURL, chainId: 0, token: undefined }).client;
  return new BatchSettlementEvmScheme(toClientEvmSigner(account, reader), { storage, rpcUrl: rpcURL });
}

// pay sends one paid call and returns the receipt with the usage it pays.
async function pay(openai, input) {
  const { data, response } = await openai.responses.create({ model: METERED, input, max_output_tokens: 200 }).withResponse();
  assert.equal(data.status, 'completed');
  assert.ok(data.usage && data.usage.output_tokens > 0, 'the answer reports its usage');
  const header = response.headers.get('payment-response');
  assert.ok(header, 'PAYMENT-RESPONSE header');
  return { receipt: decodePaymentResponseHeader(header), usage: data.usage };
}

// waitFor polls f until it returns true (the claimer runs on its own timer).
async function waitFor(what, f, ms = 90_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`timed out waiting for ${what}`);
}

// payCalls makes n batch-settlement calls and checks each receipt: the
// first (for a new channel) a deposit on chain, the rest voucher-only, each
// charging exactly its usage.
async function payCalls(openai, p, n, { first = 0, deposits }) {
  let sum = 0n;
  for (let i = 0; i < n; i++) {
    const input = `call ${first + i}: ${'tokens '.repeat(3 * (first + i) + 1)}`;
    const { receipt, usage } = await pay(openai, input);
    assert.equal(receipt.success, true, JSON.stringify(receipt));
    const charged = BigInt(receipt.extra.chargedAmount);
    assert.equal(charged, expected(p, usage), `call ${first + i}: chargedAmount is usage x price`);
    assert.ok(receipt.extra.channelState, 'the receipt carries the channel state');
    if (receipt.transaction) deposits.push(receipt.transaction);
    sum += charged;
  }
  return sum;
}

test('batch-settlement: twelve calls, one deposit, eleven vouchers, claimed and settled by farebox to the cent', async () => {
  const w = await devWorld();
  const p = await prices(w.dev.baseURL);
  const chain = chainReader({ rpcURL: w.dev.rpcURL, chainId: w.dev.chainId, token: w.dev.token, relayers: [DEV_RELAYER] });
  const payToBefore = await chain.balanceOf(w.dev.payTo);
  const payerBefore = await chain.balanceOf(w.account.address);
  const { openai, counter } = client(w.dev, batchScheme(w.dev.payerKey, w.dev.rpcURL));
  const deposits = [];
  const sum = await payCalls(openai, p, 12, { deposits });
  assert.equal(deposits.length, 1, 'exactly one receipt names a transaction: the deposit');
  assert.equal(counter.paid().length, 12, 'twelve paid answers');
  const tx = await chain.client.waitForTransactionReceipt({ hash: deposits[0], pollingInterval: 50, timeout: 60_000 });
  assert.equal(tx.status, 'success');
  // The payer's wallet moved once, into the channel.
  const deposited = payerBefore - (await chain.balanceOf(w.account.address));
  assert.ok(deposited >= sum, `the deposit (${deposited}) covers the charges (${sum})`);
  // farebox claims on its own: the receiver ends with exactly the sum.
  await waitFor('the claim', async () => (await chain.balanceOf(w.dev.payTo)) - payToBefore >= sum);
  assert.equal((await chain.balanceOf(w.dev.payTo)) - payToBefore, sum, 'the receiver got exactly what was charged');
  assert.equal(payerBefore - (await chain.balanceOf(w.account.address)), deposited, 'no second deposit, nothing else taken');
});

test('upto: each call settles exactly its usage on chain', async () => {
  const w = await devWorld();
  const p = await prices(w.dev.baseURL);
  const chain = chainReader({ rpcURL: w.dev.rpcURL, chainId: w.dev.chainId, token: w.dev.token, relayers: [DEV_RELAYER] });
  const before = await chain.balanceOf(w.account.address);
  const { openai } = client(w.dev, new UptoEvmScheme(privateKeyToAccount(w.dev.payerKey), { rpcUrl: w.dev.rpcURL }));
  let sum = 0n;
  for (let i = 0; i < 3; i++) {
    const { receipt, usage } = await pay(openai, `upto ${i}: ${'words '.repeat(5 * i + 1)}`);
    assert.equal(receipt.success, true, JSON.stringify(receipt));
    const charged = expected(p, usage);
    assert.equal(BigInt(receipt.extra?.chargedAmount ?? receipt.amount), charged, 'charged exactly the usage');
    assert.ok(charged < p.max, 'below the ceiling the client signed for');
    const tx = await chain.client.waitForTransactionReceipt({ hash: receipt.transaction, pollingInterval: 50, timeout: 60_000 });
    assert.equal(tx.status, 'success');
    sum += charged;
  }
  assert.equal(before - (await chain.balanceOf(w.account.address)), sum, 'the payer paid the sum of its usage, not the ceilings');
});

test('batch-settlement across a SIGKILL: farebox restarted on the same data loses nothing (anvil, 2 s blocks)', async () => {
  const anvil = await startBareAnvil(['--block-time', '2']);
  after(() => anvil.stop());
  const data = mkdtempSync(join(tmpdir(), 'farebox-schemes-'));
  const flags = ['--chain', anvil.rpcURL, '--data', data, '--claim-interval', '2s'];
  let dev = await startDev(flags);
  after(() => dev.stop());
  const p = await prices(dev.baseURL);
  const chain = chainReader({ rpcURL: anvil.rpcURL, chainId: dev.chainId, token: dev.token });
  const payerBefore = await chain.balanceOf(dev.payer);
  const payToBefore = await chain.balanceOf(dev.payTo);
  // One client, one channel storage, for the whole test: the payer's side
  // survives; farebox's is killed.
  const scheme = batchScheme(dev.payerKey, anvil.rpcURL);
  const deposits = [];
  let sum = await payCalls(client(dev, scheme).openai, p, 3, { deposits });
  const first = dev;
  dev.child.kill('SIGKILL');
  await new Promise((r) => (dev.child.exitCode !== null || dev.child.signalCode !== null ? r() : dev.child.once('exit', r)));
  dev = await startDev(flags);
  assert.deepEqual([dev.payer, dev.token], [first.payer, first.token], 'the same payer and token come back from --data');
  sum += await payCalls(client(dev, scheme).openai, p, 3, { first: 3, deposits });
  assert.equal(deposits.length, 1, 'one deposit for six calls across the restart');
  await waitFor('the claim', async () => (await chain.balanceOf(dev.payTo)) - payToBefore >= sum);
  assert.equal((await chain.balanceOf(dev.payTo)) - payToBefore, sum, 'the receiver got exactly what was charged, before and after the crash');
  const deposited = payerBefore - (await chain.balanceOf(dev.payer));
  assert.ok(deposited >= sum, 'one deposit covers it all');
});
