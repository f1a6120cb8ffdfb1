// The operator's dashboard in a real browser: Debian's chromium, headless,
// driven by playwright-core. It loads /admin with the banner's admin token,
// shows the revenue of paid calls just made (as the admin API and the
// chain count it), and writes a screenshot as a test artifact.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import OpenAI from 'openai';
import { chromium } from 'playwright-core';
import { devWorld, PAID, FREE } from '../lib/world.js';

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
