// One 402 serves v1 and v2 clients alike: `farebox serve` on anvil as Base
// Sepolia (chain 84532) with Circle's FiatToken, settling by itself (the
// chain settler), paid by x402-fetch (v1, network "base-sepolia") and by
// @x402/fetch (v2, "eip155:84532"), every receipt checked on chain.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createWalletClient, http, getAddress } from 'viem';
import { wrapFetchWithPayment as wrapV1, decodeXPaymentResponse } from 'x402-fetch';
import { PaymentRequirementsSchema } from 'x402/types';
import { startAnvil, KEYS, CHAIN_ID } from '../lib/anvil.js';
import { startServe } from '../lib/farebox.js';
import { countingFetch, payingFetch, decodeB64JSON, decodePaymentResponseHeader } from '../lib/paying.js';

const anvil = await startAnvil();
const { payer, payTo } = anvil.accounts;
const farebox = await startServe(`
log_level: warn
payments:
  pay_to: "${payTo.address}"
  networks: [base-sepolia]
  settler: chain
  settle: after
  chain:
    rpc_url: ${anvil.rpcURL}
    relayer_key_env: FAREBOX_RELAYER_KEY
    simulate: true
  custom_networks:
    - caip2: eip155:${CHAIN_ID}
      v1_name: base-sepolia
      chain_id: ${CHAIN_ID}
      asset: "${anvil.usdc}"
      name: USDC
      version: "2"
models:
  - name: farebox-scripted
    upstream: scripted
    price: "0.001"
    description: scripted model on anvil
  - name: farebox-scripted-pricey
    upstream: scripted
    price: "0.2"
`, { FAREBOX_RELAYER_KEY: KEYS.relayer });
after(async () => { await farebox.stop(); await anvil.stop(); });

const url = `${farebox.baseURL}/responses`;
const PRICE = 1000n;
const balance = () => anvil.chain.balanceOf(payer.address);
const paidBy = (receipt, amount = PRICE, network) =>
  anvil.chain.assertSettled(receipt, { payer: payer.address, payTo: payTo.address, amount, network });
const post = (f, body) => f(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
// v1 signs with a viem wallet client whose chain is 84532, which
// x402-fetch maps to "base-sepolia".
const v1Wallet = createWalletClient({ account: payer, chain: anvil.chain.chain, transport: http(anvil.rpcURL) });

test('one 402 carries the v2 header, the v1 body (valid for the v1 schema) and an OpenAI error', async () => {
  const res = await post(fetch, { model: 'farebox-scripted', input: 'how much?' });
  assert.equal(res.status, 402);
  const v2 = decodeB64JSON(res.headers.get('payment-required'));
  assert.equal(v2.x402Version, 2);
  assert.equal(v2.resource.url, url);
  assert.deepEqual(v2.accepts.map((a) => [a.network, a.amount, getAddress(a.asset), getAddress(a.payTo)]),
    [[`eip155:${CHAIN_ID}`, '1000', getAddress(anvil.usdc), payTo.address]]);
  const body = await res.json();
  assert.equal(body.x402Version, 1);
  assert.equal(body.error.code, 'payment_required');
  assert.equal(body.accepts.length, 1);
  const v1 = PaymentRequirementsSchema.parse(body.accepts[0]);
  assert.equal(v1.network, 'base-sepolia');
  assert.equal(v1.maxAmountRequired, '1000');
  assert.equal(v1.resource, url);
  assert.deepEqual(v1.extra, { name: 'USDC', version: '2' });
});

test('x402-fetch (v1) pays with X-PAYMENT: answered, X-PAYMENT-RESPONSE names a mined FiatToken transfer', async () => {
  const counter = countingFetch();
  const before = await balance();
  const res = await post(wrapV1(counter, v1Wallet), { model: 'farebox-scripted', input: 'paid by a v1 client' });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.output[0].content[0].text, 'You said: paid by a v1 client');
  assert.ok(decodeB64JSON(counter.calls[1].payment).x402Version === 1, 'a v1 payment was sent');
  assert.equal(res.headers.get('payment-response'), null, 'a v1 payment gets the v1 header only');
  const receipt = decodeXPaymentResponse(res.headers.get('x-payment-response'));
  await paidBy(receipt, PRICE, 'base-sepolia');
  assert.equal(before - (await balance()), PRICE);
});

