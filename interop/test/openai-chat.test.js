// The official openai npm SDK's chat.completions.create on farebox's Chat
// Completions wire, streaming and not, with a function tool round trip;
// free directly, paid through @x402/fetch, judged on chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { devWorld, PAID, FREE } from '../lib/world.js';
import { countingFetch, decodePaymentResponseHeader } from '../lib/paying.js';

const w = await devWorld();

function paid() {
  const fetch = w.pay();
  return { openai: new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'x402-pays-instead', fetch }), counter: fetch.counter };
}
const free = () => new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'any' });

const weather = {
  type: 'function',
  function: {
    name: 'get_weather', description: 'Current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};

// collect reads a chat stream the way SDK users do: content deltas and
// tool_calls[].function.arguments deltas joined per index.
async function collect(stream) {
  let content = '';
  const calls = [];
  let finish;
  let usage;
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    for (const ch of chunk.choices) {
      content += ch.delta.content ?? '';
      for (const tc of ch.delta.tool_calls ?? []) {
        calls[tc.index] ??= { id: '', name: '', arguments: '' };
        if (tc.id) calls[tc.index].id = tc.id;
        if (tc.function?.name) calls[tc.index].name += tc.function.name;
        calls[tc.index].arguments += tc.function?.arguments ?? '';
      }
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  return { content, calls, finish, usage };
}

test('chat.completions.create, free, not streamed: a chat.completion echoing the prompt', async () => {
  const r = await free().chat.completions.create({ model: FREE, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello chat' }] });
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.equal(r.choices[0].message.content, 'You said: Hello chat');
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.ok(r.usage.prompt_tokens > 0);
});

test('chat.completions.create, free, streamed with include_usage: deltas add up, usage chunk last', async () => {
  const stream = await free().chat.completions.create({
    model: FREE, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Stream this chat sentence' }],
  });
  const r = await collect(stream);
  assert.equal(r.content, 'You said: Stream this chat sentence');
  assert.equal(r.finish, 'stop');
  assert.ok(r.usage && r.usage.completion_tokens > 0, 'the usage chunk');
});

test('tool round trip, paid, not streamed: tool_calls, then a tool message, answer quotes it; two payments on chain', async () => {
  const { openai, counter } = paid();
  const before = await w.balance();
  const messages = [{ role: 'user', content: 'What is the weather? Use get_weather.' }];
  const { data: first, response } = await openai.chat.completions.create({ model: PAID, messages, tools: [weather] }).withResponse();
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  const [call] = first.choices[0].message.tool_calls;
  assert.equal(call.function.name, 'get_weather');
  assert.equal(typeof JSON.parse(call.function.arguments).city, 'string');
  await w.assertPaid(decodePaymentResponseHeader(response.headers.get('payment-response')));
  const second = await openai.chat.completions.create({
    model: PAID, tools: [weather],
    messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 C' }],
  });
  assert.equal(second.choices[0].finish_reason, 'stop');
  assert.match(second.choices[0].message.content, /get_weather returned: Sunny, 21 C/);
  assert.equal(counter.paid().length, 2);
  await w.assertPaid(decodePaymentResponseHeader(counter.paid()[1].receipt));
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('tool round trip, paid, streamed: arguments deltas per index join into JSON; the answer streams back', async () => {
  const { openai, counter } = paid();
  const before = await w.balance();
  const messages = [{ role: 'user', content: 'Stream a call: use get_weather' }];
  const first = await collect(await openai.chat.completions.create({ model: PAID, messages, tools: [weather], stream: true }));
  assert.equal(first.finish, 'tool_calls');
  assert.equal(first.calls.length, 1);
  assert.equal(first.calls[0].name, 'get_weather');
  assert.ok(first.calls[0].id, 'the call has an id');
  assert.equal(typeof JSON.parse(first.calls[0].arguments).city, 'string');
  const assistant = {
    role: 'assistant', content: null,
    tool_calls: first.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
  };
  const second = await collect(await openai.chat.completions.create({
    model: PAID, tools: [weather], stream: true,
    messages: [...messages, assistant, { role: 'tool', tool_call_id: first.calls[0].id, content: 'Rain, 9 C' }],
  }));
  assert.match(second.content, /get_weather returned: Rain, 9 C/);
  assert.equal(counter.paid().length, 2);
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('unpaid chat call on the paid model: APIError 402 with the x402 offer, not retried', async () => {
  const fetch = countingFetch();
  const openai = new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'none', fetch, maxRetries: 2 });
  const err = await openai.chat.completions.create({ model: PAID, messages: [{ role: 'user', content: 'free lunch?' }] })
    .then(() => assert.fail('an unpaid call must not succeed'), (e) => e);
  assert.ok(err instanceof OpenAI.APIError, `got ${err}`);
  assert.equal(err.status, 402);
  assert.ok(err.headers.get('payment-required'));
  assert.equal(fetch.calls.length, 1);
});
