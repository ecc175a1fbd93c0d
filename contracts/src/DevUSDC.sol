// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @title DevUSDC
/// @notice A USDC-like ERC-20 for local development chains. It mirrors the
/// public surface of Circle's FiatToken v2 that payment flows rely on:
/// 6 decimals, the EIP-712 domain ("USD Coin", "2") and EIP-3009
/// transfer/receive/cancel authorizations, in both the (v, r, s) and the
/// `bytes signature` forms. Only the owner can mint; it is not a real token.
contract DevUSDC is ERC20, Ownable, EIP712 {
    /// @notice keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// @notice keccak256("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// @notice keccak256("CancelAuthorization(address authorizer,bytes32 nonce)")
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    /// @dev authorizer => nonce => used or canceled
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;

    /// @notice Emitted when an authorization is executed.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    /// @notice Emitted when an authorization is canceled.
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    /// @notice Deploys the token with the deployer as owner (the minter).
    constructor() ERC20("USD Coin", "USDC") Ownable(msg.sender) EIP712("USD Coin", "2") {}

    /// @notice USDC has 6 decimals.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` base units to `to`; owner only (the dev faucet).
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @notice The EIP-712 domain separator of this token.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @notice Whether `nonce` of `authorizer` has been used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice Executes a transfer with a signed authorization (v, r, s form).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, _pack(v, r, s)
        );
    }

    /// @notice Executes a transfer with a signed authorization (EOA or ERC-1271 signature bytes).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Receives a transfer with a signed authorization (v, r, s form); the caller must be the payee.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, _pack(v, r, s)
        );
    }

    /// @notice Receives a transfer with a signed authorization (signature bytes); the caller must be the payee.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Cancels an unused authorization (v, r, s form).
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _cancelAuthorization(authorizer, nonce, _pack(v, r, s));
    }

    /// @notice Cancels an unused authorization (signature bytes).
    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external {
        _cancelAuthorization(authorizer, nonce, signature);
    }

    /// @dev Checks the window, nonce and signature of a transfer/receive authorization, then moves the tokens.
    function _transferWithAuthorization(
        bytes32 typehash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        _requireUnusedAuthorization(from, nonce);
        bytes32 structHash = keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce));
        _requireValidSignature(from, structHash, signature);
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    /// @dev Checks the nonce and signature of a cancellation, then marks the nonce as canceled.
    function _cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) private {
        _requireUnusedAuthorization(authorizer, nonce);
        _requireValidSignature(authorizer, keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), signature);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @dev Reverts if `nonce` of `authorizer` was already used or canceled.
    function _requireUnusedAuthorization(address authorizer, bytes32 nonce) private view {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
    }

    /// @dev Reverts unless `signature` by `signer` (EOA or ERC-1271) covers the EIP-712 digest of `structHash`.
    function _requireValidSignature(address signer, bytes32 structHash, bytes memory signature) private view {
        require(
            SignatureChecker.isValidSignatureNow(signer, _hashTypedDataV4(structHash), signature),
            "FiatTokenV2: invalid signature"
        );
    }

    /// @dev Packs (v, r, s) into the 65-byte r ‖ s ‖ v form.
    function _pack(uint8 v, bytes32 r, bytes32 s) private pure returns (bytes memory) {
        return abi.encodePacked(r, s, v);
    }
}
