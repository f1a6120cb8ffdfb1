// Hostile and broken payments sent through the openai SDK: each is refused
// with a 402 whose code is the x402 reason, is not retried, and moves no
// money. The authorizations are signed for real with viem; only what is
// signed is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devWorld, PAID } from '../lib/world.js';
import { countingFetch, decodeB64JSON, encodeB64JSON, signPayment } from '../lib/paying.js';

const w = await devWorld();

// offer is the v2 PaymentRequired farebox answers an unpaid call with.
async function offer() {
  const res = await fetch(`${w.dev.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: PAID, input: 'price?' }),
  });
  assert.equal(res.status, 402);
  return decodeB64JSON(res.headers.get('payment-required'));
}

// sendWith makes one call through the SDK with a fixed payment header and
// returns the error it raised and how many requests reached farebox.
async function sendWith(header, name = 'PAYMENT-SIGNATURE') {
  const fetch = countingFetch();
  const openai = new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'none', fetch, maxRetries: 2 });
  const err = await openai.responses
    .create({ model: PAID, input: 'pay with this' }, { headers: { [name]: header } })
    .then(() => undefined, (e) => e);
  return { err, requests: fetch.calls.length };
}

async function assertRefused(header, code) {
  const before = await w.balance();
  const { err, requests } = await sendWith(header);
  assert.ok(err instanceof OpenAI.APIError, `expected an APIError, got ${err}`);
  assert.equal(err.status, 402);
  assert.equal(err.code, code);
  assert.equal(err.type, 'payment_error');
  assert.equal(requests, 1, 'the SDK does not retry a 402');
  const again = decodeB64JSON(err.headers.get('payment-required'));
  assert.equal(again.error, code, 'the v2 PAYMENT-REQUIRED header names the same reason');
  assert.ok(again.accepts.length > 0, 'and offers a way to pay');
  assert.equal(await w.balance(), before, 'no money moved');
}

test('a replayed payment header: 402 invalid_exact_evm_nonce_already_used, not retried, not charged twice', async () => {
  const paying = w.pay();
  const openai = new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'x', fetch: paying });
  const first = await openai.responses.create({ model: PAID, input: 'the original' });
  await w.assertPaid(first.x402);
  const used = paying.counter.paid()[0].payment;
  await assertRefused(used, 'invalid_exact_evm_nonce_already_used');
});

test('one authorization sent twice at once: one answer, one 402 nonce_already_used, charged once', async () => {
  const pr = await offer();
  const header = encodeB64JSON(await signPayment(w.account, pr.accepts[0], pr.resource));
  const before = await w.balance();
  const openai = new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'none', maxRetries: 0 });
  const outcomes = await Promise.allSettled([1, 2].map((i) =>
    openai.responses.create({ model: PAID, input: `twin ${i}`, stream: i === 2 }, { headers: { 'PAYMENT-SIGNATURE': header } })
      .then(async (r) => {
        if (!r[Symbol.asyncIterator]) return r;
        for await (const ev of r) if (ev.type === 'response.completed') return ev.response;
        throw new Error('stream ended without response.completed');
      })));
  const served = outcomes.filter((o) => o.status === 'fulfilled');
  const refused = outcomes.filter((o) => o.status === 'rejected');
  assert.equal(served.length, 1, JSON.stringify(outcomes.map((o) => o.reason?.message)));
  assert.equal(refused.length, 1);
  assert.equal(refused[0].reason.status, 402);
  assert.equal(refused[0].reason.code, 'invalid_exact_evm_nonce_already_used');
  await w.assertPaid(served[0].value.x402);
  assert.equal(before - (await w.balance()), w.price);
});

test('an authorization for less than the price: invalid_exact_evm_payload_authorization_value', async () => {
  const pr = await offer();
  const req = pr.accepts[0];
  const p = await signPayment(w.account, req, pr.resource, { authorization: { value: String(BigInt(req.amount) - 1n) } });
  await assertRefused(encodeB64JSON(p), 'invalid_exact_evm_payload_authorization_value');
});

test('an authorization for another network: invalid_network', async () => {
  const pr = await offer();
  const req = pr.accepts[0];
  const p = await signPayment(w.account, req, pr.resource, { chainId: 84532, accepted: { network: 'eip155:84532' } });
  await assertRefused(encodeB64JSON(p), 'invalid_network');
});

test('an expired authorization: invalid_exact_evm_payload_authorization_valid_before', async () => {
  const pr = await offer();
  const now = Math.floor(Date.now() / 1000);
  const p = await signPayment(w.account, pr.accepts[0], pr.resource, {
    authorization: { validAfter: String(now - 3600), validBefore: String(now - 60) },
  });
  await assertRefused(encodeB64JSON(p), 'invalid_exact_evm_payload_authorization_valid_before');
});

test('an authorization not valid yet: invalid_exact_evm_payload_authorization_valid_after', async () => {
  const pr = await offer();
  const now = Math.floor(Date.now() / 1000);
  const p = await signPayment(w.account, pr.accepts[0], pr.resource, { authorization: { validAfter: String(now + 120) } });
  await assertRefused(encodeB64JSON(p), 'invalid_exact_evm_payload_authorization_valid_after');
});

test('an authorization paying someone else: invalid_exact_evm_payload_recipient_mismatch', async () => {
  const pr = await offer();
  const p = await signPayment(w.account, pr.accepts[0], pr.resource, { authorization: { to: w.account.address } });
  await assertRefused(encodeB64JSON(p), 'invalid_exact_evm_payload_recipient_mismatch');
});

test('a signature by someone other than from: invalid_exact_evm_payload_signature', async () => {
  const pr = await offer();
  const stranger = privateKeyToAccount(generatePrivateKey());
  const p = await signPayment(stranger, pr.accepts[0], pr.resource, { authorization: { from: w.account.address } });
  await assertRefused(encodeB64JSON(p), 'invalid_exact_evm_payload_signature');
});

test('a payer without funds: insufficient_funds, found before the model is called', async () => {
  const pr = await offer();
  const broke = privateKeyToAccount(generatePrivateKey());
  const p = await signPayment(broke, pr.accepts[0], pr.resource);
  await assertRefused(encodeB64JSON(p), 'insufficient_funds');
});

test('a header that is not base64 JSON: a 400 invalid_payload naming the header, not retried', async () => {
  const before = await w.balance();
  const { err, requests } = await sendWith('not-a-payment');
  assert.ok(err instanceof OpenAI.APIError, `expected an APIError, got ${err}`);
  assert.equal(err.status, 400);
  assert.equal(err.code, 'invalid_payload');
  assert.equal(err.param, 'header:PAYMENT-SIGNATURE');
  assert.equal(requests, 1);
  assert.equal(await w.balance(), before);
});
