// Coinbase's CDP facilitator, stood in for on a local chain: the x402
// reference facilitator (internal/testkit/chaintest/facilitator) settles,
// and in front of it the Go stand-in (internal/testkit/cdpfake/cmd/
// cdp-standin) checks every request's JWT as CDP documents it. CDP API
// keys are made here in the forms the CDP portal hands out.
import { spawn, execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from './farebox.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// cdpKey makes a CDP API key: kind 'ec' is a P-256 key whose secret is a
// SEC1 "EC PRIVATE KEY" PEM (ES256); 'ed25519' one whose secret is base64
// of its seed and public key, 64 bytes (EdDSA). public is the base64 PKIX
// DER the stand-in verifies with.
export function cdpKey(kind, id) {
  if (kind === 'ec') {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return { id, kind, secret: privateKey.export({ type: 'sec1', format: 'pem' }), public: spki(publicKey) };
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const raw = Buffer.concat([Buffer.from(jwk.d, 'base64url'), Buffer.from(jwk.x, 'base64url')]);
  return { id, kind, secret: raw.toString('base64'), public: spki(publicKey) };
}

const spki = (k) => k.export({ type: 'spki', format: 'der' }).toString('base64');

// serveURL spawns a process that prints its base URL as its first stdout
// line and exits when its stdin closes; stop() ends it.
function serveURL(cmd, args, env, what) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const reap = () => child.kill('SIGKILL');
  process.on('exit', reap);
  child.on('exit', () => process.off('exit', reap));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${what}: no URL after 120 s\n${err}`)); }, 120_000);
    const early = (code, sig) => { clearTimeout(timer); reject(new Error(`${what} exited (${code ?? sig})\n${out}\n${err}`)); };
    child.on('exit', early);
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n');
      if (line.length < 2) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve({
        url: line[0].trim(),
        logs: () => err,
        stop: () => { child.stdin.end(); return stopChild(child); },
      });
    });
  });
}

// startReferenceFacilitator runs the x402 reference facilitator on the
// chain at rpcURL, paying gas with relayerKey (0x hex).
export function startReferenceFacilitator(rpcURL, relayerKey) {
  const dir = join(repoRoot, 'internal', 'testkit', 'chaintest', 'facilitator');
  return serveURL(process.execPath, [join(dir, 'facilitator.mjs')],
    { FACILITATOR_RPC_URL: rpcURL, FACILITATOR_RELAYER_KEY: relayerKey }, 'the reference facilitator');
}

let standinBin;

// standinBinary builds cmd/cdp-standin once.
function standinBinary() {
  if (standinBin && existsSync(standinBin)) return standinBin;
  standinBin = join(mkdtempSync(join(tmpdir(), 'cdp-standin-')), 'cdp-standin');
  execFileSync('go', ['build', '-o', standinBin, './internal/testkit/cdpfake/cmd/cdp-standin'], {
    cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'],
  });
  return standinBin;
}

// startCDPStandin serves the stand-in in front of the facilitator at
// upstream, accepting keys (from cdpKey); clockSkew ('5m') runs its clock
// ahead. url is payments.facilitator.url; log() reads what it accepted
// ({verify, settle, supported} counts) and refused (why, each).
export async function startCDPStandin({ upstream, keys, clockSkew }) {
  const args = ['-upstream', upstream, ...keys.flatMap((k) => ['-key', `${k.id}=${k.public}`])];
  if (clockSkew) args.push('-clock-skew', clockSkew);
  const s = await serveURL(standinBinary(), args, {}, 'the CDP stand-in');
  const origin = new URL(s.url).origin;
  return { ...s, log: async () => (await fetch(`${origin}/standin/log`)).json() };
}
