// The operator's dashboard in a real browser: Debian's chromium, headless,
// driven by playwright-core. It loads /admin with the banner's admin token,
// shows the revenue of paid calls just made (as the admin API and the
// chain count it), and writes a screenshot as a test artifact; its debts
// table forgives a real debt (a farebox dev of its own on anvil, whose
// mining the test holds so a served payer's transfer fails on chain); its
// channels say when and why the next claim comes, and Claim now claims.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import OpenAI from 'openai';
import { chromium } from 'playwright-core';
import { createWalletClient, http, parseAbi, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devWorld, PAID, FREE } from '../lib/world.js';
import { startDev, startServe } from '../lib/farebox.js';
import { startBareAnvil } from '../lib/anvil.js';
import { chainReader, localChain, DEV_RELAYER } from '../lib/chain.js';
import { payingFetch } from '../lib/paying.js';
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from '@x402/fetch';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import { toClientEvmSigner } from '@x402/evm';

const w = await devWorld();
const admin = new URL('/admin', w.dev.baseURL).href;
const artifacts = process.env.FAREBOX_ARTIFACTS || join(tmpdir(), 'farebox-artifacts');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
after(() => browser.close());

async function summary() {
  const r = await fetch(`${admin}/api/summary`, { headers: { Authorization: `Bearer ${w.dev.adminToken}` } });
  assert.equal(r.status, 200);
  return r.json();
}

// settledAfter polls the summary until PAID's settled total reaches want
// (a transfer is mined after its answer): the books catch up within 20 s.
async function settledAfter(want) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const s = await summary();
    const got = Number(s.models[PAID].settled);
    if (got >= want - 1e-9 || Date.now() > deadline) return s;
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('the admin API refuses a missing or wrong token with a 401 error object', async () => {
  for (const headers of [{}, { Authorization: 'Bearer not-the-admin-token-at-all' }]) {
    const r = await fetch(`${admin}/api/summary`, { headers });
    assert.equal(r.status, 401);
    const body = await r.json();
    assert.equal(typeof body.error.message, 'string');
    assert.equal(body.error.code, 'invalid_api_key');
  }
});

test('/admin in headless chromium shows the settled revenue of the calls just made', async () => {
  assert.ok(w.dev.adminToken && w.dev.adminToken.length >= 16, 'the banner prints an admin token');
  const before = Number((await summary()).models[PAID].settled);
  const paidBefore = await w.chain.balanceOf(w.dev.payTo);
  const openai = new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'x402-pays-instead', fetch: w.pay() });
  for (let i = 0; i < 2; i++) await openai.responses.create({ model: PAID, input: `dashboard call ${i}` });
  await new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'free' }).responses.create({ model: FREE, input: 'free call' });
  const price = Number(w.dev.price);
  const sum = await settledAfter(before + 2 * price);
  const settled = sum.models[PAID].settled;
  assert.ok(Math.abs(Number(settled) - (before + 2 * price)) < 1e-9, `settled ${settled}, want ${before} + 2 x ${price}`);
  assert.equal(await w.chain.balanceOf(w.dev.payTo) - paidBefore, 2n * w.price, "payTo's on-chain gain is the two calls");

  const page = await browser.newPage({ extraHTTPHeaders: { Authorization: `Bearer ${w.dev.adminToken}` }, viewport: { width: 1400, height: 1100 } });
  await page.goto(admin);
  const row = page.locator('#models tr', { hasText: PAID }).first();
  await row.locator('td', { hasText: new RegExp(`^${settled.replace('.', '\\.')}$`) }).first().waitFor({ timeout: 20_000 });
  const cells = await row.locator('td').allTextContents();
  assert.equal(cells[0], PAID);
  assert.equal(cells[4], settled, 'the settled column shows the books');
  // The relayer's gas for those transfers, in ETH (dev prices no ETH, so its USDC column says unpriced).
  // (Gas is booked with each transfer's confirmation, as settled is.)
  const heads = await page.locator('#models th').allTextContents();
  const gasETH = cells[heads.indexOf('gas (ETH)')];
  assert.ok(/^[0-9.]+$/.test(gasETH) && Number(gasETH) > 0, `the gas column shows the relayer's gas: ${gasETH}`);
  assert.equal(cells[heads.indexOf('gas (USDC)')], 'unpriced');
  assert.ok(await page.locator('#chart svg rect').count() > 0, 'the revenue chart has bars');
  mkdirSync(artifacts, { recursive: true });
  const shot = join(artifacts, 'admin-dashboard.png');
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
  await page.close();
});

test('/admin without a token offers the login form; the token signs in with an HttpOnly SameSite=Strict cookie', async () => {
  const page = await browser.newPage();
  const res = await page.goto(admin);
  assert.equal(res.status(), 401);
  await page.fill('#token', w.dev.adminToken);
  await Promise.all([page.waitForURL(admin), page.click('button[type=submit]')]);
  await page.locator('#models td', { hasText: PAID }).first().waitFor({ timeout: 20_000 });
  const [cookie] = await page.context().cookies();
  assert.equal(cookie.name, 'farebox_admin');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');
  await page.close();
});

