// Runs the pinned Claude Code (@anthropic-ai/claude-code) headless for the
// tests: `claude -p` with ANTHROPIC_BASE_URL at farebox or farebox proxy.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';

const require = createRequire(import.meta.url);

// claudeBinary finds the native executable. npm may skip the launcher
// package's postinstall (which links bin/claude.exe), so the platform
// package's own binary comes first; the linked one is the fallback.
export function claudeBinary() {
  const candidates = [];
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  try { candidates.push(join(dirname(require.resolve(`${platform}/package.json`)), 'claude')); } catch { /* not installed */ }
  try { candidates.push(join(dirname(require.resolve('@anthropic-ai/claude-code/package.json')), 'bin', 'claude.exe')); } catch { /* not installed */ }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`no Claude Code binary among ${candidates.join(', ') || platform}`);
  return found;
}

// claudePrint runs `claude -p PROMPT --output-format json` in a fresh
// working directory holding files ({name: text}) with a fresh HOME, so no
// user settings or login are read, and resolves to its exit code, output and
// the parsed JSON result. baseURL is the origin farebox serves on, without
// /v1 (Claude Code appends /v1/messages itself).
export function claudePrint(baseURL, model, prompt, { tools = [], files = {} } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'farebox-claude-home-'));
  const work = mkdtempSync(join(tmpdir(), 'farebox-claude-work-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(work, name), text);
  const env = {
    ...process.env,
    HOME: home,
    ANTHROPIC_BASE_URL: baseURL.replace(/\/v1\/?$/, ''),
    ANTHROPIC_API_KEY: 'unused-by-farebox',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  delete env.ANTHROPIC_AUTH_TOKEN;
  const args = ['-p', prompt, '--model', model, '--output-format', 'json'];
  if (tools.length) args.push('--allowedTools', tools.join(','));
  const child = spawn(claudeBinary(), args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`claude -p: no end after 180 s\n${out}\n${err}`)); }, 180_000);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => {
      clearTimeout(timer);
      let json;
      try { json = JSON.parse(out); } catch { /* not JSON: the caller reports out and err */ }
      resolve({ code, out, err, json });
    });
  });
}
