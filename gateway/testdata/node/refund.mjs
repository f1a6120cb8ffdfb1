// Pays farebox calls and asks for cooperative refunds with the official
// @x402/evm BatchSettlementEvmScheme, one channel store for all: calls go
// through @x402/fetch (POST), refunds through scheme.refund(url), which
// probes the url with a GET for its 402 and sends the refund payload with
// another GET. Reads {privateKey, url, refundUrl, steps, asset, network,
// maxAtomic, rpcUrl} as JSON on stdin, where each step is {body} (a call)
// or {refund: amount|null} (null: all that is left), and writes one result
// per step on stdout: {status, body, receipt} or {settle} or {error}.
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
for (const step of req.steps) {
  try {
    if (step.body) {
      const res = await pay(req.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(step.body) });
      const receipt = res.headers.get('PAYMENT-RESPONSE');
      out.push({ status: res.status, body: await res.text(), receipt: receipt ? decodePaymentResponseHeader(receipt) : null });
    } else {
      const settle = await scheme.refund(req.refundUrl, step.refund ? { amount: step.refund } : {});
      out.push({ settle });
    }
  } catch (e) {
    out.push({ error: String(e?.message ?? e) });
  }
}
process.stdout.write(JSON.stringify(out));
