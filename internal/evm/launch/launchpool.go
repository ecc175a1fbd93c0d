// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package launch

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// LaunchPoolMetaData contains all meta data concerning the LaunchPool contract.
var LaunchPoolMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"tokenA\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"tokenB\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"poolId_\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AlreadyInitialized\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amountOut\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"minOut\",\"type\":\"uint256\"}],\"name\":\"InsufficientOutput\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidTokens\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotInitialized\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotInitializer\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"UnknownToken\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAmount\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount0\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount1\",\"type\":\"uint256\"}],\"name\":\"CollectFees\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"reserve0\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"reserve1\",\"type\":\"uint256\"}],\"name\":\"Initialize\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"tokenIn\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amountIn\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"fee\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amountOut\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"reserve0\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"reserve1\",\"type\":\"uint256\"}],\"name\":\"Swap\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"BPS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"FEE_BPS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"collect\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amount0\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"amount1\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"tokenIn\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amountIn\",\"type\":\"uint256\"}],\"name\":\"getAmountOut\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amountOut\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"fee\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getReserves\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"reserve0\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"reserve1\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getUncollectedFees\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"fees0\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"fees1\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"initialize\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"initializer\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"poolId\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"tokenIn\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amountIn\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"minOut\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"}],\"name\":\"swapExactIn\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amountOut\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token0\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token1\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "LaunchPool",
	Bin: "0x610100604052348015610010575f5ffd5b50604051610d2e380380610d2e83398101604081905261002f91610102565b60017f9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00556001600160a01b03838116908316148061007457506001600160a01b038316155b8061008657506001600160a01b038216155b156100a4576040516333910aef60e11b815260040160405180910390fd5b816001600160a01b0316836001600160a01b0316106100c45781836100c7565b82825b6001600160a01b0390811660a0521660805260c05250503360e05261013b565b80516001600160a01b03811681146100fd575f5ffd5b919050565b5f5f5f60608486031215610114575f5ffd5b61011d846100e7565b925061012b602085016100e7565b9150604084015190509250925092565b60805160a05160c05160e051610b746101ba5f395f8181610161015281816101f601526106a701525f61013001525f81816101b601528181610301015281816104f90152818161074c01526108a201525f818160da0152818161026e0152818161048e0152818161055101528181610712015261085b0152610b745ff3fe608060405234801561000f575f5ffd5b50600436106100b1575f3560e01c8063a6220b661161006e578063a6220b6614610183578063bf333f2c14610196578063ca706bcf1461019e578063d21220a7146101b1578063e5225381146101d8578063f2b59d2d146101e0575f5ffd5b80630902f1ac146100b55780630dfe1681146100d5578063249d39e9146101145780633e0dc34e1461012b5780638129fc1c146101525780639ce110d71461015c575b5f5ffd5b5f546001545b604080519283526020830191909152015b60405180910390f35b6100fc7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100cc565b61011d61271081565b6040519081526020016100cc565b61011d7f000000000000000000000000000000000000000000000000000000000000000081565b61015a6101eb565b005b6100fc7f000000000000000000000000000000000000000000000000000000000000000081565b61011d610191366004610a26565b6103e9565b61011d607881565b6100bb6101ac366004610a69565b610620565b6100fc7f000000000000000000000000000000000000000000000000000000000000000081565b6100bb61069a565b6002546003546100bb565b336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146102345760405163ceeb95b360e01b815260040160405180910390fd5b60045460ff16156102575760405162dc149f60e41b815260040160405180910390fd5b6040516370a0823160e01b81523060048201525f907f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316906370a0823190602401602060405180830381865afa1580156102bb573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906102df9190610a91565b6040516370a0823160e01b81523060048201529091505f906001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016906370a0823190602401602060405180830381865afa158015610346573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061036a9190610a91565b9050811580610377575080155b1561039557604051631f2a200560e01b815260040160405180910390fd5b6004805460ff191660019081179091558190555f82905560408051838152602081018390527fd6e7f90fe4eb2761d9fc5c0ad1a51a1599621b06481d749d3a3058b3a843d78d910160405180910390a15050565b5f6103f26107c6565b60045460ff16610415576040516321c4e35760e21b815260040160405180910390fd5b835f0361043557604051631f2a200560e01b815260040160405180910390fd5b5f6104408686610620565b909250905081158061045157508382105b1561047e57604051630583371760e31b815260048101839052602481018590526044015b60405180910390fd5b5f6104898287610abc565b90505f7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316886001600160a01b03160361051d57815f546104d29190610ad5565b846001546104e09190610abc565b846002546104ee9190610ad5565b6002556001555f55507f0000000000000000000000000000000000000000000000000000000000000000610571565b8160015461052b9190610ad5565b845f546105389190610abc565b846003546105469190610ad5565b6003555f55600155507f00000000000000000000000000000000000000000000000000000000000000005b6105866001600160a01b03891633308a6107e1565b61059a6001600160a01b038216868661081d565b5f54600154604080518a815260208101879052908101879052606081019290925260808201526001600160a01b03808a16919087169033907fb24b74123b08b3e5d2af6b47e948b1c8eed24d9f717f27a4b2fc3aa82699696e9060a00160405180910390a450505061061860015f516020610b1f5f395f51905f5255565b949350505050565b5f5f5f5f61062d86610857565b9092509050612710600181610643607889610ae8565b61064d9190610ad5565b6106579190610abc565b6106619190610aff565b92505f61066e8487610abc565b905061067a8184610ad5565b6106848284610ae8565b61068e9190610aff565b94505050509250929050565b5f80336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146106e55760405163ceeb95b360e01b815260040160405180910390fd5b6106ed6107c6565b505060028054600380545f918290559255908115610739576107396001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016338461081d565b8015610773576107736001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016338361081d565b60408051838152602081018390527f5393ab6ef9bb40d91d1b04bbbeb707fbf3d1eb73f46744e2d179e4996026283f910160405180910390a16107c260015f516020610b1f5f395f51905f5255565b9091565b6107ce61090b565b60025f516020610b1f5f395f51905f5255565b6107ef84848484600161093c565b61081757604051635274afe760e01b81526001600160a01b0385166004820152602401610475565b50505050565b61082a83838360016109a9565b61085257604051635274afe760e01b81526001600160a01b0384166004820152602401610475565b505050565b5f5f7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316836001600160a01b0316036108a0575f5460015491509150915091565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316836001600160a01b0316036108e7576001545f5491509150915091565b6040516340d1d8df60e11b81526001600160a01b0384166004820152602401610475565b5f516020610b1f5f395f51905f525460020361093a57604051633ee5aeb560e01b815260040160405180910390fd5b565b6040516323b872dd60e01b5f8181526001600160a01b038781166004528616602452604485905291602083606481808c5af1925060015f5114831661099857838315161561098c573d5f823e3d81fd5b5f883b113d1516831692505b604052505f60605295945050505050565b60405163a9059cbb60e01b5f8181526001600160a01b038616600452602485905291602083604481808b5af1925060015f511483166109ff5783831516156109f3573d5f823e3d81fd5b5f873b113d1516831692505b60405250949350505050565b80356001600160a01b0381168114610a21575f5ffd5b919050565b5f5f5f5f60808587031215610a39575f5ffd5b610a4285610a0b565b93506020850135925060408501359150610a5e60608601610a0b565b905092959194509250565b5f5f60408385031215610a7a575f5ffd5b610a8383610a0b565b946020939093013593505050565b5f60208284031215610aa1575f5ffd5b5051919050565b634e487b7160e01b5f52601160045260245ffd5b81810381811115610acf57610acf610aa8565b92915050565b80820180821115610acf57610acf610aa8565b8082028115828204841417610acf57610acf610aa8565b5f82610b1957634e487b7160e01b5f52601260045260245ffd5b50049056fe9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00a26469706673582212209c6f3f16bd7bd7deca299c6d874a3ef5d3819130a75e2ef3f7ce6362243cee1764736f6c63430008250033",
}

