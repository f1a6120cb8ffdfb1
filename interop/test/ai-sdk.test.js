// The Vercel AI SDK (ai + @ai-sdk/openai in Responses mode, openai.chat()
// on Chat Completions, @ai-sdk/anthropic on Messages) paying farebox dev
// through @x402/fetch: tools run on the client, every step is a new, paid
// request carrying the whole conversation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, streamText, tool, stepCountIs, APICallError } from 'ai';
import { z } from 'zod';
import { devWorld, PAID } from '../lib/world.js';
import { decodePaymentResponseHeader } from '../lib/paying.js';

const w = await devWorld();

function provider() {
  const fetch = w.pay();
  return { openai: createOpenAI({ baseURL: w.dev.baseURL, apiKey: 'x402-pays-instead', fetch }), counter: fetch.counter };
}

function weatherTools(log) {
  return {
    get_weather: tool({
      description: 'Current weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => { log.push(city); return `Sunny, 21 C in ${city}`; },
    }),
  };
}

test('generateText with a tool: two paid steps, the tool runs on the client, the answer quotes its result', async () => {
  const { openai, counter } = provider();
  const before = await w.balance();
  const ran = [];
  const r = await generateText({
    model: openai.responses(PAID),
    tools: weatherTools(ran),
    stopWhen: stepCountIs(5),
    prompt: 'What is the weather? Use get_weather.',
  });
  assert.equal(r.steps.length, 2);
  assert.equal(r.steps[0].finishReason, 'tool-calls');
  assert.equal(r.steps[0].toolCalls[0].toolName, 'get_weather');
  assert.equal(ran.length, 1);
  assert.equal(r.steps[1].finishReason, 'stop');
  assert.match(r.text, new RegExp(`Sunny, 21 C in ${ran[0]}`));
  for (const step of r.steps) {
    const header = step.response.headers['payment-response'];
    assert.ok(header, 'each step carries its receipt');
    await w.assertPaid(decodePaymentResponseHeader(header));
  }
  assert.equal(counter.paid().length, 2);
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('streamText with a tool: stream parts in order across two paid steps, in-band receipts on chain', async () => {
  const { openai, counter } = provider();
  const before = await w.balance();
  const ran = [];
  const errors = [];
  const s = streamText({
    model: openai.responses(PAID),
    tools: weatherTools(ran),
    stopWhen: stepCountIs(5),
    prompt: 'Stream the weather, use get_weather',
    includeRawChunks: true,
    onError: ({ error }) => errors.push(error),
  });
  const types = [];
  const receipts = [];
  for await (const part of s.fullStream) {
    if (part.type === 'raw') {
      if (part.rawValue.type === 'response.completed') receipts.push(part.rawValue.response.x402);
      continue;
    }
    types.push(part.type);
  }
  assert.deepEqual(errors, []);
  const order = ['start-step', 'tool-call', 'tool-result', 'finish-step', 'start-step', 'text-delta', 'finish-step', 'finish'];
  let at = -1;
  for (const t of order) {
    const next = types.indexOf(t, at + 1);
    assert.ok(next > at, `${t} after position ${at} in ${types.join(' ')}`);
    at = next;
  }
  assert.match(await s.text, new RegExp(`Sunny, 21 C in ${ran[0]}`));
  assert.equal((await s.steps).length, 2);
  assert.equal(receipts.length, 2);
  for (const rc of receipts) await w.assertPaid(rc);
  assert.equal(counter.paid().length, 2);
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('a multi-turn chat replays the conversation with store: false', async () => {
  const { openai, counter } = provider();
  const opts = { providerOptions: { openai: { store: false } } };
  const first = await generateText({ model: openai.responses(PAID), prompt: 'first turn', ...opts });
  assert.equal(first.text, 'You said: first turn');
  const second = await generateText({
    model: openai.responses(PAID),
    messages: [{ role: 'user', content: 'first turn' }, ...first.response.messages, { role: 'user', content: 'second turn' }],
    ...opts,
  });
  assert.equal(second.text, 'You said: second turn');
  assert.equal(second.request.body.input.length, 3, 'the whole conversation was sent');
  assert.equal(counter.paid().length, 2);
});

test('the default store: true replays items by reference: refused with a clear 400 before any payment', async () => {
  const { openai, counter } = provider();
  const first = await generateText({ model: openai.responses(PAID), prompt: 'remember me' });
  const paidBefore = counter.paid().length;
  const before = await w.balance();
  const err = await generateText({
    model: openai.responses(PAID),
    maxRetries: 2,
    messages: [{ role: 'user', content: 'remember me' }, ...first.response.messages, { role: 'user', content: 'again' }],
  }).then(() => assert.fail('item_reference must be refused'), (e) => e);
  assert.ok(APICallError.isInstance(err), `got ${err}`);
  assert.equal(err.statusCode, 400);
  assert.match(err.message, /item_reference.*whole conversation/s);
  assert.equal(counter.calls.at(-1).status, 400);
  assert.equal(counter.calls.filter((c) => c.status === 400).length, 1, 'a 400 is not retried');
  assert.equal(counter.paid().length, paidBefore);
  assert.equal(await w.balance(), before, 'nothing charged');
});

// The other wires: openai.chat() posts /chat/completions, @ai-sdk/anthropic
// posts /messages (its base URL includes /v1).
const wires = {
  'openai.chat': () => {
    const fetch = w.pay();
    return { model: createOpenAI({ baseURL: w.dev.baseURL, apiKey: 'x402-pays-instead', fetch }).chat(PAID), counter: fetch.counter };
  },
  '@ai-sdk/anthropic': () => {
    const fetch = w.pay();
    return { model: createAnthropic({ baseURL: w.dev.baseURL, apiKey: 'x402-pays-instead', fetch })(PAID), counter: fetch.counter };
  },
};

for (const [name, make] of Object.entries(wires)) {
  test(`${name} generateText with a tool execute: two paid steps on chain, the answer quotes the tool`, async () => {
    const { model, counter } = make();
    const before = await w.balance();
    const ran = [];
    const r = await generateText({ model, tools: weatherTools(ran), stopWhen: stepCountIs(5), prompt: 'What is the weather? Use get_weather.' });
    assert.equal(r.steps.length, 2);
    assert.equal(r.steps[0].finishReason, 'tool-calls');
    assert.equal(r.steps[0].toolCalls[0].toolName, 'get_weather');
    assert.equal(ran.length, 1);
    assert.match(r.text, new RegExp(`get_weather returned: "?Sunny, 21 C in ${ran[0]}`));
    for (const step of r.steps) await w.assertPaid(decodePaymentResponseHeader(step.response.headers['payment-response']));
    assert.equal(counter.paid().length, 2);
    assert.equal(before - (await w.balance()), 2n * w.price);
  });

  test(`${name} streamText with a tool: tool-call, tool-result, then streamed text; two paid steps`, async () => {
    const { model, counter } = make();
    const before = await w.balance();
    const ran = [];
    const errors = [];
    const s = streamText({ model, tools: weatherTools(ran), stopWhen: stepCountIs(5), prompt: 'Stream the weather, use get_weather', onError: ({ error }) => errors.push(error) });
    const types = [];
    for await (const part of s.fullStream) types.push(part.type);
    assert.deepEqual(errors, []);
    let at = -1;
    for (const t of ['tool-call', 'tool-result', 'finish-step', 'text-delta', 'finish']) {
      const next = types.indexOf(t, at + 1);
      assert.ok(next > at, `${t} after position ${at} in ${types.join(' ')}`);
      at = next;
    }
    assert.match(await s.text, new RegExp(`get_weather returned: "?Sunny, 21 C in ${ran[0]}`));
    assert.equal(counter.paid().length, 2);
    assert.equal(before - (await w.balance()), 2n * w.price);
  });
}
