// The official openai npm SDK, its fetch wrapped by @x402/fetch (v2),
// paying farebox dev with the dev payer's key; every receipt is checked on
// the dev chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { devWorld, PAID } from '../lib/world.js';
import { countingFetch, decodePaymentResponseHeader } from '../lib/paying.js';

const w = await devWorld();
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function client() {
  const fetch = w.pay();
  return { openai: new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'x402-pays-instead', fetch }), counter: fetch.counter };
}

const weather = {
  type: 'function', name: 'get_weather', description: 'Current weather in a city', strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const screenshot = {
  type: 'function', name: 'take_screenshot', description: 'Screenshot of the page', strict: true,
  parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false },
};

test('responses.create, non-streaming: paid, answered, receipt in PAYMENT-RESPONSE matches the chain', async () => {
  const { openai, counter } = client();
  const before = await w.balance();
  const { data, response } = await openai.responses.create({ model: PAID, input: 'Say hello to farebox' }).withResponse();
  assert.equal(data.status, 'completed');
  assert.equal(data.output_text, 'You said: Say hello to farebox');
  const header = response.headers.get('payment-response');
  assert.ok(header, 'PAYMENT-RESPONSE header');
  const receipt = decodePaymentResponseHeader(header);
  await w.assertPaid(receipt);
  assert.equal(response.headers.get('x-payment-response'), null, 'a v2 payment gets the v2 header only');
  assert.equal(before - (await w.balance()), w.price);
  assert.deepEqual(counter.calls.map((c) => [c.status, Boolean(c.payment)]), [[402, false], [200, true]]);
});

test('responses.create, streaming: ordered events, deltas add up, in-band receipt on the terminal event', async () => {
  const { openai } = client();
  const before = await w.balance();
  const stream = await openai.responses.create({ model: PAID, input: 'Stream this sentence back to me', stream: true });
  const events = [];
  for await (const ev of stream) events.push(ev);
  assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
  assert.equal(events[0].type, 'response.created');
  const last = events.at(-1);
  assert.equal(last.type, 'response.completed');
  const text = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
  assert.equal(text, 'You said: Stream this sentence back to me');
  assert.equal(last.response.output[0].content[0].text, text);
  assert.ok(events.filter((e) => e.type === 'response.output_text.delta').length > 1, 'streamed in several deltas');
  await w.assertPaid(last.response.x402);
  assert.equal(before - (await w.balance()), w.price);
});

test('responses.stream() helper: text events and finalResponse() carrying the receipt', async () => {
  const { openai } = client();
  const before = await w.balance();
  const deltas = [];
  const stream = openai.responses.stream({ model: PAID, input: 'Use the helper' });
  stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
  const final = await stream.finalResponse();
  assert.equal(final.output_text, 'You said: Use the helper');
  assert.equal(deltas.join(''), final.output_text);
  await w.assertPaid(final.x402);
  assert.equal(before - (await w.balance()), w.price);
});

test('tool round trip with a string output: call, run locally, resubmit, answer quotes it; two paid calls', async () => {
  const { openai, counter } = client();
  const before = await w.balance();
  const input = [{ role: 'user', content: 'What is the weather? Use get_weather.' }];
  const first = await openai.responses.create({ model: PAID, input, tools: [weather] });
  const calls = first.output.filter((o) => o.type === 'function_call');
  assert.equal(calls.length, 1);
  assert.equal(calls[0].name, 'get_weather');
  assert.equal(typeof JSON.parse(calls[0].arguments).city, 'string');
  const second = await openai.responses.create({
    model: PAID,
    tools: [weather],
    input: [...input, ...first.output, { type: 'function_call_output', call_id: calls[0].call_id, output: 'Sunny, 21 C' }],
  });
  assert.equal(second.status, 'completed');
  assert.match(second.output_text, /Sunny, 21 C/);
  assert.equal(second.output.filter((o) => o.type === 'function_call').length, 0);
  await w.assertPaid(first.x402);
  await w.assertPaid(second.x402);
  assert.notEqual(first.x402.transaction, second.x402.transaction);
  assert.equal(counter.paid().length, 2);
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('tool round trip with an image output (input_image in function_call_output)', async () => {
  const { openai } = client();
  const input = [{ role: 'user', content: 'Look at the page with take_screenshot.' }];
  const first = await openai.responses.create({ model: PAID, input, tools: [screenshot] });
  const [call] = first.output.filter((o) => o.type === 'function_call');
  assert.equal(call.name, 'take_screenshot');
  const second = await openai.responses.create({
    model: PAID,
    tools: [screenshot],
    input: [
      ...input,
      ...first.output,
      {
        type: 'function_call_output',
        call_id: call.call_id,
        output: [
          { type: 'input_text', text: 'The page shows a red button' },
          { type: 'input_image', image_url: PNG, detail: 'auto' },
        ],
      },
    ],
  });
  assert.equal(second.status, 'completed');
  assert.match(second.output_text, /The page shows a red button/);
  await w.assertPaid(second.x402);
});

test('parallel tool calls in one turn, then both outputs in one resubmission', async () => {
  const { openai } = client();
  const input = [{ role: 'user', content: 'Use get_weather and take_screenshot together.' }];
  const first = await openai.responses.create({ model: PAID, input, tools: [weather, screenshot], parallel_tool_calls: true });
  const calls = first.output.filter((o) => o.type === 'function_call');
  assert.deepEqual(calls.map((c) => c.name).sort(), ['get_weather', 'take_screenshot']);
  assert.equal(new Set(calls.map((c) => c.call_id)).size, 2);
  const outputs = calls.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: `result of ${c.name}` }));
  const second = await openai.responses.create({ model: PAID, tools: [weather, screenshot], input: [...input, ...first.output, ...outputs] });
  assert.match(second.output_text, /result of get_weather/);
  assert.match(second.output_text, /result of take_screenshot/);
});

test('concurrent paid calls: each paid once (transfers may share a batch transaction), balance drops by N x price', async () => {
  const { openai, counter } = client();
  const before = await w.balance();
  const n = 6;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => openai.responses.create({ model: PAID, input: `parallel ${i}`, stream: i % 2 === 1 })
      .then(async (r) => {
        if (!r[Symbol.asyncIterator]) return r;
        let done;
        for await (const ev of r) if (ev.type === 'response.completed') done = ev.response;
        return done;
      })),
  );
  results.forEach((r, i) => assert.equal(r.output_text ?? r.output[0].content[0].text, `You said: parallel ${i}`));
  for (const r of results) await w.assertPaid(r.x402);
  assert.equal(counter.paid().length, n);
  assert.equal(before - (await w.balance()), BigInt(n) * w.price);
});

test('unpaid call with a plain fetch: APIError 402, code payment_required, not retried', async () => {
  const fetch = countingFetch();
  const openai = new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'none', fetch, maxRetries: 2 });
  const err = await openai.responses.create({ model: PAID, input: 'free lunch?' }).then(
    () => assert.fail('an unpaid call must not succeed'),
    (e) => e,
  );
  assert.ok(err instanceof OpenAI.APIError, `got ${err}`);
  assert.equal(err.status, 402);
  assert.equal(err.code, 'payment_required');
  assert.equal(err.type, 'payment_error');
  assert.match(err.message, /0\.001 USDC/);
  assert.ok(err.headers.get('payment-required'), 'the 402 carries the v2 offer');
  assert.equal(fetch.calls.length, 1, 'the SDK does not retry a 402');
});