test('a page of another origin cannot read the books, even with the cookie', async () => {
  const r = await fetch(`${admin}/api/summary`, {
    headers: { Authorization: `Bearer ${w.dev.adminToken}`, Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
  });
  assert.equal(r.status, 403);
  assert.equal(r.headers.get('access-control-allow-origin'), null);
});

// rpc sends one JSON-RPC call to a node (anvil's test methods).
async function rpc(url, method, params = []) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

test('the debts table forgives a real debt: a payer served whose transfer then failed on chain', async () => {
  // Its own farebox dev on anvil, whose mining the test holds: the payer is
  // served (its transfer broadcast), then empties its balance with a
  // transaction the same block orders first, so farebox's transfer fails.
  const anvil = await startBareAnvil();
  after(() => anvil.stop());
  const dev = await startDev(['--chain', anvil.rpcURL]);
  after(() => dev.stop());
  const api = async (path, init = {}) => {
    const r = await fetch(new URL(`/admin/api/${path}`, dev.baseURL), { ...init, headers: { Authorization: `Bearer ${dev.adminToken}` } });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return r.json();
  };
  const payerLine = async () => (await api('payers')).payers.find((p) => p.payer === dev.payer.toLowerCase());
  const chain = chainReader({ rpcURL: anvil.rpcURL, chainId: dev.chainId, token: dev.token });
  const account = privateKeyToAccount(dev.payerKey);
  await rpc(anvil.rpcURL, 'anvil_setBalance', [account.address, '0xde0b6b3a7640000']); // gas for its own transfer
  const held = await chain.balanceOf(account.address);

  await rpc(anvil.rpcURL, 'evm_setAutomine', [false]);
  try {
    const openai = new OpenAI({ baseURL: dev.baseURL, apiKey: 'x402-pays-instead', fetch: payingFetch(account, { network: dev.network, asset: dev.token }), maxRetries: 0 });
    const res = await openai.responses.create({ model: PAID, input: 'serve me on credit' });
    assert.equal(res.status, 'completed', 'the payer is served before its transfer is mined');
    const wallet = createWalletClient({ account, chain: localChain(dev.chainId, anvil.rpcURL), transport: http(anvil.rpcURL) });
    await wallet.writeContract({ address: dev.token, abi: parseAbi(['function transfer(address,uint256) returns (bool)']), functionName: 'transfer',
      args: ['0x000000000000000000000000000000000000dEaD', held], maxPriorityFeePerGas: 500_000_000_000n, maxFeePerGas: 1_000_000_000_000n, gas: 200_000n });
    await rpc(anvil.rpcURL, 'evm_mine');
  } finally {
    await rpc(anvil.rpcURL, 'evm_setAutomine', [true]);
  }
  const price = dev.price;
  const deadline = Date.now() + 30_000;
  let line;
  while (!(line = await payerLine()) || line.owed === '0') {
    assert.ok(Date.now() < deadline, `no debt listed: ${JSON.stringify(line)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(line.owed, price, 'the payer owes the failed transfer');

  const page = await browser.newPage({ extraHTTPHeaders: { Authorization: `Bearer ${dev.adminToken}` }, viewport: { width: 1400, height: 1100 } });
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); d.accept(); });
  await page.goto(new URL('/admin', dev.baseURL).href);
  const button = page.locator(`#failed button.forgive[data-payer="${dev.payer.toLowerCase()}"]`);
  await button.waitFor({ timeout: 20_000 });
  const row = button.locator('xpath=ancestor::tr');
  assert.equal((await row.locator('td').allTextContents())[1], price, 'the debts table shows what the payer owes');
  assert.equal(await row.locator('span').first().getAttribute('title'), dev.payer.toLowerCase(), "on the payer's row");
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, 'admin-debts.png'), fullPage: true });
  await button.click();
  await button.waitFor({ state: 'detached', timeout: 20_000 }); // the page refreshed: no debt left to forgive
  assert.ok(dialogs[0].startsWith('confirm: Forgive every debt of'), `asked first: ${dialogs}`);
  assert.ok(dialogs[1].startsWith(`alert: forgave ${price} USDC (1 debts)`), `then told: ${dialogs}`);
  line = await payerLine();
  assert.equal(line.owed, '0', 'nothing owed any more');
  assert.equal(line.forgiven, price, 'the books wrote the debt off');
  assert.equal((await api('summary')).models[PAID].forgiven, price);
  await page.close();
});