test('the openai SDK over x402-fetch (v1): paid, answered', async () => {
  const counter = countingFetch();
  const openai = new OpenAI({ baseURL: farebox.baseURL, apiKey: 'x402', fetch: wrapV1(counter, v1Wallet), maxRetries: 0 });
  const before = await balance();
  const { data, response } = await openai.responses.create({ model: 'farebox-scripted', input: 'v1 under the SDK' }).withResponse();
  assert.equal(data.output_text, 'You said: v1 under the SDK');
  await paidBy(decodeXPaymentResponse(response.headers.get('x-payment-response')), PRICE, 'base-sepolia');
  assert.equal(before - (await balance()), PRICE);
});

test('@x402/fetch (v2) pays the same server with PAYMENT-SIGNATURE: receipt on chain', async () => {
  const f = payingFetch(payer, { network: `eip155:${CHAIN_ID}`, asset: anvil.usdc });
  const before = await balance();
  const res = await post(f, { model: 'farebox-scripted', input: 'paid by a v2 client' });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).output[0].content[0].text, 'You said: paid by a v2 client');
  await paidBy(decodePaymentResponseHeader(res.headers.get('payment-response')), PRICE, `eip155:${CHAIN_ID}`);
  assert.equal(before - (await balance()), PRICE);
});

test('the openai SDK streaming over @x402/fetch on FiatToken: in-band receipt on chain', async () => {
  const f = payingFetch(payer, { network: `eip155:${CHAIN_ID}`, asset: anvil.usdc });
  const openai = new OpenAI({ baseURL: farebox.baseURL, apiKey: 'x402', fetch: f });
  const before = await balance();
  const final = await openai.responses.stream({ model: 'farebox-scripted', input: 'stream on anvil' }).finalResponse();
  assert.equal(final.output_text, 'You said: stream on anvil');
  await paidBy(final.x402, PRICE, `eip155:${CHAIN_ID}`);
  assert.equal(before - (await balance()), PRICE);
});

test('a replayed v1 X-PAYMENT: 402 invalid_exact_evm_nonce_already_used in the OpenAI error and the v1 body', async () => {
  const counter = countingFetch();
  const ok = await post(wrapV1(counter, v1Wallet), { model: 'farebox-scripted', input: 'once' });
  assert.equal(ok.status, 200);
  const before = await balance();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-PAYMENT': counter.calls[1].payment },
    body: JSON.stringify({ model: 'farebox-scripted', input: 'twice' }),
  });
  assert.equal(res.status, 402);
  const body = await res.json();
  assert.equal(body.error.code, 'invalid_exact_evm_nonce_already_used');
  assert.equal(body.x402Version, 1);
  assert.equal(body.accepts.length, 1, 'the v1 body still offers a way to pay');
  assert.equal(await balance(), before);
});

test("a price above x402-fetch's default cap (0.1 USDC) fails on the client, before any payment", async () => {
  const counter = countingFetch();
  const before = await balance();
  await assert.rejects(post(wrapV1(counter, v1Wallet), { model: 'farebox-scripted-pricey', input: 'too dear' }),
    /Payment amount exceeds maximum allowed/);
  assert.deepEqual(counter.calls.map((c) => [c.status, Boolean(c.payment)]), [[402, false]], 'only the unpaid request was sent');
  assert.equal(await balance(), before);
});

test('the same price with a cap the caller raised is paid: exactly 0.2 USDC moves', async () => {
  const before = await balance();
  const res = await post(wrapV1(fetch, v1Wallet, 200_000n), { model: 'farebox-scripted-pricey', input: 'worth it' });
  assert.equal(res.status, 200);
  await paidBy(decodeXPaymentResponse(res.headers.get('x-payment-response')), 200_000n, 'base-sepolia');
  assert.equal(before - (await balance()), 200_000n);
});
