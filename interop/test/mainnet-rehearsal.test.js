// The mainnet rehearsal: the config `farebox init --network base --settler
// chain --rpc-url URL` writes, served as written, against a chain that
// looks like Base (anvil with chain id 8453, Circle's FiatToken at Base's
// USDC address with Base's domain "USD Coin" / "2"), paid by the official
// @x402/fetch + @x402/evm client on eip155:8453 with its default spend
// controls (Base USDC is one of its default assets): the payment verifies,
// settles, and the chain shows it. Only the RPC URL and the relayer key
// differ from going live. Run alone: cd interop && node run.js mainnet-rehearsal
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, KEYS, BASE } from '../lib/anvil.js';
import { fareboxBinary, serveFile } from '../lib/farebox.js';
import { payingFetch, decodeB64JSON, decodePaymentResponseHeader } from '../lib/paying.js';

// A Chat Completions upstream speaking the real wire (streamed chunks,
// usage last): the LLM is the one part faked.
function fakeChat() {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) { res.writeHead(404).end(); return; }
      const { model } = JSON.parse(body);
      const chunk = (delta, finish, usage) => `data: ${JSON.stringify({
        id: 'chatcmpl-rehearsal', object: 'chat.completion.chunk', created: 1, model,
        choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}),
      })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'Paid ' }, null));
      res.write(chunk({ content: 'on Base.' }, null));
      res.write(chunk({}, 'stop'));
      res.write(chunk(null, null, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }));
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/v1`, stop: () => new Promise((r) => server.close(r)),
  })));
}

const anvil = await startAnvil(BASE);
const upstream = await fakeChat();
const { payer } = anvil.accounts;
// A fresh payee: farebox refuses a public test account as pay_to on a mainnet.
const payTo = privateKeyToAccount(generatePrivateKey());
const dir = mkdtempSync(join(tmpdir(), 'farebox-rehearsal-'));
const config = join(dir, 'farebox.yaml');
const initOut = execFileSync(fareboxBinary(), ['init', '--upstream', upstream.url, '--pay-to', payTo.address, '--model', 'rehearsal',
  '--price', '0.01', '--network', 'base', '--settler', 'chain', '--rpc-url', anvil.rpcURL, '--config', config], { encoding: 'utf8' });
const farebox = await serveFile(config, { FAREBOX_RELAYER_KEY: KEYS.relayer });
after(async () => { await farebox.stop(); await upstream.stop(); await anvil.stop(); });

test('init --network base writes Base mainnet, settled by the own relayer', () => {
  const yml = readFileSync(config, 'utf8');
  assert.match(yml, /networks:\s*\n\s*- base\b/);
  assert.match(yml, /settler: chain/);
  assert.doesNotMatch(yml, /x402\.org|custom_networks/);
  assert.match(initOut, /mainnet/);
});

test('the official client pays eip155:8453 in Base USDC, and the chain shows it', async () => {
  const res402 = await fetch(`${farebox.baseURL}/responses`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'rehearsal', input: 'hi' }),
  });
  assert.equal(res402.status, 402);
  const offer = decodeB64JSON(res402.headers.get('payment-required')).accepts.find((a) => a.scheme === 'exact');
  assert.equal(offer.network, 'eip155:8453');
  assert.equal(getAddress(offer.asset), getAddress(BASE.usdcAt));
  assert.equal(offer.extra.name, 'USD Coin');
  assert.equal(offer.extra.version, '2');

  const before = { payer: await anvil.chain.balanceOf(payer.address), payTo: await anvil.chain.balanceOf(payTo.address) };
  // No allowedAssets: Base USDC is a default asset of the official client.
  const pay = payingFetch(payer);
  const res = await pay(`${farebox.baseURL}/responses`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'rehearsal', input: 'hi' }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(text, /Paid on Base\./);
  const receipt = decodePaymentResponseHeader(res.headers.get('payment-response'));
  await anvil.chain.assertSettled(receipt, { payer: payer.address, payTo: payTo.address, amount: 10_000n, network: 'eip155:8453' });
  assert.equal(await anvil.chain.balanceOf(payer.address), before.payer - 10_000n);
  assert.equal(await anvil.chain.balanceOf(payTo.address), before.payTo + 10_000n);
});

test('the relayer key appears in no output farebox makes', async () => {
  const hex = KEYS.relayer.slice(2);
  const metrics = await (await fetch(`${farebox.baseURL.replace(/\/v1$/, '')}/metrics`)).text();
  for (const [what, text] of [['logs', farebox.logs()], ['/metrics', metrics], ['init', initOut], ['config', readFileSync(config, 'utf8')]]) {
    assert.ok(!text.toLowerCase().includes(hex), `the relayer key is in ${what}`);
  }
});
