// The mainnet rehearsal: the config `farebox init --network base --settler
// chain --rpc-url URL` writes, served as written, against a chain that
// looks like Base (anvil with chain id 8453, Circle's FiatToken at Base's
// USDC address with Base's domain "USD Coin" / "2"), paid by the official
// @x402/fetch + @x402/evm client on eip155:8453 with its default spend
// controls (Base USDC is one of its default assets): the payment verifies,
// settles, and the chain shows it. Only the RPC URL and the relayer key
// differ from going live.
//
// Its second half is the config `farebox init --network base` writes by
// default: Coinbase's CDP facilitator (kind: cdp), only its URL pointed at
// a stand-in that verifies every request's JWT exactly as CDP documents it
// (signature, iss, aud, sub, uris, the two-minute window, a fresh nonce)
// in front of the x402 reference facilitator settling on the same chain;
// with an EC (ES256) and an Ed25519 (EdDSA) API key. A wrong key id and an
// expired token each refuse the start in one line naming the key id.
// Run alone: cd interop && node run.js mainnet-rehearsal
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, KEYS, BASE } from '../lib/anvil.js';
import { fareboxBinary, serveFile } from '../lib/farebox.js';
import { payingFetch, decodeB64JSON, decodePaymentResponseHeader } from '../lib/paying.js';
import { cdpKey, startCDPStandin, startReferenceFacilitator } from '../lib/cdp.js';

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

// The second half's world: the config init writes by default on Base, the
// facilitator's own relayer (a fresh, funded key: gas is the facilitator's),
// the stand-in with both key types, and one whose clock runs five minutes
// ahead (every token farebox signs is expired there).
const CDP_URL = 'https://api.cdp.coinbase.com/platform/v2/x402';
const cdpDir = mkdtempSync(join(tmpdir(), 'farebox-rehearsal-cdp-'));
const cdpConfig = join(cdpDir, 'farebox.yaml');
const cdpPayTo = privateKeyToAccount(generatePrivateKey());
const cdpInitOut = execFileSync(fareboxBinary(), ['init', '--upstream', upstream.url, '--pay-to', cdpPayTo.address, '--model', 'rehearsal',
  '--price', '0.01', '--network', 'base', '--config', cdpConfig],
{ encoding: 'utf8', env: { ...process.env, CDP_API_KEY_ID: '', CDP_API_KEY_SECRET: '' } });
const written = readFileSync(cdpConfig, 'utf8');
const facilitatorKey = generatePrivateKey();
const facilitatorRelayer = privateKeyToAccount(facilitatorKey).address;
await anvil.chain.client.request({ method: 'anvil_setBalance', params: [facilitatorRelayer, '0x56bc75e2d63100000'] }); // 100 ETH
const reference = await startReferenceFacilitator(anvil.rpcURL, facilitatorKey);
const keys = [cdpKey('ec', 'organizations/rehearsal/apiKeys/ec-key'), cdpKey('ed25519', 'ed25519-rehearsal-key')];
const standin = await startCDPStandin({ upstream: reference.url, keys });
const late = await startCDPStandin({ upstream: reference.url, keys, clockSkew: '5m' });
writeFileSync(cdpConfig, written.replace(CDP_URL, standin.url));
const lateConfig = join(cdpDir, 'farebox-late.yaml');
writeFileSync(lateConfig, written.replace(CDP_URL, late.url));
after(async () => {
  await farebox.stop(); await late.stop(); await standin.stop(); await reference.stop(); await upstream.stop(); await anvil.stop();
});

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


// refusedStart runs `farebox serve` on config with the key's variables
// and returns its exit status and stderr: it must not start.
function refusedStart(config, id, secret) {
  const r = spawnSync(fareboxBinary(), ['serve', '--config', config, '--addr', '127.0.0.1:0'], {
    cwd: cdpDir, encoding: 'utf8', timeout: 90_000,
    env: { ...process.env, CDP_API_KEY_ID: id, CDP_API_KEY_SECRET: secret },
  });
  return { status: r.status, stderr: r.stderr ?? '', stdout: r.stdout ?? '' };
}

// assertOneLineNamingKey checks a refused start: exit 1, one line on
// stderr naming the key id, nothing of the secret anywhere.
function assertOneLineNamingKey({ status, stderr, stdout }, key, id) {
  assert.equal(status, 1, `farebox started or crashed: ${stdout}${stderr}`);
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.ok(lines[0].includes(id), `the error does not name the key id ${id}: ${stderr}`);
  const body = key.secret.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  for (const part of [body, body.slice(0, 24), body.slice(-24), 'PRIVATE KEY']) {
    assert.ok(!(stdout + stderr).includes(part), `the output shows the secret: ${stderr}`);
  }
}

