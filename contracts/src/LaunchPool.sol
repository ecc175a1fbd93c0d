// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @title LaunchPool
/// @notice The constant-product (x * y = k) pool of one launched token against
/// WETH. A 1.2 % fee is taken from every swap's input and kept outside the
/// reserves as uncollected fees of the input token (WETH on buys, the token on
/// sells); only the initializer (the FeesManager that created the pool) can
/// collect them. token0/token1 are the two tokens ordered by address.
contract LaunchPool is ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice The swap fee in basis points of the input amount (1.2 %).
    uint256 public constant FEE_BPS = 120;

    /// @notice The denominator of FEE_BPS.
    uint256 public constant BPS = 10_000;

    /// @notice The lower-addressed token of the pair.
    address public immutable token0;

    /// @notice The higher-addressed token of the pair.
    address public immutable token1;

    /// @notice The pool's id in the FeesManager; never changes.
    bytes32 public immutable poolId;

    /// @notice The FeesManager that created the pool and collects its fees; never changes.
    address public immutable initializer;

    uint256 private _reserve0;
    uint256 private _reserve1;
    uint256 private _fees0;
    uint256 private _fees1;
    bool private _initialized;

    /// @notice Emitted once, when the initializer seeds the reserves.
    event Initialize(uint256 reserve0, uint256 reserve1);

    /// @notice Emitted on every swap: fee is in tokenIn and is part of amountIn;
    /// reserve0/reserve1 are the reserves after the swap.
    event Swap(
        address indexed sender,
        address indexed to,
        address indexed tokenIn,
        uint256 amountIn,
        uint256 fee,
        uint256 amountOut,
        uint256 reserve0,
        uint256 reserve1
    );

    /// @notice Emitted when the initializer collects the uncollected fees.
    event CollectFees(uint256 amount0, uint256 amount1);

    /// @notice The caller is not the initializer.
    error NotInitializer();
    /// @notice The pool has already been initialized.
    error AlreadyInitialized();
    /// @notice The pool has not been initialized yet.
    error NotInitialized();
    /// @notice The two tokens are the same or one is the zero address.
    error InvalidTokens();
    /// @notice tokenIn is neither token0 nor token1.
    error UnknownToken(address token);
    /// @notice A reserve or the amount is zero.
    error ZeroAmount();
    /// @notice The swap would pay out less than minOut.
    error InsufficientOutput(uint256 amountOut, uint256 minOut);

    /// @notice Creates the pool of tokenA and tokenB; the caller becomes the initializer.
    constructor(address tokenA, address tokenB, bytes32 poolId_) {
        if (tokenA == tokenB || tokenA == address(0) || tokenB == address(0)) revert InvalidTokens();
        (token0, token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        poolId = poolId_;
        initializer = msg.sender;
    }

    /// @dev Restricts a function to the initializer.
    modifier onlyInitializer() {
        if (msg.sender != initializer) revert NotInitializer();
        _;
    }

    /// @notice Seeds the reserves with what the initializer has transferred to
    /// the pool; callable once, by the initializer.
    function initialize() external onlyInitializer {
        if (_initialized) revert AlreadyInitialized();
        uint256 balance0 = IERC20(token0).balanceOf(address(this));
        uint256 balance1 = IERC20(token1).balanceOf(address(this));
        if (balance0 == 0 || balance1 == 0) revert ZeroAmount();
        _initialized = true;
        (_reserve0, _reserve1) = (balance0, balance1);
        emit Initialize(balance0, balance1);
    }

    /// @notice The reserves of token0 and token1 (the uncollected fees excluded).
    function getReserves() external view returns (uint256 reserve0, uint256 reserve1) {
        return (_reserve0, _reserve1);
    }

    /// @notice The fees taken and not yet collected, in token0 and token1.
    function getUncollectedFees() external view returns (uint256 fees0, uint256 fees1) {
        return (_fees0, _fees1);
    }

    /// @notice What a swap of amountIn of tokenIn would pay out now, and the fee it would take.
    function getAmountOut(address tokenIn, uint256 amountIn) public view returns (uint256 amountOut, uint256 fee) {
        (uint256 reserveIn, uint256 reserveOut) = _reservesFor(tokenIn);
        fee = (amountIn * FEE_BPS + BPS - 1) / BPS; // rounded up: no fee-free dust swaps
        uint256 net = amountIn - fee;
        amountOut = (reserveOut * net) / (reserveIn + net);
    }

    /// @notice Swaps exactly amountIn of tokenIn (pulled from the caller, which
    /// must have approved the pool) for the other token, sent to `to`; reverts
    /// unless that is at least minOut.
    function swapExactIn(address tokenIn, uint256 amountIn, uint256 minOut, address to)
        external
        nonReentrant
        returns (uint256 amountOut)
    {
        if (!_initialized) revert NotInitialized();
        if (amountIn == 0) revert ZeroAmount();
        uint256 fee;
        (amountOut, fee) = getAmountOut(tokenIn, amountIn);
        if (amountOut == 0 || amountOut < minOut) revert InsufficientOutput(amountOut, minOut);
        uint256 net = amountIn - fee;
        address tokenOut;
        if (tokenIn == token0) {
            (_reserve0, _reserve1, _fees0, tokenOut) = (_reserve0 + net, _reserve1 - amountOut, _fees0 + fee, token1);
        } else {
            (_reserve1, _reserve0, _fees1, tokenOut) = (_reserve1 + net, _reserve0 - amountOut, _fees1 + fee, token0);
        }
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        IERC20(tokenOut).safeTransfer(to, amountOut);
        emit Swap(msg.sender, to, tokenIn, amountIn, fee, amountOut, _reserve0, _reserve1);
    }

    /// @notice Sends the uncollected fees to the initializer and returns them.
    function collect() external onlyInitializer nonReentrant returns (uint256 amount0, uint256 amount1) {
        (amount0, amount1) = (_fees0, _fees1);
        (_fees0, _fees1) = (0, 0);
        if (amount0 > 0) IERC20(token0).safeTransfer(msg.sender, amount0);
        if (amount1 > 0) IERC20(token1).safeTransfer(msg.sender, amount1);
        emit CollectFees(amount0, amount1);
    }

    /// @dev The (in, out) reserves for a swap from tokenIn.
    function _reservesFor(address tokenIn) private view returns (uint256 reserveIn, uint256 reserveOut) {
        if (tokenIn == token0) return (_reserve0, _reserve1);
        if (tokenIn == token1) return (_reserve1, _reserve0);
        revert UnknownToken(tokenIn);
    }
}
