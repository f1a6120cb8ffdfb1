// The x402 reference facilitator, served on loopback for farebox's tests.
//
// It is the facilitator logic of @x402/core (x402Facilitator) with the
// "exact" EVM scheme of @x402/evm registered for the chain at
// FACILITATOR_RPC_URL (v2: eip155:<its chain id>; v1: every network name
// @x402/evm knows, base-sepolia among them), signing and paying gas with
// the relayer key in FACILITATOR_RELAYER_KEY through a viem wallet client.
//
// HTTP, as docs/wire.md §5 describes the facilitator API:
//   POST /verify, POST /settle  {x402Version, paymentPayload, paymentRequirements}
//   GET  /supported             {kinds, extensions, signers}
// A business refusal is HTTP 200 with isValid:false / success:false (what
// the SDK returns); an exception from the SDK (unknown network, malformed
// body) is HTTP 500 with {error}; a body that is not JSON is HTTP 400.
//
// With FACILITATOR_AUTHORIZER_KEY it also settles "batch-settlement"
// (@x402/evm's BatchSettlementEvmScheme), advertising that key's address as
// extra.receiverAuthorizer in /supported and signing the claims and refunds
// of servers that delegate to it.
//
// On a chain without Multicall3 (a fresh anvil) it installs it first, as
// every public chain has it (see below).
//
// When it listens it prints its base URL (http://127.0.0.1:PORT) as the
// first line on stdout. It exits when stdin closes, so it never outlives
// the test process that started it.

import http from "node:http";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/facilitator";
import { createPublicClient, createWalletClient, defineChain, http as rpc, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const rpcURL = process.env.FACILITATOR_RPC_URL;
let key = process.env.FACILITATOR_RELAYER_KEY ?? "";
if (!rpcURL || !key) {
  console.error("facilitator: FACILITATOR_RPC_URL and FACILITATOR_RELAYER_KEY are required");
  process.exit(2);
}
if (!key.startsWith("0x")) key = "0x" + key;

const chainId = await createPublicClient({ transport: rpc(rpcURL) }).getChainId();
const chain = defineChain({
  id: chainId,
  name: `chain ${chainId}`,
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpcURL] } },
});
// Multicall3 lives at the same address on every public chain, and the
// reference diagnoses a failed simulation (used nonce, low balance) through
// it; a fresh anvil lacks it. Its runtime code is what eth_call of viem's
// Multicall3 creation code returns; anvil_setCode puts it in place.
const multicall3 = "0xcA11bde05977b3631167028862bE2a173976CA11";
const reader = createPublicClient({ transport: rpc(rpcURL) });
if (!(await reader.getCode({ address: multicall3 }))) {
  const { multicall3Bytecode } = await import(new URL("./constants/contracts.js", import.meta.resolve("viem")));
  const { data: runtime } = await reader.call({ data: multicall3Bytecode });
  try {
    await reader.request({ method: "anvil_setCode", params: [multicall3, runtime] });
  } catch (err) {
    console.error(`facilitator: no Multicall3 on chain ${chainId} and anvil_setCode failed (${err.message}); refusal reasons will be generic`);
  }
}

const account = privateKeyToAccount(key);
const wallet = createWalletClient({ account, chain, transport: rpc(rpcURL) }).extend(publicActions);
const signer = toFacilitatorEvmSigner({ ...wallet, address: account.address }, { confirmationTimeoutMs: 30_000 });

const facilitator = new x402Facilitator();
registerExactEvmScheme(facilitator, { signer, networks: `eip155:${chainId}` });
let authorizerKey = process.env.FACILITATOR_AUTHORIZER_KEY ?? "";
if (authorizerKey) {
  if (!authorizerKey.startsWith("0x")) authorizerKey = "0x" + authorizerKey;
  facilitator.register(`eip155:${chainId}`, new BatchSettlementEvmScheme(signer, privateKeyToAccount(authorizerKey)));
}

// send writes a JSON answer; bigints (none expected) become decimal strings.
function send(res, status, value) {
  const body = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v));
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

async function readJSON(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const server = http.createServer(async (req, res) => {
  const path = new URL(req.url, "http://localhost").pathname;
  try {
    if (req.method === "GET" && path === "/supported") {
      return send(res, 200, facilitator.getSupported());
    }
    if (req.method === "POST" && (path === "/verify" || path === "/settle")) {
      let body;
      try {
        body = await readJSON(req);
      } catch (err) {
        return send(res, 400, { error: `body is not JSON: ${err.message}` });
      }
      const { paymentPayload, paymentRequirements } = body ?? {};
      if (!paymentPayload || !paymentRequirements) {
        return send(res, 400, { error: "paymentPayload and paymentRequirements are required" });
      }
      const answer = path === "/verify"
        ? await facilitator.verify(paymentPayload, paymentRequirements)
        : await facilitator.settle(paymentPayload, paymentRequirements);
      return send(res, 200, answer);
    }
    send(res, 404, { error: `no route ${req.method} ${path}` });
  } catch (err) {
    console.error(`facilitator: ${req.method} ${path}:`, err);
    send(res, 500, { error: err instanceof Error ? err.message : String(err) });
  }
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  process.stdout.write(`http://127.0.0.1:${port}\n`);
});

process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
process.on("SIGTERM", () => process.exit(0));
