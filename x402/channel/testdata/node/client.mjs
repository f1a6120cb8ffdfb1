// Reads one request as JSON on stdin and writes the payment payload that the
// official @x402/evm client builds for it as JSON on stdout.
//   {scheme: "batch-settlement" | "upto", privateKey, requirements, rpcUrl?,
//    channels?: {<channelId>: {balance, chargedCumulativeAmount}}, extensions?}
// `channels` seeds the batch-settlement client's channel storage (what it
// remembers from earlier answers); `extensions` is the 402's extensions.
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { privateKeyToAccount } from 'viem/accounts';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const req = JSON.parse(input);
const account = privateKeyToAccount(req.privateKey);
const context = req.extensions ? { extensions: req.extensions } : undefined;

let scheme;
if (req.scheme === 'batch-settlement') {
  const storage = new InMemoryClientChannelStorage();
  for (const [id, ctx] of Object.entries(req.channels ?? {})) await storage.set(id.toLowerCase(), ctx);
  scheme = new BatchSettlementEvmScheme(account, req.rpcUrl ? { storage, rpcUrl: req.rpcUrl } : { storage });
} else if (req.scheme === 'upto') {
  scheme = new UptoEvmScheme(account, req.rpcUrl ? { rpcUrl: req.rpcUrl } : undefined);
} else {
  throw new Error('unknown scheme ' + req.scheme);
}
const result = await scheme.createPaymentPayload(2, req.requirements, context);
process.stdout.write(JSON.stringify(result));
