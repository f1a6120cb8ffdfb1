// The OpenAI Agents SDK (@openai/agents): an agent with two function tools
// completes a task that needs both, through farebox dev, every model turn
// paid with @x402/fetch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Agent, Runner, tool, setTracingDisabled, OpenAIProvider } from '@openai/agents';
import { z } from 'zod';
import { devWorld, PAID } from '../lib/world.js';
import { decodePaymentResponseHeader } from '../lib/paying.js';

// Traces would go to OpenAI's servers: nothing here talks to anyone but farebox.
setTracingDisabled(true);
const w = await devWorld();

function planner() {
  const fetch = w.pay();
  const client = new OpenAI({ baseURL: w.dev.baseURL, apiKey: 'x402-pays-instead', fetch });
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }) });
  const ran = [];
  const getWeather = tool({
    name: 'get_weather', description: 'Current weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => { ran.push(['get_weather', city]); return `Sunny, 21 C in ${city}`; },
  });
  const getTime = tool({
    name: 'get_time', description: 'Local time in a time zone',
    parameters: z.object({ zone: z.string() }),
    execute: async ({ zone }) => { ran.push(['get_time', zone]); return `It is 09:30 in ${zone}`; },
  });
  const agent = new Agent({
    name: 'day planner', instructions: 'Plan the day with the tools you have.', tools: [getWeather, getTime], model: PAID,
  });
  return { runner, agent, ran, counter: fetch.counter };
}

function assertBothToolsQuoted(output, ran) {
  assert.deepEqual(ran.map(([name]) => name).sort(), ['get_time', 'get_weather']);
  const [, city] = ran.find(([n]) => n === 'get_weather');
  const [, zone] = ran.find(([n]) => n === 'get_time');
  assert.match(output, new RegExp(`Sunny, 21 C in ${city}`));
  assert.match(output, new RegExp(`It is 09:30 in ${zone}`));
}

test('agent run: both tools called, their outputs quoted in the final answer, each of the two turns paid', async () => {
  const { runner, agent, ran, counter } = planner();
  const before = await w.balance();
  const result = await runner.run(agent, 'Plan my day: use get_weather and get_time.');
  assertBothToolsQuoted(result.finalOutput, ran);
  assert.equal(result.rawResponses.length, 2, 'one turn for the calls, one for the answer');
  const paid = counter.paid();
  assert.equal(paid.length, 2);
  for (const call of paid) await w.assertPaid(decodePaymentResponseHeader(call.receipt));
  assert.equal(before - (await w.balance()), 2n * w.price);
});

test('streamed agent run: tool call and output items stream, each turn paid', async () => {
  const { runner, agent, ran, counter } = planner();
  const before = await w.balance();
  const result = await runner.run(agent, 'Plan my day: use get_weather and get_time.', { stream: true });
  const items = [];
  for await (const ev of result) if (ev.type === 'run_item_stream_event') items.push(ev.item.type);
  await result.completed;
  assertBothToolsQuoted(result.finalOutput, ran);
  assert.equal(items.filter((t) => t === 'tool_call_item').length, 2);
  assert.equal(items.filter((t) => t === 'tool_call_output_item').length, 2);
  assert.equal(items.at(-1), 'message_output_item');
  assert.equal(counter.paid().length, 2);
  assert.equal(before - (await w.balance()), 2n * w.price);
});
