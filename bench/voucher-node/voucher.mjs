// Times sequential farebox calls paid through @x402/fetch with the official
// @x402/evm BatchSettlementEvmScheme: the warm-up calls deposit into a
// channel (mined), the timed ones send vouchers. Reads {privateKey, url,
// model, warm, calls, asset, network, maxAtomic, rpcUrl} as JSON on stdin;
// writes {ms: [per timed call], charged: [every call's chargedAmount],
// balance: the channel balance of the last receipt} on stdout.
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from '@x402/fetch';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import { toClientEvmSigner } from '@x402/evm';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const req = JSON.parse(input);
const account = privateKeyToAccount(req.privateKey);
const signer = toClientEvmSigner(account, createPublicClient({ transport: http(req.rpcUrl) }));
// The deposit is capped at depositMultiplier x maxAmountPerPayment (the
// ceiling here); farebox announces a minimum deposit of 0.01 USDC, ten
// ceilings, so the cap must allow at least that.
const scheme = new BatchSettlementEvmScheme(signer, {
  storage: new InMemoryClientChannelStorage(),
  rpcUrl: req.rpcUrl,
  depositPolicy: { depositMultiplier: 20 },
});
const pay = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network: 'eip155:*', client: scheme }],
  spendControls: { allowedAssets: [{ network: req.network, asset: req.asset, maxAmountPerPayment: req.maxAtomic }] },
});
const body = JSON.stringify({ model: req.model, input: 'Say hello.' });
const out = { ms: [], charged: [], balance: null };
for (let i = 0; i < req.warm + req.calls; i++) {
  const t0 = performance.now();
  const res = await pay(req.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const text = await res.text();
  const ms = performance.now() - t0;
  const header = res.headers.get('PAYMENT-RESPONSE');
  if (res.status !== 200 || !header) {
    process.stderr.write(`call ${i}: HTTP ${res.status}: ${text.slice(0, 300)}\n`);
    process.exit(1);
  }
  const receipt = decodePaymentResponseHeader(header);
  out.charged.push(receipt.extra?.chargedAmount ?? null);
  out.balance = receipt.extra?.channelState?.balance ?? out.balance;
  if (i >= req.warm) out.ms.push(ms);
}
process.stdout.write(JSON.stringify(out));