test('the channels show when and why the next claim comes, and Claim now moves exactly the unclaimed to payTo', async () => {
  // Its own farebox dev, claiming hourly: what is charged waits for the
  // interval (from the start) or the operator.
  const dev = await startDev(['--claim-interval', '1h']);
  after(() => dev.stop());
  const api = async (path, method = 'GET') => {
    const r = await fetch(new URL(`/admin/api/${path}`, dev.baseURL), { method, headers: { Authorization: `Bearer ${dev.adminToken}` } });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return r.json();
  };
  const chain = chainReader({ rpcURL: dev.rpcURL, chainId: dev.chainId, token: dev.token, relayers: [DEV_RELAYER] });
  const account = privateKeyToAccount(dev.payerKey);
  const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(account, chain.client), { storage: new InMemoryClientChannelStorage(), rpcUrl: dev.rpcURL });
  const fetchPaying = wrapFetchWithPaymentFromConfig(globalThis.fetch, {
    schemes: [{ network: 'eip155:*', client: scheme }],
    spendControls: { allowedAssets: [{ network: dev.network, asset: dev.token, maxAmountPerPayment: '1000000' }] },
  });
  const openai = new OpenAI({ baseURL: dev.baseURL, apiKey: 'x402-pays-instead', fetch: fetchPaying, maxRetries: 0 });
  const call = async (input) => {
    const { response } = await openai.responses.create({ model: 'farebox-scripted-metered', input }).withResponse();
    const receipt = decodePaymentResponseHeader(response.headers.get('payment-response'));
    assert.equal(receipt.success, true);
    return BigInt(receipt.extra.chargedAmount);
  };
  const charged = (await call('the deposit')) + (await call('voucher one')) + (await call('voucher two'));
  const chans = await api('channels');
  assert.equal(chans.next_claim_reason, 'interval');
  assert.ok(Date.parse(chans.next_claim_at) - Date.now() > 50 * 60_000, `the interval's claim, an hour after the start: ${chans.next_claim_at}`);
  assert.equal(parseUnits(chans.unclaimed, 6), charged, 'what the calls charged waits');

  const page = await browser.newPage({ extraHTTPHeaders: { Authorization: `Bearer ${dev.adminToken}` }, viewport: { width: 1400, height: 1100 } });
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.accept(); });
  await page.goto(new URL('/admin', dev.baseURL).href);
  await page.locator('#chansum', { hasText: '(interval)' }).waitFor({ timeout: 20_000 });
  const row = page.locator('#channels tr', { hasText: '(interval)' }).first();
  assert.equal((await row.locator('td').allTextContents())[4], chans.unclaimed, 'the channel shows what it holds unclaimed');
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, 'admin-channels.png'), fullPage: true });
  const before = await chain.balanceOf(dev.payTo);
  await page.click('#claim');
  await page.locator('#chansum', { hasText: 'nothing waits to be claimed' }).waitFor({ timeout: 30_000 });
  assert.equal(dialogs[0], `claimed ${chans.unclaimed} USDC from 1 channels`);
  assert.equal(await chain.balanceOf(dev.payTo) - before, charged, "payTo's on-chain gain is exactly what was unclaimed");
  await page.close();
});

test('/admin shows each supplier of a pool: the failing one open with its error, the answering one closed', async () => {
  const token = 'supplier-health-admin-token-01';
  const srv = await startServe(`admin: {token_env: FAREBOX_ADMIN_TOKEN}
models:
  - name: pooled
    price: "0"
    suppliers:
      - {name: down, upstream: chat, base_url: "http://127.0.0.1:1/v1", upstream_model: x}
      - {name: local, upstream: scripted}
    routing: {strategy: ordered, circuit: {failures: 2, cooldown: 1h}}
`, { FAREBOX_ADMIN_TOKEN: token });
  try {
    const openai = new OpenAI({ baseURL: srv.baseURL, apiKey: 'free', maxRetries: 0 });
    for (let i = 0; i < 4; i++) await openai.responses.create({ model: 'pooled', input: `pooled call ${i}` });
    const page = await browser.newPage({ extraHTTPHeaders: { Authorization: `Bearer ${token}` }, viewport: { width: 1400, height: 1100 } });
    await page.goto(new URL('/admin', srv.baseURL).href);
    const row = (name) => page.locator('#health tr', { has: page.locator('td', { hasText: new RegExp(`^${name}$`) }) }).first();
    await row('local').waitFor({ timeout: 20_000 });
    const heads = await page.locator('#health th').allTextContents();
    const down = await row('down').locator('td').allTextContents();
    const local = await row('local').locator('td').allTextContents();
    assert.equal(down[heads.indexOf('circuit')], 'open', `the failing supplier's circuit: ${down}`);
    assert.equal(down[heads.indexOf('failed')], '2');
    const why = await row('down').locator('td').nth(heads.indexOf('why')).locator('span').getAttribute('title');
    assert.match(why, /connection refused/, 'the last error, whole on hover');
    assert.equal(local[heads.indexOf('circuit')], 'closed');
    assert.equal(local[heads.indexOf('answered')], '4');
    mkdirSync(artifacts, { recursive: true });
    await page.locator('#health').screenshot({ path: join(artifacts, 'admin-supplier-health.png') });
    await page.close();
  } finally {
    await srv.stop();
  }
});