test('init --network base writes the CDP facilitator (kind cdp) and names its key variables', () => {
  assert.match(written, /networks:\s*\n\s*- base\b/);
  assert.match(written, /settler: facilitator/);
  assert.match(written, /kind: cdp/);
  assert.ok(written.includes(CDP_URL), written);
  assert.match(written, /key_id_env: CDP_API_KEY_ID/);
  assert.match(written, /key_secret_env: CDP_API_KEY_SECRET/);
  assert.doesNotMatch(written, /x402\.org|custom_networks|rpc_url/);
  assert.match(cdpInitOut, /CDP_API_KEY_ID/);
});

for (const key of keys) {
  test(`through CDP with an ${key.kind === 'ec' ? 'EC (ES256)' : 'Ed25519 (EdDSA)'} key, the official client pays eip155:8453 and the chain shows it`, async () => {
    const logBefore = await standin.log();
    const farebox2 = await serveFile(cdpConfig, { CDP_API_KEY_ID: key.id, CDP_API_KEY_SECRET: key.secret });
    try {
      const { client } = anvil.chain;
      const before = {
        payer: await anvil.chain.balanceOf(payer.address),
        payTo: await anvil.chain.balanceOf(cdpPayTo.address),
        facilitatorGas: await client.getBalance({ address: facilitatorRelayer }),
        fareboxGas: await client.getBalance({ address: anvil.accounts.relayer.address }),
      };
      const pay = payingFetch(payer);
      const res = await pay(`${farebox2.baseURL}/responses`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'rehearsal', input: 'hi' }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, `${text}\n${farebox2.logs()}\n${reference.logs()}`);
      assert.match(text, /Paid on Base\./);
      assert.equal(pay.counter.paid().length, 1);
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response'));
      await anvil.chain.assertSettled(receipt, { payer: payer.address, payTo: cdpPayTo.address, amount: 10_000n, network: 'eip155:8453' });
      const tx = await client.getTransaction({ hash: receipt.transaction });
      assert.equal(getAddress(tx.from), getAddress(facilitatorRelayer), 'the facilitator\'s relayer sent the transfer');
      assert.equal(await anvil.chain.balanceOf(payer.address), before.payer - 10_000n);
      assert.equal(await anvil.chain.balanceOf(cdpPayTo.address), before.payTo + 10_000n);
      assert.ok(await client.getBalance({ address: facilitatorRelayer }) < before.facilitatorGas, 'the facilitator paid the gas');
      assert.equal(await client.getBalance({ address: anvil.accounts.relayer.address }), before.fareboxGas, 'farebox\'s own relayer paid nothing');
      const log = await standin.log();
      assert.deepEqual(log.refused, logBefore.refused, 'the stand-in refused a token farebox signed');
      assert.equal((log.accepted.settle ?? 0) - (logBefore.accepted.settle ?? 0), 1, 'one settlement through CDP');
      assert.ok((log.accepted.supported ?? 0) > (logBefore.accepted.supported ?? 0), 'the start-up proof asked /supported with the key');
    } finally {
      await farebox2.stop();
    }
  });
}

test('a wrong CDP key id refuses the start in one line naming it, never the secret', async () => {
  const wrong = 'organizations/rehearsal/apiKeys/revoked';
  const refusedBefore = (await standin.log()).refused.length;
  assertOneLineNamingKey(refusedStart(cdpConfig, wrong, keys[0].secret), keys[0], wrong);
  const { refused } = await standin.log();
  assert.ok(refused.slice(refusedBefore).some((r) => r.includes('unknown key id')), JSON.stringify(refused));
});

test('an expired CDP token (the clock five minutes off) refuses the start in one line naming the key id', async () => {
  const key = keys[1];
  const refusal = refusedStart(lateConfig, key.id, key.secret);
  assertOneLineNamingKey(refusal, key, key.id);
  assert.match(refusal.stderr, /clock/, 'the error points at the clock');
  const { refused, accepted } = await late.log();
  assert.ok(refused.some((r) => /expired/.test(r)), JSON.stringify(refused));
  assert.equal(accepted.settle ?? 0, 0);
});
