// Reads the chain with viem, so a receipt farebox hands out is checked
// against what actually got mined.
import assert from 'node:assert/strict';
import { createPublicClient, defineChain, http, parseAbi, parseEventLogs, getAddress } from 'viem';

// DEV_RELAYER pays the gas of `farebox dev`'s settlements: the address of
// devchain.DevRelayerKey, a publicly known test key (anvil's account #1).
export const DEV_RELAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

export const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

// localChain describes a loopback chain for viem.
export function localChain(id, rpcURL) {
  return defineChain({
    id,
    name: `local-${id}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcURL] } },
  });
}

// chainReader is a viem public client plus the token's balance reader.
export function chainReader({ rpcURL, chainId, token, relayers = [] }) {
  const chain = localChain(chainId, rpcURL);
  const client = createPublicClient({ chain, transport: http(rpcURL) });
  return {
    chain,
    client,
    // balanceOf reads who's balance once no transfer of theirs is waiting
    // in the node's pool: farebox answers a paid call once its transfer is
    // broadcast, before its block.
    async balanceOf(who) {
      const read = (blockTag) => client.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [who], blockTag });
      // Every transaction the known relayers sent is mined (the in-process
      // dev chain's pending state does not show its pool), and the pending
      // balance agrees with the latest one (anvil's does).
      const relayersMined = async () => {
        for (const address of relayers) {
          const [mined, sent] = await Promise.all([
            client.getTransactionCount({ address, blockTag: 'latest' }),
            client.getTransactionCount({ address, blockTag: 'pending' }),
          ]);
          if (mined < sent) return false;
        }
        return true;
      };
      for (let i = 0; i < 600; i++) {
        if (await relayersMined()) {
          const [latest, pending] = await Promise.all([read('latest'), read('pending')]);
          if (latest === pending) return latest;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`transfers of ${who} were never mined`);
    },
    nonceUsed: (who, nonce) =>
      client.readContract({ address: token, abi: erc20, functionName: 'authorizationState', args: [who, nonce] }),
    // assertSettled checks that receipt (an x402 SettleResponse) names a
    // mined, successful transaction on this chain that moved exactly
    // amount of the token from payer to payTo, and used the payer's
    // authorization.
    async assertSettled(receipt, { payer, payTo, amount, network }) {
      assert.equal(receipt.success, true, `receipt not successful: ${JSON.stringify(receipt)}`);
      assert.match(receipt.transaction, /^0x[0-9a-fA-F]{64}$/);
      assert.equal(getAddress(receipt.payer), getAddress(payer));
      if (network) assert.equal(receipt.network, network);
      // Answered once broadcast: wait for the block. One transaction may
      // carry a batch of transfers (Multicall3), this payment's among them.
      const tx = await client.waitForTransactionReceipt({ hash: receipt.transaction, pollingInterval: 50, timeout: 60_000 });
      assert.equal(tx.status, 'success');
      const logs = parseEventLogs({ abi: erc20, logs: tx.logs }).filter((l) => getAddress(l.address) === getAddress(token));
      const transfers = logs.filter((l) => l.eventName === 'Transfer' && getAddress(l.args.from) === getAddress(payer) &&
        getAddress(l.args.to) === getAddress(payTo) && l.args.value === BigInt(amount));
      assert.ok(transfers.length >= 1, 'the settlement moved the amount from payer to payTo');
      const used = logs.filter((l) => l.eventName === 'AuthorizationUsed' && getAddress(l.args.authorizer) === getAddress(payer));
      assert.ok(used.length >= 1, 'the settlement used the payer\'s authorization');
      return tx;
    },
  };
}
