// The suite's global setup (Node 20's test runner has none of its own):
// build farebox once, start one `farebox dev` shared by the test files, run
// `node --test` over test/, and stop farebox whatever happens.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fareboxBinary, startDev } from './lib/farebox.js';

const here = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(join(here, 'test'))
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => process.argv.length <= 2 || process.argv.slice(2).some((a) => f.includes(a)))
  .map((f) => join('test', f));

console.log('building farebox ...');
fareboxBinary();
const dev = await startDev();
console.log(`farebox dev: ${dev.baseURL} (chain ${dev.network}, RPC ${dev.rpcURL})`);

let code = 1;
try {
  const { stop, child, logs, ...banner } = dev;
  const test = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-timeout=240000', ...files], {
    cwd: here,
    stdio: 'inherit',
    env: { ...process.env, FAREBOX_DEV: JSON.stringify(banner) },
  });
  const stopTest = () => test.kill('SIGTERM');
  process.on('SIGINT', stopTest);
  process.on('SIGTERM', stopTest);
  code = await new Promise((resolve) => test.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
} finally {
  await dev.stop();
  if (code !== 0) {
    const tail = dev.logs().split('\n').slice(-40).join('\n');
    if (tail.trim()) console.error(`--- farebox dev log (tail) ---\n${tail}`);
  }
}
process.exit(code);
