// The README's Vercel AI SDK example: @ai-sdk/openai in Responses mode with
// a paying fetch; the tool runs here and each step is a paid call.
// From the repository root, after `npm ci --prefix interop/examples/vercel-ai` (its own
// install, only the clients it imports):
//   FAREBOX_PAYER_KEY=0x... FAREBOX_TOKEN=0x... node interop/examples/vercel-ai/main.mjs
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, tool, stepCountIs } from 'ai';
import { z } from 'zod';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { privateKeyToAccount } from 'viem/accounts';

for (const [name, what] of [['FAREBOX_PAYER_KEY', 'the hex private key farebox dev prints under DEV PAYER'],
  ['FAREBOX_TOKEN', 'the address farebox dev prints as "token (USDC)"']]) {
  if (!process.env[name]) throw new Error(`${name} is empty: want ${what}`);
}
const account = privateKeyToAccount(process.env.FAREBOX_PAYER_KEY);
const fetchWithPayment = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
  spendControls: {
    allowedAssets: [{ network: 'eip155:1337', asset: process.env.FAREBOX_TOKEN, maxAmountPerPayment: '10000' }],
  },
});

const openai = createOpenAI({
  baseURL: process.env.FAREBOX_BASE_URL ?? 'http://127.0.0.1:8402/v1',
  apiKey: 'unused',
  fetch: fetchWithPayment,
});

const result = await generateText({
  model: openai.responses('farebox-scripted'),
  // farebox is stateless: send whole conversations, never item references.
  providerOptions: { openai: { store: false } },
  tools: {
    get_weather: tool({
      description: 'Current weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `Sunny, 21 C in ${city}`,
    }),
  },
  stopWhen: stepCountIs(5),
  prompt: 'What is the weather? Use get_weather.',
});
console.log(result.text);
console.log(`${result.steps.length} steps, each paid with x402`);
