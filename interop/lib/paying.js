// Fetches as the clients use them: the real x402 wrappers, over a counting
// layer that records every request that actually reaches farebox.
import { randomBytes } from 'node:crypto';
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';

export { decodePaymentResponseHeader };

// countingFetch wraps fetch and records, for each request that reaches the
// server, its payment header (if any) and the status answered.
export function countingFetch(inner = globalThis.fetch) {
  const calls = [];
  const f = async (input, init) => {
    const req = new Request(input, init);
    const entry = {
      url: req.url,
      payment: req.headers.get('PAYMENT-SIGNATURE') ?? req.headers.get('X-PAYMENT') ?? undefined,
      status: undefined,
    };
    calls.push(entry);
    const res = await inner(req);
    entry.status = res.status;
    entry.receipt = res.headers.get('PAYMENT-RESPONSE') ?? undefined;
    return res;
  };
  f.calls = calls;
  f.paid = () => calls.filter((c) => c.payment && c.status === 200);
  return f;
}

// payingFetch is @x402/fetch (v2) paying with account on any EVM chain,
// over a counting fetch (returned as .counter). A test token is no default
// asset of @x402/core, whose spend controls refuse it unless allowed:
// asset names it, capped at maxAtomic per payment.
export function payingFetch(account, { network, asset, maxAtomic = '100000' } = {}) {
  const counter = countingFetch();
  const f = wrapFetchWithPaymentFromConfig(counter, {
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
    spendControls: asset ? { allowedAssets: [{ network, asset, maxAmountPerPayment: maxAtomic }] } : undefined,
  });
  f.counter = counter;
  return f;
}

// decodeB64JSON reads an x402 header: base64 of UTF-8 JSON.
export function decodeB64JSON(value) {
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
}

// encodeB64JSON writes an x402 header.
export function encodeB64JSON(obj) {
  return Buffer.from(JSON.stringify(obj), 'utf8').toString('base64');
}

const authorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
};

// signPayment builds a v2 payment for requirement the way a client does,
// with fields overridden (value, validBefore, chainId, ...) to craft
// hostile ones; the signature is always valid for what is signed.
export async function signPayment(account, requirement, resource, over = {}) {
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: account.address,
    to: requirement.payTo,
    value: String(requirement.amount),
    validAfter: '0',
    validBefore: String(now + requirement.maxTimeoutSeconds),
    nonce: '0x' + randomBytes(32).toString('hex'),
    ...over.authorization,
  };
  const chainId = over.chainId ?? Number(requirement.network.split(':')[1]);
  const signature = await account.signTypedData({
    domain: { name: requirement.extra.name, version: requirement.extra.version, chainId, verifyingContract: requirement.asset },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return {
    x402Version: 2,
    resource,
    accepted: { ...requirement, ...over.accepted },
    payload: { signature, authorization },
  };
}
