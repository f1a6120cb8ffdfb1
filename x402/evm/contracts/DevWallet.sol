// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title DevWallet: a minimal multi-owner smart wallet for testing EIP-1271 payments.
/// @notice A signature is the concatenation of `threshold` 65-byte ECDSA signatures (r, s, v)
/// over the digest by distinct owners in ascending address order, so a 2-of-2 wallet signs
/// with 130 bytes: the shape of a real smart-wallet signature that is longer than 65 bytes.
contract DevWallet {
    mapping(address => bool) public isOwner;
    uint256 public threshold;

    bytes4 private constant _MAGIC = 0x1626ba7e;
    uint256 private constant _HALF_ORDER =
        0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    constructor(address[] memory owners, uint256 threshold_) {
        require(threshold_ > 0 && threshold_ <= owners.length, "DevWallet: bad threshold");
        for (uint256 i = 0; i < owners.length; i++) {
            isOwner[owners[i]] = true;
        }
        threshold = threshold_;
    }

    /// @notice EIP-1271: returns the magic value when `signature` holds enough owner signatures.
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4) {
        if (signature.length != threshold * 65) {
            return 0xffffffff;
        }
        address last = address(0);
        for (uint256 i = 0; i < threshold; i++) {
            bytes32 r;
            bytes32 s;
            uint8 v;
            uint256 off = i * 65;
            assembly {
                r := mload(add(signature, add(0x20, off)))
                s := mload(add(signature, add(0x40, off)))
                v := byte(0, mload(add(signature, add(0x60, off))))
            }
            if (uint256(s) > _HALF_ORDER || (v != 27 && v != 28)) {
                return 0xffffffff;
            }
            address signer = ecrecover(hash, v, r, s);
            if (signer <= last || !isOwner[signer]) {
                return 0xffffffff;
            }
            last = signer;
        }
        return _MAGIC;
    }

    /// @notice Lets the owners' wallet move tokens it holds (e.g. to return test funds).
    function execute(address target, bytes calldata data) external returns (bytes memory) {
        require(isOwner[msg.sender], "DevWallet: caller is not an owner");
        (bool ok, bytes memory ret) = target.call(data);
        require(ok, "DevWallet: call failed");
        return ret;
    }
}
