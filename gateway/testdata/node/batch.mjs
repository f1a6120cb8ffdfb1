// Pays several farebox calls in a row through @x402/fetch with the official
// @x402/evm BatchSettlementEvmScheme (the only scheme registered, so of a
// 402 offering batch-settlement, upto and exact it takes batch-settlement):
// the first call deposits into a channel, the next ones send vouchers.
// Reads {privateKey, url, bodies, asset, network, maxAtomic, rpcUrl} as
// JSON on stdin and writes [{status, body, receipt}] on stdout.
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
const scheme = new BatchSettlementEvmScheme(signer, { storage: new InMemoryClientChannelStorage(), rpcUrl: req.rpcUrl });
const pay = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network: 'eip155:*', client: scheme }],
  spendControls: { allowedAssets: [{ network: req.network, asset: req.asset, maxAmountPerPayment: req.maxAtomic }] },
});
const out = [];
for (const body of req.bodies) {
  const res = await pay(req.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const receipt = res.headers.get('PAYMENT-RESPONSE');
  out.push({ status: res.status, body: await res.text(), receipt: receipt ? decodePaymentResponseHeader(receipt) : null });
}
process.stdout.write(JSON.stringify(out));