// LaunchPool is an auto generated Go binding around an Ethereum contract.
type LaunchPool struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *LaunchPool) GetABI() abi.ABI {
	return c.abi
}

// NewLaunchPool creates a new instance of LaunchPool.
func NewLaunchPool() *LaunchPool {
	parsed, err := LaunchPoolMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &LaunchPool{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *LaunchPool) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address tokenA, address tokenB, bytes32 poolId_) returns()
func (launchPool *LaunchPool) PackConstructor(tokenA common.Address, tokenB common.Address, poolId_ [32]byte) []byte {
	enc, err := launchPool.abi.Pack("", tokenA, tokenB, poolId_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x249d39e9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function BPS() view returns(uint256)
func (launchPool *LaunchPool) PackBPS() []byte {
	enc, err := launchPool.abi.Pack("BPS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x249d39e9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function BPS() view returns(uint256)
func (launchPool *LaunchPool) TryPackBPS() ([]byte, error) {
	return launchPool.abi.Pack("BPS")
}

// UnpackBPS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x249d39e9.
//
// Solidity: function BPS() view returns(uint256)
func (launchPool *LaunchPool) UnpackBPS(data []byte) (*big.Int, error) {
	out, err := launchPool.abi.Unpack("BPS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackFEEBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbf333f2c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function FEE_BPS() view returns(uint256)
func (launchPool *LaunchPool) PackFEEBPS() []byte {
	enc, err := launchPool.abi.Pack("FEE_BPS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFEEBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbf333f2c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function FEE_BPS() view returns(uint256)
func (launchPool *LaunchPool) TryPackFEEBPS() ([]byte, error) {
	return launchPool.abi.Pack("FEE_BPS")
}

// UnpackFEEBPS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbf333f2c.
//
// Solidity: function FEE_BPS() view returns(uint256)
func (launchPool *LaunchPool) UnpackFEEBPS(data []byte) (*big.Int, error) {
	out, err := launchPool.abi.Unpack("FEE_BPS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackCollect is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe5225381.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function collect() returns(uint256 amount0, uint256 amount1)
func (launchPool *LaunchPool) PackCollect() []byte {
	enc, err := launchPool.abi.Pack("collect")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCollect is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe5225381.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function collect() returns(uint256 amount0, uint256 amount1)
func (launchPool *LaunchPool) TryPackCollect() ([]byte, error) {
	return launchPool.abi.Pack("collect")
}

// CollectOutput serves as a container for the return parameters of contract
// method Collect.
type CollectOutput struct {
	Amount0 *big.Int
	Amount1 *big.Int
}

// UnpackCollect is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe5225381.
//
// Solidity: function collect() returns(uint256 amount0, uint256 amount1)
func (launchPool *LaunchPool) UnpackCollect(data []byte) (CollectOutput, error) {
	out, err := launchPool.abi.Unpack("collect", data)
	outstruct := new(CollectOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Amount0 = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Amount1 = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackGetAmountOut is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xca706bcf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getAmountOut(address tokenIn, uint256 amountIn) view returns(uint256 amountOut, uint256 fee)
func (launchPool *LaunchPool) PackGetAmountOut(tokenIn common.Address, amountIn *big.Int) []byte {
	enc, err := launchPool.abi.Pack("getAmountOut", tokenIn, amountIn)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetAmountOut is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xca706bcf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getAmountOut(address tokenIn, uint256 amountIn) view returns(uint256 amountOut, uint256 fee)
func (launchPool *LaunchPool) TryPackGetAmountOut(tokenIn common.Address, amountIn *big.Int) ([]byte, error) {
	return launchPool.abi.Pack("getAmountOut", tokenIn, amountIn)
}

// GetAmountOutOutput serves as a container for the return parameters of contract
// method GetAmountOut.
type GetAmountOutOutput struct {
	AmountOut *big.Int
	Fee       *big.Int
}

// UnpackGetAmountOut is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xca706bcf.
//
// Solidity: function getAmountOut(address tokenIn, uint256 amountIn) view returns(uint256 amountOut, uint256 fee)
func (launchPool *LaunchPool) UnpackGetAmountOut(data []byte) (GetAmountOutOutput, error) {
	out, err := launchPool.abi.Unpack("getAmountOut", data)
	outstruct := new(GetAmountOutOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.AmountOut = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Fee = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackGetReserves is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0902f1ac.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getReserves() view returns(uint256 reserve0, uint256 reserve1)
func (launchPool *LaunchPool) PackGetReserves() []byte {
	enc, err := launchPool.abi.Pack("getReserves")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetReserves is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0902f1ac.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getReserves() view returns(uint256 reserve0, uint256 reserve1)
func (launchPool *LaunchPool) TryPackGetReserves() ([]byte, error) {
	return launchPool.abi.Pack("getReserves")
}

// GetReservesOutput serves as a container for the return parameters of contract
// method GetReserves.
type GetReservesOutput struct {
	Reserve0 *big.Int
	Reserve1 *big.Int
}

// UnpackGetReserves is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0902f1ac.
//
// Solidity: function getReserves() view returns(uint256 reserve0, uint256 reserve1)
func (launchPool *LaunchPool) UnpackGetReserves(data []byte) (GetReservesOutput, error) {
	out, err := launchPool.abi.Unpack("getReserves", data)
	outstruct := new(GetReservesOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Reserve0 = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Reserve1 = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackGetUncollectedFees is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2b59d2d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getUncollectedFees() view returns(uint256 fees0, uint256 fees1)
func (launchPool *LaunchPool) PackGetUncollectedFees() []byte {
	enc, err := launchPool.abi.Pack("getUncollectedFees")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetUncollectedFees is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2b59d2d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getUncollectedFees() view returns(uint256 fees0, uint256 fees1)
func (launchPool *LaunchPool) TryPackGetUncollectedFees() ([]byte, error) {
	return launchPool.abi.Pack("getUncollectedFees")
}

// GetUncollectedFeesOutput serves as a container for the return parameters of contract
// method GetUncollectedFees.
type GetUncollectedFeesOutput struct {
	Fees0 *big.Int
	Fees1 *big.Int
}

// UnpackGetUncollectedFees is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf2b59d2d.
//
// Solidity: function getUncollectedFees() view returns(uint256 fees0, uint256 fees1)
func (launchPool *LaunchPool) UnpackGetUncollectedFees(data []byte) (GetUncollectedFeesOutput, error) {
	out, err := launchPool.abi.Unpack("getUncollectedFees", data)
	outstruct := new(GetUncollectedFeesOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Fees0 = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Fees1 = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackInitialize is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8129fc1c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function initialize() returns()
func (launchPool *LaunchPool) PackInitialize() []byte {
	enc, err := launchPool.abi.Pack("initialize")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInitialize is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8129fc1c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function initialize() returns()
func (launchPool *LaunchPool) TryPackInitialize() ([]byte, error) {
	return launchPool.abi.Pack("initialize")
}

// PackInitializer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9ce110d7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function initializer() view returns(address)
func (launchPool *LaunchPool) PackInitializer() []byte {
	enc, err := launchPool.abi.Pack("initializer")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInitializer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9ce110d7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function initializer() view returns(address)
func (launchPool *LaunchPool) TryPackInitializer() ([]byte, error) {
	return launchPool.abi.Pack("initializer")
}

// UnpackInitializer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9ce110d7.
//
// Solidity: function initializer() view returns(address)
func (launchPool *LaunchPool) UnpackInitializer(data []byte) (common.Address, error) {
	out, err := launchPool.abi.Unpack("initializer", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPoolId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3e0dc34e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function poolId() view returns(bytes32)
func (launchPool *LaunchPool) PackPoolId() []byte {
	enc, err := launchPool.abi.Pack("poolId")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPoolId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3e0dc34e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function poolId() view returns(bytes32)
func (launchPool *LaunchPool) TryPackPoolId() ([]byte, error) {
	return launchPool.abi.Pack("poolId")
}

// UnpackPoolId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3e0dc34e.
//
// Solidity: function poolId() view returns(bytes32)
func (launchPool *LaunchPool) UnpackPoolId(data []byte) ([32]byte, error) {
	out, err := launchPool.abi.Unpack("poolId", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackSwapExactIn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa6220b66.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function swapExactIn(address tokenIn, uint256 amountIn, uint256 minOut, address to) returns(uint256 amountOut)
func (launchPool *LaunchPool) PackSwapExactIn(tokenIn common.Address, amountIn *big.Int, minOut *big.Int, to common.Address) []byte {
	enc, err := launchPool.abi.Pack("swapExactIn", tokenIn, amountIn, minOut, to)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSwapExactIn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa6220b66.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function swapExactIn(address tokenIn, uint256 amountIn, uint256 minOut, address to) returns(uint256 amountOut)
func (launchPool *LaunchPool) TryPackSwapExactIn(tokenIn common.Address, amountIn *big.Int, minOut *big.Int, to common.Address) ([]byte, error) {
	return launchPool.abi.Pack("swapExactIn", tokenIn, amountIn, minOut, to)
}

// UnpackSwapExactIn is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa6220b66.
//
// Solidity: function swapExactIn(address tokenIn, uint256 amountIn, uint256 minOut, address to) returns(uint256 amountOut)
func (launchPool *LaunchPool) UnpackSwapExactIn(data []byte) (*big.Int, error) {
	out, err := launchPool.abi.Unpack("swapExactIn", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackToken0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0dfe1681.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function token0() view returns(address)
func (launchPool *LaunchPool) PackToken0() []byte {
	enc, err := launchPool.abi.Pack("token0")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackToken0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0dfe1681.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function token0() view returns(address)
func (launchPool *LaunchPool) TryPackToken0() ([]byte, error) {
	return launchPool.abi.Pack("token0")
}

// UnpackToken0 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0dfe1681.
//
// Solidity: function token0() view returns(address)
func (launchPool *LaunchPool) UnpackToken0(data []byte) (common.Address, error) {
	out, err := launchPool.abi.Unpack("token0", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackToken1 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd21220a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function token1() view returns(address)
func (launchPool *LaunchPool) PackToken1() []byte {
	enc, err := launchPool.abi.Pack("token1")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackToken1 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd21220a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function token1() view returns(address)
func (launchPool *LaunchPool) TryPackToken1() ([]byte, error) {
	return launchPool.abi.Pack("token1")
}

// UnpackToken1 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd21220a7.
//
// Solidity: function token1() view returns(address)
func (launchPool *LaunchPool) UnpackToken1(data []byte) (common.Address, error) {
	out, err := launchPool.abi.Unpack("token1", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// LaunchPoolCollectFees represents a CollectFees event raised by the LaunchPool contract.
type LaunchPoolCollectFees struct {
	Amount0 *big.Int
	Amount1 *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const LaunchPoolCollectFeesEventName = "CollectFees"

// ContractEventName returns the user-defined event name.
func (LaunchPoolCollectFees) ContractEventName() string {
	return LaunchPoolCollectFeesEventName
}

// UnpackCollectFeesEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event CollectFees(uint256 amount0, uint256 amount1)
func (launchPool *LaunchPool) UnpackCollectFeesEvent(log *types.Log) (*LaunchPoolCollectFees, error) {
	event := "CollectFees"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != launchPool.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LaunchPoolCollectFees)
	if len(log.Data) > 0 {
		if err := launchPool.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range launchPool.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// LaunchPoolInitialize represents a Initialize event raised by the LaunchPool contract.
type LaunchPoolInitialize struct {
	Reserve0 *big.Int
	Reserve1 *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const LaunchPoolInitializeEventName = "Initialize"

// ContractEventName returns the user-defined event name.
func (LaunchPoolInitialize) ContractEventName() string {
	return LaunchPoolInitializeEventName
}

// UnpackInitializeEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Initialize(uint256 reserve0, uint256 reserve1)
func (launchPool *LaunchPool) UnpackInitializeEvent(log *types.Log) (*LaunchPoolInitialize, error) {
	event := "Initialize"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != launchPool.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LaunchPoolInitialize)
	if len(log.Data) > 0 {
		if err := launchPool.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range launchPool.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// LaunchPoolSwap represents a Swap event raised by the LaunchPool contract.
type LaunchPoolSwap struct {
	Sender    common.Address
	To        common.Address
	TokenIn   common.Address
	AmountIn  *big.Int
	Fee       *big.Int
	AmountOut *big.Int
	Reserve0  *big.Int
	Reserve1  *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const LaunchPoolSwapEventName = "Swap"

// ContractEventName returns the user-defined event name.
func (LaunchPoolSwap) ContractEventName() string {
	return LaunchPoolSwapEventName
}

// UnpackSwapEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Swap(address indexed sender, address indexed to, address indexed tokenIn, uint256 amountIn, uint256 fee, uint256 amountOut, uint256 reserve0, uint256 reserve1)
func (launchPool *LaunchPool) UnpackSwapEvent(log *types.Log) (*LaunchPoolSwap, error) {
	event := "Swap"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != launchPool.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LaunchPoolSwap)
	if len(log.Data) > 0 {
		if err := launchPool.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range launchPool.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (launchPool *LaunchPool) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], launchPool.abi.Errors["AlreadyInitialized"].ID.Bytes()[:4]) {
		return launchPool.UnpackAlreadyInitializedError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["InsufficientOutput"].ID.Bytes()[:4]) {
		return launchPool.UnpackInsufficientOutputError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["InvalidTokens"].ID.Bytes()[:4]) {
		return launchPool.UnpackInvalidTokensError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["NotInitialized"].ID.Bytes()[:4]) {
		return launchPool.UnpackNotInitializedError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["NotInitializer"].ID.Bytes()[:4]) {
		return launchPool.UnpackNotInitializerError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["ReentrancyGuardReentrantCall"].ID.Bytes()[:4]) {
		return launchPool.UnpackReentrancyGuardReentrantCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["SafeERC20FailedOperation"].ID.Bytes()[:4]) {
		return launchPool.UnpackSafeERC20FailedOperationError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["UnknownToken"].ID.Bytes()[:4]) {
		return launchPool.UnpackUnknownTokenError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchPool.abi.Errors["ZeroAmount"].ID.Bytes()[:4]) {
		return launchPool.UnpackZeroAmountError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// LaunchPoolAlreadyInitialized represents a AlreadyInitialized error raised by the LaunchPool contract.
type LaunchPoolAlreadyInitialized struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AlreadyInitialized()
func LaunchPoolAlreadyInitializedErrorID() common.Hash {
	return common.HexToHash("0x0dc149f07762891dbcea3fe72770f3d63a1863fc54b2f084e8c59ec476996927")
}

// UnpackAlreadyInitializedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AlreadyInitialized()
func (launchPool *LaunchPool) UnpackAlreadyInitializedError(raw []byte) (*LaunchPoolAlreadyInitialized, error) {
	out := new(LaunchPoolAlreadyInitialized)
	if err := launchPool.abi.UnpackIntoInterface(out, "AlreadyInitialized", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolInsufficientOutput represents a InsufficientOutput error raised by the LaunchPool contract.
type LaunchPoolInsufficientOutput struct {
	AmountOut *big.Int
	MinOut    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientOutput(uint256 amountOut, uint256 minOut)
func LaunchPoolInsufficientOutputErrorID() common.Hash {
	return common.HexToHash("0x2c19b8b87dc30ba95595ffd66c13e323be53c04224764b08e36f6411939cc30e")
}

// UnpackInsufficientOutputError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientOutput(uint256 amountOut, uint256 minOut)
func (launchPool *LaunchPool) UnpackInsufficientOutputError(raw []byte) (*LaunchPoolInsufficientOutput, error) {
	out := new(LaunchPoolInsufficientOutput)
	if err := launchPool.abi.UnpackIntoInterface(out, "InsufficientOutput", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolInvalidTokens represents a InvalidTokens error raised by the LaunchPool contract.
type LaunchPoolInvalidTokens struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidTokens()
func LaunchPoolInvalidTokensErrorID() common.Hash {
	return common.HexToHash("0x672215dee396c0c46e01cfdc46e4fa03f251c3b9ed4837cd7d5ff7dcca2f5ba3")
}

// UnpackInvalidTokensError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidTokens()
func (launchPool *LaunchPool) UnpackInvalidTokensError(raw []byte) (*LaunchPoolInvalidTokens, error) {
	out := new(LaunchPoolInvalidTokens)
	if err := launchPool.abi.UnpackIntoInterface(out, "InvalidTokens", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolNotInitialized represents a NotInitialized error raised by the LaunchPool contract.
type LaunchPoolNotInitialized struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotInitialized()
func LaunchPoolNotInitializedErrorID() common.Hash {
	return common.HexToHash("0x87138d5c8c2e77cb9f25c07b03277aad63d22f6a05255580ec55d2c21666e734")
}

// UnpackNotInitializedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotInitialized()
func (launchPool *LaunchPool) UnpackNotInitializedError(raw []byte) (*LaunchPoolNotInitialized, error) {
	out := new(LaunchPoolNotInitialized)
	if err := launchPool.abi.UnpackIntoInterface(out, "NotInitialized", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolNotInitializer represents a NotInitializer error raised by the LaunchPool contract.
type LaunchPoolNotInitializer struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotInitializer()
func LaunchPoolNotInitializerErrorID() common.Hash {
	return common.HexToHash("0xceeb95b38868e5bd14d64b972103e31845185a646efadf0bc5bf0b398bf70dd5")
}

// UnpackNotInitializerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotInitializer()
func (launchPool *LaunchPool) UnpackNotInitializerError(raw []byte) (*LaunchPoolNotInitializer, error) {
	out := new(LaunchPoolNotInitializer)
	if err := launchPool.abi.UnpackIntoInterface(out, "NotInitializer", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolReentrancyGuardReentrantCall represents a ReentrancyGuardReentrantCall error raised by the LaunchPool contract.
type LaunchPoolReentrancyGuardReentrantCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReentrancyGuardReentrantCall()
func LaunchPoolReentrancyGuardReentrantCallErrorID() common.Hash {
	return common.HexToHash("0x3ee5aeb571de7fc460830b4d0017439a1ca56fb0bc39062227ade4fe4a24c1ca")
}

// UnpackReentrancyGuardReentrantCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReentrancyGuardReentrantCall()
func (launchPool *LaunchPool) UnpackReentrancyGuardReentrantCallError(raw []byte) (*LaunchPoolReentrancyGuardReentrantCall, error) {
	out := new(LaunchPoolReentrancyGuardReentrantCall)
	if err := launchPool.abi.UnpackIntoInterface(out, "ReentrancyGuardReentrantCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolSafeERC20FailedOperation represents a SafeERC20FailedOperation error raised by the LaunchPool contract.
type LaunchPoolSafeERC20FailedOperation struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SafeERC20FailedOperation(address token)
func LaunchPoolSafeERC20FailedOperationErrorID() common.Hash {
	return common.HexToHash("0x5274afe73c98b4749fc91ffae6b7b574e7842cb2144a159e9377a5f20b32edf9")
}

// UnpackSafeERC20FailedOperationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SafeERC20FailedOperation(address token)
func (launchPool *LaunchPool) UnpackSafeERC20FailedOperationError(raw []byte) (*LaunchPoolSafeERC20FailedOperation, error) {
	out := new(LaunchPoolSafeERC20FailedOperation)
	if err := launchPool.abi.UnpackIntoInterface(out, "SafeERC20FailedOperation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolUnknownToken represents a UnknownToken error raised by the LaunchPool contract.
type LaunchPoolUnknownToken struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnknownToken(address token)
func LaunchPoolUnknownTokenErrorID() common.Hash {
	return common.HexToHash("0x81a3b1be793a33711a37ddbe59cab61462924094bee93f89ee4f8da7f0005496")
}

// UnpackUnknownTokenError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnknownToken(address token)
func (launchPool *LaunchPool) UnpackUnknownTokenError(raw []byte) (*LaunchPoolUnknownToken, error) {
	out := new(LaunchPoolUnknownToken)
	if err := launchPool.abi.UnpackIntoInterface(out, "UnknownToken", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchPoolZeroAmount represents a ZeroAmount error raised by the LaunchPool contract.
type LaunchPoolZeroAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroAmount()
func LaunchPoolZeroAmountErrorID() common.Hash {
	return common.HexToHash("0x1f2a2005cb66a8e145327e8814e243a0996aec9bfe1e15a495778b1236dbd485")
}

// UnpackZeroAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroAmount()
func (launchPool *LaunchPool) UnpackZeroAmountError(raw []byte) (*LaunchPoolZeroAmount, error) {
	out := new(LaunchPoolZeroAmount)
	if err := launchPool.abi.UnpackIntoInterface(out, "ZeroAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}
