// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ILaunchParameters, LAUNCH_TOKEN_SUPPLY, LaunchToken} from "./LaunchToken.sol";
import {LaunchPool} from "./LaunchPool.sol";

/// @title IWETH
/// @notice The part of WETH9 the FeesManager uses.
interface IWETH {
    /// @notice Wraps msg.value ether into as many WETH.
    function deposit() external payable;
}

/// @title FeesManager
/// @notice Launches tokens (a LaunchToken and its LaunchPool against WETH,
/// both at CREATE2 addresses derived from the launcher and a salt) and splits
/// each pool's swap fees among its beneficiaries by shares in WAD (summing to
/// exactly 1e18): creator 57 %, platform 36.1 %, platform ecosystem 1.9 %,
/// protocol 5 %.
///
/// Accounting per pool: collectFees moves the pool's uncollected fees into the
/// cumulated counters; a beneficiary is owed
/// (cumulated + uncollected - lastCumulated[beneficiary]) * shares / 1e18,
/// rounded down, and settling it sets lastCumulated to cumulated. What rounding
/// leaves behind stays in this contract and is reported by getDust, so that
/// released + pending of every beneficiary + dust = fees taken by the pool.
contract FeesManager is ILaunchParameters, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice The total of a pool's shares (WAD).
    uint256 public constant TOTAL_SHARES = 1e18;
    /// @notice The creator's shares of every launch (57 %).
    uint256 public constant CREATOR_SHARES = 0.57e18;
    /// @notice The platform's shares of every launch (36.1 %).
    uint256 public constant PLATFORM_SHARES = 0.361e18;
    /// @notice The platform ecosystem's shares of every launch (1.9 %).
    uint256 public constant ECOSYSTEM_SHARES = 0.019e18;
    /// @notice The protocol's shares of every launch (5 %).
    uint256 public constant PROTOCOL_SHARES = 0.05e18;

    /// @notice The WETH every pool trades against.
    address public immutable weth;
    /// @notice The platform beneficiary of every launch.
    address public immutable platform;
    /// @notice The platform-ecosystem beneficiary of every launch.
    address public immutable ecosystem;
    /// @notice The protocol beneficiary of every launch.
    address public immutable protocol;

    /// @dev A launched pool and its fee counters.
    struct Pool {
        address pool;
        address token;
        uint256 cumulated0;
        uint256 cumulated1;
        uint256 released0;
        uint256 released1;
        address[] beneficiaries;
    }

    /// @dev The parameters of the token under construction (set only inside launch).
    struct Parameters {
        string name;
        string symbol;
        address vault;
    }

    mapping(bytes32 poolId => Pool) private _pools;
    mapping(address token => bytes32 poolId) private _poolIdOf;
    mapping(bytes32 poolId => mapping(address beneficiary => uint256)) private _shares;
    mapping(bytes32 poolId => mapping(address beneficiary => uint256)) private _lastCumulated0;
    mapping(bytes32 poolId => mapping(address beneficiary => uint256)) private _lastCumulated1;
    mapping(bytes32 poolId => mapping(address beneficiary => bool)) private _listed;
    Parameters private _parameters;

    /// @notice Emitted by launch (the token's name and symbol are its own name() and symbol()).
    event Launch(
        bytes32 indexed poolId,
        address indexed token,
        address indexed creator,
        address pool,
        address vault,
        address launcher,
        bytes32 salt,
        uint256 poolWeth,
        uint256 vaultAmount
    );

    /// @notice Emitted when a pool's uncollected fees are moved into its cumulated counters.
    event Collect(bytes32 indexed poolId, uint256 amount0, uint256 amount1);

    /// @notice Emitted when a beneficiary is paid what it is owed (amounts may be zero).
    event Release(bytes32 indexed poolId, address indexed beneficiary, uint256 amount0, uint256 amount1);

    /// @notice Emitted when a beneficiary moves all its shares to another address.
    event UpdateBeneficiary(
        bytes32 indexed poolId, address indexed oldBeneficiary, address indexed newBeneficiary, uint256 shares
    );

    /// @notice An address argument is zero.
    error ZeroAddress();
    /// @notice A token was already launched with this launcher and salt.
    error AlreadyLaunched(address token);
    /// @notice A launch needs ether for the pool's WETH side.
    error NoLiquidity();
    /// @notice vaultAmount leaves no tokens for the pool.
    error VaultAmountTooLarge(uint256 vaultAmount);
    /// @notice No pool has this id.
    error UnknownPool(bytes32 poolId);
    /// @notice The caller holds no shares of the pool.
    error NotBeneficiary(bytes32 poolId, address caller);
    /// @notice The new beneficiary is the caller itself.
    error SameBeneficiary();

    /// @notice Sets the WETH and the three platform-side beneficiaries of every launch.
    constructor(address weth_, address platform_, address ecosystem_, address protocol_) {
        if (weth_ == address(0) || platform_ == address(0) || ecosystem_ == address(0) || protocol_ == address(0)) {
            revert ZeroAddress();
        }
        (weth, platform, ecosystem, protocol) = (weth_, platform_, ecosystem_, protocol_);
    }

    /// @inheritdoc ILaunchParameters
    function launchParameters() external view returns (string memory name, string memory symbol, address vault) {
        Parameters storage p = _parameters;
        return (p.name, p.symbol, p.vault);
    }

    /// @notice Launches a token: deploys the LaunchToken and its LaunchPool with
    /// CREATE2 (salt keccak256(abi.encode(msg.sender, salt))), sends vaultAmount
    /// tokens to the vault, seeds the pool with the rest of the supply against
    /// msg.value wrapped to WETH, and registers the fee split with creator as
    /// the creator beneficiary. The same launcher and salt cannot launch twice.
    function launch(
        bytes32 salt,
        string calldata name,
        string calldata symbol,
        address vault,
        address creator,
        uint256 vaultAmount
    ) external payable nonReentrant returns (address token, address pool, bytes32 poolId) {
        if (vault == address(0) || creator == address(0)) revert ZeroAddress();
        if (msg.value == 0) revert NoLiquidity();
        if (vaultAmount >= LAUNCH_TOKEN_SUPPLY) revert VaultAmountTooLarge(vaultAmount);
        (token, pool, poolId) = _deploy(_launchSalt(msg.sender, salt), name, symbol, vault);
        _seed(token, pool, vault, vaultAmount);
        _register(poolId, pool, token, creator);
        _emitLaunch(poolId, salt, vault, creator, vaultAmount);
    }

    /// @notice Collects the pool's uncollected fees into its cumulated counters,
    /// then pays the caller what it is owed if it holds shares. Anyone may call.
    function collectFees(bytes32 poolId) external nonReentrant returns (uint256 amount0, uint256 amount1) {
        _collect(poolId);
        if (_shares[poolId][msg.sender] > 0) (amount0, amount1) = _release(poolId, msg.sender);
    }

    /// @notice Moves all the caller's shares of the pool to newBeneficiary (added
    /// to what it already holds). Both are paid what they are owed first, so
    /// the caller keeps the fees earned up to now and only future fees move.
    function updateBeneficiary(bytes32 poolId, address newBeneficiary) external nonReentrant {
        uint256 moved = _shares[poolId][msg.sender];
        if (moved == 0) revert NotBeneficiary(poolId, msg.sender);
        if (newBeneficiary == address(0)) revert ZeroAddress();
        if (newBeneficiary == msg.sender) revert SameBeneficiary();
        _collect(poolId);
        _release(poolId, msg.sender);
        if (_shares[poolId][newBeneficiary] > 0) _release(poolId, newBeneficiary);
        else _settle(poolId, newBeneficiary);
        _shares[poolId][msg.sender] = 0;
        _addShares(poolId, newBeneficiary, moved);
        emit UpdateBeneficiary(poolId, msg.sender, newBeneficiary, moved);
    }

    /// @notice The beneficiary's shares of the pool (WAD; all shares sum to 1e18).
    function getShares(bytes32 poolId, address beneficiary) external view returns (uint256) {
        return _shares[poolId][beneficiary];
    }

    /// @notice The pool's token0 fees collected so far.
    function getCumulatedFees0(bytes32 poolId) external view returns (uint256) {
        return _pools[poolId].cumulated0;
    }

    /// @notice The pool's token1 fees collected so far.
    function getCumulatedFees1(bytes32 poolId) external view returns (uint256) {
        return _pools[poolId].cumulated1;
    }

    /// @notice getCumulatedFees0 when the beneficiary was last settled.
    function getLastCumulatedFees0(bytes32 poolId, address beneficiary) external view returns (uint256) {
        return _lastCumulated0[poolId][beneficiary];
    }

    /// @notice getCumulatedFees1 when the beneficiary was last settled.
    function getLastCumulatedFees1(bytes32 poolId, address beneficiary) external view returns (uint256) {
        return _lastCumulated1[poolId][beneficiary];
    }

    /// @notice What the beneficiary would be paid by collectFees now, in token0
    /// and token1, counting the fees still uncollected in the pool.
    function pendingFees(bytes32 poolId, address beneficiary) public view returns (uint256 amount0, uint256 amount1) {
        Pool storage p = _pools[poolId];
        if (p.pool == address(0)) revert UnknownPool(poolId);
        (uint256 fees0, uint256 fees1) = LaunchPool(p.pool).getUncollectedFees();
        uint256 shares = _shares[poolId][beneficiary];
        amount0 = ((p.cumulated0 + fees0 - _lastCumulated0[poolId][beneficiary]) * shares) / TOTAL_SHARES;
        amount1 = ((p.cumulated1 + fees1 - _lastCumulated1[poolId][beneficiary]) * shares) / TOTAL_SHARES;
    }

    /// @notice The pool's fees released to beneficiaries so far, in token0 and token1.
    function getReleasedFees(bytes32 poolId) external view returns (uint256 amount0, uint256 amount1) {
        Pool storage p = _pools[poolId];
        return (p.released0, p.released1);
    }

    /// @notice Every address that has held shares of the pool (some may hold none now).
    function getBeneficiaries(bytes32 poolId) external view returns (address[] memory) {
        return _pools[poolId].beneficiaries;
    }

    /// @notice The rounding dust of the pool: fees taken (cumulated + uncollected)
    /// minus released minus every beneficiary's pendingFees. It stays in this contract.
    function getDust(bytes32 poolId) external view returns (uint256 dust0, uint256 dust1) {
        Pool storage p = _pools[poolId];
        if (p.pool == address(0)) revert UnknownPool(poolId);
        (uint256 fees0, uint256 fees1) = LaunchPool(p.pool).getUncollectedFees();
        dust0 = p.cumulated0 + fees0 - p.released0;
        dust1 = p.cumulated1 + fees1 - p.released1;
        for (uint256 i = 0; i < p.beneficiaries.length; i++) {
            (uint256 owed0, uint256 owed1) = pendingFees(poolId, p.beneficiaries[i]);
            (dust0, dust1) = (dust0 - owed0, dust1 - owed1);
        }
    }

    /// @notice The pool (and its token) registered under poolId; zero addresses if none.
    function getPool(bytes32 poolId) external view returns (address pool, address token) {
        Pool storage p = _pools[poolId];
        return (p.pool, p.token);
    }

    /// @notice The poolId of a launched token; zero if the token was not launched here.
    function poolIdOf(address token) external view returns (bytes32) {
        return _poolIdOf[token];
    }

    /// @notice The address launch(salt, ...) called by launcher deploys (or deployed) the token at.
    function predictTokenAddress(address launcher, bytes32 salt) external view returns (address) {
        return _predictToken(_launchSalt(launcher, salt));
    }

    /// @dev The CREATE2 salt of a launch: the launcher's salt, namespaced by the launcher.
    function _launchSalt(address launcher, bytes32 salt) private pure returns (bytes32) {
        return keccak256(abi.encode(launcher, salt));
    }

    /// @dev The CREATE2 address of the token deployed with launchSalt.
    function _predictToken(bytes32 launchSalt) private view returns (address) {
        bytes32 initCodeHash = keccak256(type(LaunchToken).creationCode);
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), launchSalt, initCodeHash)))));
    }

    /// @dev Deploys the token and its pool with CREATE2 at launchSalt; reverts if that token exists already.
    function _deploy(bytes32 launchSalt, string calldata name, string calldata symbol, address vault)
        private
        returns (address token, address pool, bytes32 poolId)
    {
        address predicted = _predictToken(launchSalt);
        if (predicted.code.length > 0) revert AlreadyLaunched(predicted);
        _parameters = Parameters(name, symbol, vault);
        token = address(new LaunchToken{salt: launchSalt}());
        delete _parameters;
        poolId = keccak256(abi.encode(address(this), token, weth));
        pool = address(new LaunchPool{salt: launchSalt}(token, weth, poolId));
    }

    /// @dev Emits Launch for the pool just registered.
    function _emitLaunch(bytes32 poolId, bytes32 salt, address vault, address creator, uint256 vaultAmount) private {
        Pool storage p = _pools[poolId];
        emit Launch(poolId, p.token, creator, p.pool, vault, msg.sender, salt, msg.value, vaultAmount);
    }

    /// @dev Registers the pool and the launch's fee split.
    function _register(bytes32 poolId, address pool, address token, address creator) private {
        Pool storage p = _pools[poolId];
        (p.pool, p.token) = (pool, token);
        _poolIdOf[token] = poolId;
        _addShares(poolId, creator, CREATOR_SHARES);
        _addShares(poolId, platform, PLATFORM_SHARES);
        _addShares(poolId, ecosystem, ECOSYSTEM_SHARES);
        _addShares(poolId, protocol, PROTOCOL_SHARES);
    }

    /// @dev Sends vaultAmount to the vault and the rest of the supply plus msg.value as WETH to the pool, then initializes it.
    function _seed(address token, address pool, address vault, uint256 vaultAmount) private {
        if (vaultAmount > 0) IERC20(token).safeTransfer(vault, vaultAmount);
        IERC20(token).safeTransfer(pool, IERC20(token).balanceOf(address(this)));
        IWETH(weth).deposit{value: msg.value}();
        IERC20(weth).safeTransfer(pool, msg.value);
        LaunchPool(pool).initialize();
    }

    /// @dev Moves the pool's uncollected fees into the cumulated counters.
    function _collect(bytes32 poolId) private {
        Pool storage p = _pools[poolId];
        if (p.pool == address(0)) revert UnknownPool(poolId);
        (uint256 amount0, uint256 amount1) = LaunchPool(p.pool).collect();
        (p.cumulated0, p.cumulated1) = (p.cumulated0 + amount0, p.cumulated1 + amount1);
        emit Collect(poolId, amount0, amount1);
    }

    /// @dev Pays the beneficiary what it is owed of the cumulated fees (after _collect) and emits Release.
    function _release(bytes32 poolId, address beneficiary) private returns (uint256 amount0, uint256 amount1) {
        (amount0, amount1) = _settle(poolId, beneficiary);
        emit Release(poolId, beneficiary, amount0, amount1);
    }

    /// @dev Pays the beneficiary what it is owed (if anything) and marks it settled at the cumulated counters.
    function _settle(bytes32 poolId, address beneficiary) private returns (uint256 amount0, uint256 amount1) {
        Pool storage p = _pools[poolId];
        uint256 shares = _shares[poolId][beneficiary];
        amount0 = ((p.cumulated0 - _lastCumulated0[poolId][beneficiary]) * shares) / TOTAL_SHARES;
        amount1 = ((p.cumulated1 - _lastCumulated1[poolId][beneficiary]) * shares) / TOTAL_SHARES;
        _lastCumulated0[poolId][beneficiary] = p.cumulated0;
        _lastCumulated1[poolId][beneficiary] = p.cumulated1;
        (p.released0, p.released1) = (p.released0 + amount0, p.released1 + amount1);
        LaunchPool pool = LaunchPool(p.pool);
        if (amount0 > 0) IERC20(pool.token0()).safeTransfer(beneficiary, amount0);
        if (amount1 > 0) IERC20(pool.token1()).safeTransfer(beneficiary, amount1);
    }

    /// @dev Adds shares to the beneficiary (listing it on first sight); it must be settled already or hold none.
    function _addShares(bytes32 poolId, address beneficiary, uint256 shares) private {
        if (!_listed[poolId][beneficiary]) {
            _listed[poolId][beneficiary] = true;
            _pools[poolId].beneficiaries.push(beneficiary);
        }
        _shares[poolId][beneficiary] += shares;
    }
}
