// Runs the real farebox binary for the tests: built once from this
// repository, started as `farebox dev` or `farebox serve`, stopped when done.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// fareboxBinary is the path of a farebox built from this checkout: the one
// the runner built (FAREBOX_BIN), or a fresh build when a test file runs alone.
export function fareboxBinary() {
  if (process.env.FAREBOX_BIN && existsSync(process.env.FAREBOX_BIN)) return process.env.FAREBOX_BIN;
  const out = join(mkdtempSync(join(tmpdir(), 'farebox-interop-')), 'farebox');
  execFileSync('go', ['build', '-o', out, './cmd/farebox'], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CGO_ENABLED: '1' },
  });
  process.env.FAREBOX_BIN = out;
  return out;
}

// start runs the binary and resolves once its stdout holds everything
// parse() wants (parse returns undefined until then).
function start(args, env, parse, what, cwd = undefined) {
  const child = spawn(fareboxBinary(), args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A process that ends without stopping it (a crash, process.exit) must
  // not leave farebox running.
  const reap = () => child.kill('SIGKILL');
  process.on('exit', reap);
  child.on('exit', () => process.off('exit', reap));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; if (err.length > 1 << 20) err = err.slice(-(1 << 19)); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${what}: no banner after 120 s\n${out}\n${err}`)); }, 120_000);
    const early = (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? sig}) before it was ready\n${out}\n${err}`));
    };
    child.on('exit', early);
    child.stdout.on('data', (d) => {
      out += d;
      const info = parse(out);
      if (info) {
        clearTimeout(timer);
        child.off('exit', early);
        resolve({ ...info, child, logs: () => err, stop: () => stopChild(child) });
      }
    });
  });
}

// stopChild ends a process we started: SIGTERM, then SIGKILL after 10 s.
export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill('SIGTERM');
  });
}

const field = (text, label) => {
  const m = text.match(new RegExp(`^\\s*${label}\\s+(\\S+)`, 'm'));
  return m ? m[1] : undefined;
};

// parseDevBanner reads what `farebox dev` prints: base URL, chain RPC,
// token, payTo, the dev payer's address and key.
export function parseDevBanner(text) {
  if (!/^Try it:/m.test(text)) return undefined;
  const network = text.match(/dev chain (eip155:\d+)/);
  const price = text.match(/farebox-scripted \(([\d.]+) USDC per call\)/);
  return {
    baseURL: field(text, 'base URL'),
    rpcURL: field(text, 'chain RPC'),
    token: field(text, 'token \\(USDC\\)'),
    payTo: field(text, 'payments to'),
    payer: field(text, 'address'),
    payerKey: field(text, 'private key'),
    network: network && network[1],
    chainId: network && Number(network[1].split(':')[1]),
    price: price && price[1],
    adminToken: field(text, 'admin'),
  };
}

// startDev runs `farebox dev` on free loopback ports with extra flags.
export function startDev(flags = []) {
  // With --chain the external chain serves RPC: dev refuses --rpc-addr.
  const rpc = flags.includes('--chain') ? [] : ['--rpc-addr', '127.0.0.1:0'];
  return start(['dev', '--addr', '127.0.0.1:0', ...rpc, '--log-level', 'warn', ...flags],
    {}, parseDevBanner, 'farebox dev');
}

// sharedDev is the dev server the runner started (FAREBOX_DEV holds its
// banner fields), or a new one for a test file run on its own.
export async function sharedDev() {
  if (process.env.FAREBOX_DEV) return { ...JSON.parse(process.env.FAREBOX_DEV), stop: async () => {} };
  const dev = await startDev();
  const { after } = await import('node:test');
  after(() => dev.stop());
  return dev;
}

// startServe writes config (YAML text) to a file and runs `farebox serve`.
export function startServe(configYAML, env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'farebox-serve-'));
  const path = join(dir, 'farebox.yaml');
  writeFileSync(path, configYAML);
  return start(['serve', '--config', path, '--addr', '127.0.0.1:0'], env, (text) => {
    const m = text.match(/base URL (\S+)/);
    return m ? { baseURL: m[1] } : undefined;
  }, 'farebox serve');
}

// serveFile runs `farebox serve` on a config file as written (by farebox
// init, say) from its folder, so a relative data_dir stays in there.
export function serveFile(path, env = {}) {
  return start(['serve', '--config', path, '--addr', '127.0.0.1:0'], env, (text) => {
    const m = text.match(/base URL (\S+)/);
    return m ? { baseURL: m[1] } : undefined;
  }, 'farebox serve', dirname(path));
}

// startProxy runs `farebox proxy` in front of upstream (a base URL) on a
// free loopback port, paying with env.FAREBOX_PAYER_KEY; its receipt
// lines are in logs().
export function startProxy(upstream, flags = [], env = {}) {
  return start(['proxy', '--upstream', upstream, '--addr', '127.0.0.1:0', ...flags], env, (text) => {
    const m = text.match(/farebox proxy: base URL (\S+)/);
    return m ? { baseURL: m[1] } : undefined;
  }, 'farebox proxy');
}
