// Pays one farebox call through @x402/fetch with the official @x402/evm
// UptoEvmScheme (the only scheme registered, so of a 402 offering
// batch-settlement, upto and exact it takes upto). Reads one request as
// JSON on stdin: {privateKey, url, body, asset, network, maxAtomic, rpcUrl?}
// and writes {status, body, receipt, payments, header, sent} on stdout:
// header is the last PAYMENT-SIGNATURE sent, sent the request body.
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from '@x402/fetch';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { privateKeyToAccount } from 'viem/accounts';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const req = JSON.parse(input);
const account = privateKeyToAccount(req.privateKey);
let payments = 0;
let header = null;
const counting = async (input, init) => {
  const r = new Request(input, init);
  if (r.headers.get('PAYMENT-SIGNATURE')) {
    payments++;
    header = r.headers.get('PAYMENT-SIGNATURE');
  }
  return fetch(r);
};
const sent = JSON.stringify(req.body);
const pay = wrapFetchWithPaymentFromConfig(counting, {
  schemes: [{ network: 'eip155:*', client: new UptoEvmScheme(account, req.rpcUrl ? { rpcUrl: req.rpcUrl } : undefined) }],
  spendControls: { allowedAssets: [{ network: req.network, asset: req.asset, maxAmountPerPayment: req.maxAtomic }] },
});
const res = await pay(req.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: sent });
const receipt = res.headers.get('PAYMENT-RESPONSE');
process.stdout.write(JSON.stringify({
  status: res.status,
  body: await res.text(),
  receipt: receipt ? decodePaymentResponseHeader(receipt) : null,
  payments,
  header,
  sent,
}));
