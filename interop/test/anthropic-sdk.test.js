// The official Anthropic TypeScript SDK (@anthropic-ai/sdk) on farebox's
// Messages wire: messages.create, messages.stream (the SDK's own stream
// accumulator rebuilds the message from the events, so a malformed event
// fails it), tools with a tool_use -> tool_result round trip, count_tokens,
// a client's thinking blocks in history, and the 402 as a normal APIError.
// Paid calls go through @x402/fetch as the SDK's fetch, judged on chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { devWorld, PAID, FREE } from '../lib/world.js';
import { countingFetch, decodePaymentResponseHeader } from '../lib/paying.js';

const w = await devWorld();
// The SDK appends /v1/messages to its base URL: the origin, without /v1.
const origin = w.dev.baseURL.replace(/\/v1\/?$/, '');

function paid() {
  const fetch = w.pay();
  return { anthropic: new Anthropic({ baseURL: origin, apiKey: 'x402-pays-instead', fetch }), counter: fetch.counter };
}
const free = () => new Anthropic({ baseURL: origin, apiKey: 'any' });

const weather = {
  name: 'get_weather',
  description: 'Current weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const textOf = (msg) => msg.content.filter((b) => b.type === 'text').map((b) => b.text).join('');

test('messages.create, free: an Anthropic message echoing the prompt, with usage', async () => {
  const msg = await free().messages.create({ model: FREE, max_tokens: 256, messages: [{ role: 'user', content: 'Hello Messages' }] });
  assert.equal(msg.type, 'message');
  assert.equal(msg.role, 'assistant');
  assert.equal(msg.stop_reason, 'end_turn');
  assert.equal(textOf(msg), 'You said: Hello Messages');
  assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0, JSON.stringify(msg.usage));
});

test('messages.create with a tool, paid: tool_use, then tool_result, answer quotes it; two payments on chain', async () => {
  const { anthropic, counter } = paid();
  const before = await w.balance();
  const messages = [{ role: 'user', content: 'What is the weather? Use get_weather.' }];
  const { data: first, response } = await anthropic.messages.create({ model: PAID, max_tokens: 256, tools: [weather], messages }).withResponse();
  assert.equal(first.stop_reason, 'tool_use');
  const [use] = first.content.filter((b) => b.type === 'tool_use');
  assert.equal(use.name, 'get_weather');
  assert.equal(typeof use.input.city, 'string');
  await w.assertPaid(decodePaymentResponseHeader(response.headers.get('payment-response')));
  const { data: second, response: r2 } = await anthropic.messages.create({
    model: PAID, max_tokens: 256, tools: [weather],
    messages: [...messages, { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 C' }] }],
  }).withResponse();
  assert.equal(second.stop_reason, 'end_turn');
  assert.match(textOf(second), /get_weather returned: Sunny, 21 C/);
  await w.assertPaid(decodePaymentResponseHeader(r2.headers.get('payment-response')));
  assert.equal(counter.paid().length, 2);
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('messages.stream with a tool, paid: finalMessage() accumulates tool_use input from input_json_delta', async () => {
  const { anthropic, counter } = paid();
  const before = await w.balance();
  const messages = [{ role: 'user', content: 'Stream it: use get_weather' }];
  const s1 = anthropic.messages.stream({ model: PAID, max_tokens: 256, tools: [weather], messages });
  const events = [];
  s1.on('streamEvent', (e) => events.push(e.type));
  const first = await s1.finalMessage();
  assert.equal(events[0], 'message_start');
  assert.equal(events.at(-1), 'message_stop');
  assert.ok(events.includes('content_block_delta'), events.join(' '));
  assert.equal(first.stop_reason, 'tool_use');
  const [use] = first.content.filter((b) => b.type === 'tool_use');
  assert.equal(use.name, 'get_weather');
  assert.equal(typeof use.input.city, 'string', 'the accumulator parsed the streamed JSON input');
  const deltas = [];
  const s2 = anthropic.messages.stream({
    model: PAID, max_tokens: 256, tools: [weather],
    messages: [...messages, { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: 'Rain, 9 C' }] }] }],
  });
  s2.on('text', (t) => deltas.push(t));
  const second = await s2.finalMessage();
  assert.match(textOf(second), /get_weather returned: Rain, 9 C/);
  assert.equal(deltas.join(''), textOf(second));
  assert.equal(counter.paid().length, 2);
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('a client thinking block with its signature in history is accepted and the turn answers', async () => {
  const msg = await free().messages.create({
    model: FREE, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: [
        { type: 'thinking', thinking: 'The user asks a first question.', signature: 'c2lnbmF0dXJlLWZyb20tYW50aHJvcGlj' },
        { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
        { type: 'text', text: 'first answer' },
      ] },
      { role: 'user', content: 'second question' },
    ],
  });
  assert.equal(textOf(msg), 'You said: second question');
});

test('messages.countTokens: a positive count, free of charge even on the paid model', async () => {
  const fetch = countingFetch();
  const anthropic = new Anthropic({ baseURL: origin, apiKey: 'any', fetch });
  const r = await anthropic.messages.countTokens({ model: PAID, tools: [weather], messages: [{ role: 'user', content: 'count these tokens please' }] });
  assert.ok(Number.isInteger(r.input_tokens) && r.input_tokens > 0, JSON.stringify(r));
  assert.deepEqual(fetch.calls.map((c) => c.status), [200]);
});

test('unpaid call on the paid model: APIError 402 in Anthropic shape, with the x402 offer, not retried', async () => {
  const fetch = countingFetch();
  const anthropic = new Anthropic({ baseURL: origin, apiKey: 'none', fetch, maxRetries: 2 });
  const before = await w.balance();
  const err = await anthropic.messages.create({ model: PAID, max_tokens: 64, messages: [{ role: 'user', content: 'free lunch?' }] })
    .then(() => assert.fail('an unpaid call must not succeed'), (e) => e);
  assert.ok(err instanceof Anthropic.APIError, `got ${err}`);
  assert.equal(err.status, 402);
  assert.equal(err.error.type, 'error');
  assert.match(err.message, /0\.001 USDC/);
  assert.ok(err.headers.get('payment-required'), 'the 402 carries the v2 offer');
  assert.equal(fetch.calls.length, 1, 'the SDK does not retry a 402');
  assert.equal(await w.balance(), before);
});
