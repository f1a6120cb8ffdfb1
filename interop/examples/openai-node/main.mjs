// The README's openai npm SDK example: its fetch wrapped by @x402/fetch
// pays farebox dev with the dev payer's key.
// From the repository root, after `npm ci --prefix interop/examples/openai-node` (its own
// install, only the clients it imports):
//   FAREBOX_PAYER_KEY=0x... FAREBOX_TOKEN=0x... node interop/examples/openai-node/main.mjs
import OpenAI from 'openai';
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { privateKeyToAccount } from 'viem/accounts';

for (const [name, what] of [['FAREBOX_PAYER_KEY', 'the hex private key farebox dev prints under DEV PAYER'],
  ['FAREBOX_TOKEN', 'the address farebox dev prints as "token (USDC)"']]) {
  if (!process.env[name]) throw new Error(`${name} is empty: want ${what}`);
}
const account = privateKeyToAccount(process.env.FAREBOX_PAYER_KEY);
const fetchWithPayment = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
  // farebox dev's test token is not one of @x402/core's known assets: allow
  // it, up to 0.01 USDC (10000 atomic units) per call.
  spendControls: {
    allowedAssets: [{ network: 'eip155:1337', asset: process.env.FAREBOX_TOKEN, maxAmountPerPayment: '10000' }],
  },
});

const openai = new OpenAI({
  baseURL: process.env.FAREBOX_BASE_URL ?? 'http://127.0.0.1:8402/v1',
  apiKey: 'unused', // x402 pays instead of an API key
  fetch: fetchWithPayment,
});

const { data, response } = await openai.responses
  .create({ model: 'farebox-scripted', input: 'Hello from the openai npm SDK' })
  .withResponse();
console.log(data.output_text);
const receipt = decodePaymentResponseHeader(response.headers.get('payment-response'));
console.log(`paid: tx ${receipt.transaction} on ${receipt.network} by ${receipt.payer}`);

// Streams are settled after the answer: the receipt is on the final response.
const final = await openai.responses.stream({ model: 'farebox-scripted', input: 'And streamed' }).finalResponse();
console.log(final.output_text);
console.log(`paid: tx ${final.x402.transaction} on ${final.x402.network} by ${final.x402.payer}`);
