// A tiny MCP stdio server for farebox's tests: two tools that meet each
// other (each call waits for the other to start, proving the client runs
// them in parallel) and one that returns an image.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'farebox-test-tools', version: '1.0.0' });
const together = Number(process.env.MCP_TOGETHER || 2); // calls that must overlap
let started = 0;
const waiters = [];

// meet resolves true once `together` calls have started, false after 10 s.
function meet() {
  started++;
  while (waiters.length && started >= together) waiters.shift()(true);
  if (started >= together) return Promise.resolve(true);
  return new Promise((resolve) => {
    waiters.push(resolve);
    setTimeout(() => resolve(false), 10000);
  });
}

server.registerTool('secret_code', {
  description: 'Returns the secret code.',
  inputSchema: {},
}, async () => {
  const met = await meet();
  return { content: [{ type: 'text', text: `the secret code is 7421 (${met ? 'ran in parallel' : 'ran alone'})` }] };
});

server.registerTool('lookup_city', {
  description: 'Looks up facts about a city.',
  inputSchema: { city: z.string().describe('the city to look up') },
}, async ({ city }) => {
  const met = await meet();
  return { content: [{ type: 'text', text: `${city} has 2.1 million people (${met ? 'ran in parallel' : 'ran alone'})` }] };
});

// a 1x1 red PNG
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
server.registerTool('snapshot', {
  description: 'Takes a picture.',
  inputSchema: {},
}, async () => ({ content: [{ type: 'text', text: 'a red pixel' }, { type: 'image', data: png, mimeType: 'image/png' }] }));

server.registerTool('broken', {
  description: 'Always fails.',
  inputSchema: {},
}, async () => ({ isError: true, content: [{ type: 'text', text: 'the disk is on fire' }] }));

await server.connect(new StdioServerTransport());
