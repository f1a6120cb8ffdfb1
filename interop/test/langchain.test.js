// LangChain JS chat models on farebox: ChatOpenAI (Chat Completions, its
// default API) and ChatAnthropic (Messages), each with invoke, stream and
// bindTools with a tool round trip (an AIMessage's tool_calls answered by a
// ToolMessage); paid through @x402/fetch as the client's fetch, on chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { devWorld, PAID } from '../lib/world.js';

const w = await devWorld();
const origin = w.dev.baseURL.replace(/\/v1\/?$/, '');

const models = {
  ChatOpenAI: () => {
    const fetch = w.pay();
    return { chat: new ChatOpenAI({ model: PAID, apiKey: 'x402-pays-instead', maxRetries: 0, configuration: { baseURL: w.dev.baseURL, fetch } }), counter: fetch.counter };
  },
  ChatAnthropic: () => {
    const fetch = w.pay();
    return { chat: new ChatAnthropic({ model: PAID, apiKey: 'x402-pays-instead', maxRetries: 0, anthropicApiUrl: origin, clientOptions: { fetch } }), counter: fetch.counter };
  },
};

const weather = tool(async ({ city }) => `Sunny, 21 C in ${city}`, {
  name: 'get_weather', description: 'Current weather in a city', schema: z.object({ city: z.string() }),
});

const text = (m) => (typeof m.content === 'string' ? m.content : m.content.filter((b) => b.type === 'text').map((b) => b.text).join(''));

for (const [name, make] of Object.entries(models)) {
  test(`${name} invoke and stream, paid: the echo, one payment each`, async () => {
    const { chat, counter } = make();
    const before = await w.balance();
    const r = await chat.invoke('Hello LangChain');
    assert.equal(text(r), 'You said: Hello LangChain');
    let streamed = '';
    let chunks = 0;
    for await (const chunk of await chat.stream('Stream LangChain')) { streamed += text(chunk); chunks++; }
    assert.equal(streamed, 'You said: Stream LangChain');
    assert.ok(chunks > 1, 'streamed in several chunks');
    assert.equal(counter.paid().length, 2);
    assert.equal(before - (await w.balance()), 2n * w.price);
  });

  test(`${name} bindTools: a tool call, the tool runs, a ToolMessage back, the answer quotes it; paid per turn`, async () => {
    const { chat, counter } = make();
    const before = await w.balance();
    const withTools = chat.bindTools([weather]);
    const history = [new HumanMessage('What is the weather? Use get_weather.')];
    const ai = await withTools.invoke(history);
    assert.equal(ai.tool_calls.length, 1);
    const [call] = ai.tool_calls;
    assert.equal(call.name, 'get_weather');
    assert.equal(typeof call.args.city, 'string');
    const out = await weather.invoke(call.args);
    const answer = await withTools.invoke([...history, ai, new ToolMessage({ content: out, tool_call_id: call.id })]);
    assert.match(text(answer), new RegExp(`get_weather returned: Sunny, 21 C in ${call.args.city}`));
    assert.equal(counter.paid().length, 2);
    assert.equal(before - (await w.balance()), 2n * w.price);
  });
}
