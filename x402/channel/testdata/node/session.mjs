// A long-lived official batch-settlement client for the channel service's
// tests: one @x402/evm BatchSettlementEvmScheme with its own channel
// storage, driven by JSON lines on stdin, answering JSON lines on stdout.
// The first line is {privateKey, rpcUrl?}; then
//   {op: "pay", requirements}                      -> {payload}
//   {op: "response", requirements, payload, receipt} -> {channel}  (the client's own receipt handling)
//   {op: "corrective", paymentRequired}            -> {recovered, channel}
//   {op: "refund", requirements, amount?}          -> {refundPayload}, then reads
//        {receipt} or {paymentRequired} (the server's answer) -> {settle, channel}
// Errors are reported as {error}.
import readline from 'node:readline';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage, processPaymentResponse } from '@x402/evm/batch-settlement/client';
import { toClientEvmSigner } from '@x402/evm';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => {
  const r = await lines.next();
  if (r.done) process.exit(0);
  return JSON.parse(r.value);
};
const send = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64');

const init = await next();
const account = privateKeyToAccount(init.privateKey);
// With an RPC endpoint the signer reads the chain, as the client's
// recovery (cold start, corrective 402) needs.
const signer = init.rpcUrl ? toClientEvmSigner(account, createPublicClient({ transport: http(init.rpcUrl) })) : account;
const storage = new InMemoryClientChannelStorage();
const scheme = new BatchSettlementEvmScheme(signer, init.rpcUrl ? { storage, rpcUrl: init.rpcUrl } : { storage });
const channelOf = async (id) => (id ? (await storage.get(id.toLowerCase())) ?? null : null);

for (;;) {
  const m = await next();
  try {
    if (m.op === 'pay') {
      const r = await scheme.createPaymentPayload(2, m.requirements);
      send({ payload: r.payload });
    } else if (m.op === 'response') {
      const p = m.payload;
      await processPaymentResponse(storage, (n) => (n === 'PAYMENT-RESPONSE' ? b64(m.receipt) : null), {
        channelId: p.voucher.channelId, requestAmount: m.requirements.amount,
        depositAmount: p.type === 'deposit' ? p.deposit.amount : undefined,
      });
      send({ channel: await channelOf(p.voucher.channelId) });
    } else if (m.op === 'corrective') {
      const recovered = await scheme.processCorrectivePaymentRequired(m.paymentRequired);
      const id = m.paymentRequired.accepts[0]?.extra?.channelState?.channelId;
      send({ recovered, channel: await channelOf(id) });
    } else if (m.op === 'refund') {
      let id;
      const fetchImpl = async (url, init) => {
        const sig = init?.headers?.['PAYMENT-SIGNATURE'];
        if (!sig) {
          return new Response(null, { status: 402, headers: { 'PAYMENT-REQUIRED': b64({ x402Version: 2, accepts: [m.requirements], resource: { url } }) } });
        }
        const envelope = JSON.parse(Buffer.from(sig, 'base64').toString());
        id = envelope.payload.voucher.channelId;
        send({ refundPayload: envelope.payload });
        const answer = await next();
        if (answer.receipt) return new Response('{}', { status: 200, headers: { 'PAYMENT-RESPONSE': b64(answer.receipt) } });
        return new Response('{}', { status: 402, headers: { 'PAYMENT-REQUIRED': b64(answer.paymentRequired) } });
      };
      const settle = await scheme.refund('http://farebox.test/v1/responses', { fetch: fetchImpl, amount: m.amount ?? undefined });
      send({ settle, channel: await channelOf(id) });
    } else {
      send({ error: 'unknown op ' + m.op });
    }
  } catch (e) {
    send({ error: String(e?.stack ?? e) });
  }
}
