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

// LaunchTokenMetaData contains all meta data concerning the LaunchToken contract.
var LaunchTokenMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroVault\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"TOTAL_SUPPLY\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"vault\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "LaunchToken",
	Bin: "0x60a060405234801561000f575f5ffd5b506100186100f5565b610020610161565b600361002c83826103d2565b50600461003982826103d2565b5050505f336001600160a01b03166365c5b8cd6040518163ffffffff1660e01b81526004015f60405180830381865afa158015610078573d5f5f3e3d5ffd5b505050506040513d5f823e601f3d908101601f1916820160405261009f9190810190610519565b9250506001600160a01b03821690506100cb57604051636347e7c160e11b815260040160405180910390fd5b6001600160a01b0381166080526100ef336c01431e0fae6d7217caa00000006101cc565b506105c3565b6060336001600160a01b03166365c5b8cd6040518163ffffffff1660e01b81526004015f60405180830381865afa158015610132573d5f5f3e3d5ffd5b505050506040513d5f823e601f3d908101601f191682016040526101599190810190610519565b509092915050565b6060336001600160a01b03166365c5b8cd6040518163ffffffff1660e01b81526004015f60405180830381865afa15801561019e573d5f5f3e3d5ffd5b505050506040513d5f823e601f3d908101601f191682016040526101c59190810190610519565b5092915050565b6001600160a01b0382166101fa5760405163ec442f0560e01b81525f60048201526024015b60405180910390fd5b6102055f8383610209565b5050565b6001600160a01b038316610233578060025f828254610228919061059e565b909155506102a39050565b6001600160a01b0383165f90815260208190526040902054818110156102855760405163391434e360e21b81526001600160a01b038516600482015260248101829052604481018390526064016101f1565b6001600160a01b0384165f9081526020819052604090209082900390555b6001600160a01b0382166102bf576002805482900390556102dd565b6001600160a01b0382165f9081526020819052604090208054820190555b816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef8360405161032291815260200190565b60405180910390a3505050565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061035757607f821691505b60208210810361037557634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156103cd57828211156103cd57805f5260205f20601f840160051c60208510156103a657505f5b90810190601f840160051c035f5b818110156103c9575f838201556001016103b4565b5050505b505050565b81516001600160401b038111156103eb576103eb61032f565b6103ff816103f98454610343565b8461037b565b6020601f821160018114610431575f831561041a5750848201515b5f19600385901b1c1916600184901b178455610489565b5f84815260208120601f198516915b828110156104605787850151825560209485019460019092019101610440565b508482101561047d57868401515f19600387901b60f8161c191681555b505060018360011b0184555b5050505050565b5f82601f83011261049f575f5ffd5b81516001600160401b038111156104b8576104b861032f565b604051601f8201601f19908116603f011681016001600160401b03811182821017156104e6576104e661032f565b6040528181528382016020018510156104fd575f5ffd5b8160208501602083015e5f918101602001919091529392505050565b5f5f5f6060848603121561052b575f5ffd5b83516001600160401b03811115610540575f5ffd5b61054c86828701610490565b602086015190945090506001600160401b03811115610569575f5ffd5b61057586828701610490565b604086015190935090506001600160a01b0381168114610593575f5ffd5b809150509250925092565b808201808211156105bd57634e487b7160e01b5f52601160045260245ffd5b92915050565b60805161074d6105db5f395f6101b3015261074d5ff3fe608060405234801561000f575f5ffd5b50600436106100a6575f3560e01c806370a082311161006e57806370a082311461011f578063902d55a51461014757806395d89b411461015b578063a9059cbb14610163578063dd62ed3e14610176578063fbfa77cf146101ae575f5ffd5b806306fdde03146100aa578063095ea7b3146100c857806318160ddd146100eb57806323b872dd146100fd578063313ce56714610110575b5f5ffd5b6100b26101ed565b6040516100bf91906105bd565b60405180910390f35b6100db6100d636600461060d565b61027d565b60405190151581526020016100bf565b6002545b6040519081526020016100bf565b6100db61010b366004610635565b610296565b604051601281526020016100bf565b6100ef61012d36600461066f565b6001600160a01b03165f9081526020819052604090205490565b6100ef6c01431e0fae6d7217caa000000081565b6100b26102b9565b6100db61017136600461060d565b6102c8565b6100ef61018436600461068f565b6001600160a01b039182165f90815260016020908152604080832093909416825291909152205490565b6101d57f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100bf565b6060600380546101fc906106c0565b80601f0160208091040260200160405190810160405280929190818152602001828054610228906106c0565b80156102735780601f1061024a57610100808354040283529160200191610273565b820191905f5260205f20905b81548152906001019060200180831161025657829003601f168201915b5050505050905090565b5f3361028a8185856102d5565b60019150505b92915050565b5f336102a38582856102e7565b6102ae858585610368565b506001949350505050565b6060600480546101fc906106c0565b5f3361028a818585610368565b6102e283838360016103c5565b505050565b6001600160a01b038381165f908152600160209081526040808320938616835292905220545f19811015610362578181101561035457604051637dc7a0d960e11b81526001600160a01b038416600482015260248101829052604481018390526064015b60405180910390fd5b61036284848484035f6103c5565b50505050565b6001600160a01b03831661039157604051634b637e8f60e11b81525f600482015260240161034b565b6001600160a01b0382166103ba5760405163ec442f0560e01b81525f600482015260240161034b565b6102e2838383610497565b6001600160a01b0384166103ee5760405163e602df0560e01b81525f600482015260240161034b565b6001600160a01b03831661041757604051634a1406b160e11b81525f600482015260240161034b565b6001600160a01b038085165f908152600160209081526040808320938716835292905220829055801561036257826001600160a01b0316846001600160a01b03167f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b9258460405161048991815260200190565b60405180910390a350505050565b6001600160a01b0383166104c1578060025f8282546104b691906106f8565b909155506105319050565b6001600160a01b0383165f90815260208190526040902054818110156105135760405163391434e360e21b81526001600160a01b0385166004820152602481018290526044810183905260640161034b565b6001600160a01b0384165f9081526020819052604090209082900390555b6001600160a01b03821661054d5760028054829003905561056b565b6001600160a01b0382165f9081526020819052604090208054820190555b816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef836040516105b091815260200190565b60405180910390a3505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80356001600160a01b0381168114610608575f5ffd5b919050565b5f5f6040838503121561061e575f5ffd5b610627836105f2565b946020939093013593505050565b5f5f5f60608486031215610647575f5ffd5b610650846105f2565b925061065e602085016105f2565b929592945050506040919091013590565b5f6020828403121561067f575f5ffd5b610688826105f2565b9392505050565b5f5f604083850312156106a0575f5ffd5b6106a9836105f2565b91506106b7602084016105f2565b90509250929050565b600181811c908216806106d457607f821691505b6020821081036106f257634e487b7160e01b5f52602260045260245ffd5b50919050565b8082018082111561029057634e487b7160e01b5f52601160045260245ffdfea2646970667358221220fa8c495ea6e23854a98d404cbb23af0259ea0550a8c9778a42199a2941406b9464736f6c63430008250033",
}

// LaunchToken is an auto generated Go binding around an Ethereum contract.
type LaunchToken struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *LaunchToken) GetABI() abi.ABI {
	return c.abi
}

// NewLaunchToken creates a new instance of LaunchToken.
func NewLaunchToken() *LaunchToken {
	parsed, err := LaunchTokenMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &LaunchToken{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *LaunchToken) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackTOTALSUPPLY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x902d55a5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function TOTAL_SUPPLY() view returns(uint256)
func (launchToken *LaunchToken) PackTOTALSUPPLY() []byte {
	enc, err := launchToken.abi.Pack("TOTAL_SUPPLY")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTOTALSUPPLY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x902d55a5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function TOTAL_SUPPLY() view returns(uint256)
func (launchToken *LaunchToken) TryPackTOTALSUPPLY() ([]byte, error) {
	return launchToken.abi.Pack("TOTAL_SUPPLY")
}

// UnpackTOTALSUPPLY is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x902d55a5.
//
// Solidity: function TOTAL_SUPPLY() view returns(uint256)
func (launchToken *LaunchToken) UnpackTOTALSUPPLY(data []byte) (*big.Int, error) {
	out, err := launchToken.abi.Unpack("TOTAL_SUPPLY", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (launchToken *LaunchToken) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := launchToken.abi.Pack("allowance", owner, spender)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (launchToken *LaunchToken) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return launchToken.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (launchToken *LaunchToken) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := launchToken.abi.Unpack("allowance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (launchToken *LaunchToken) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := launchToken.abi.Pack("approve", spender, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (launchToken *LaunchToken) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return launchToken.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (launchToken *LaunchToken) UnpackApprove(data []byte) (bool, error) {
	out, err := launchToken.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (launchToken *LaunchToken) PackBalanceOf(account common.Address) []byte {
	enc, err := launchToken.abi.Pack("balanceOf", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (launchToken *LaunchToken) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return launchToken.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (launchToken *LaunchToken) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := launchToken.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (launchToken *LaunchToken) PackDecimals() []byte {
	enc, err := launchToken.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (launchToken *LaunchToken) TryPackDecimals() ([]byte, error) {
	return launchToken.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (launchToken *LaunchToken) UnpackDecimals(data []byte) (uint8, error) {
	out, err := launchToken.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (launchToken *LaunchToken) PackName() []byte {
	enc, err := launchToken.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (launchToken *LaunchToken) TryPackName() ([]byte, error) {
	return launchToken.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (launchToken *LaunchToken) UnpackName(data []byte) (string, error) {
	out, err := launchToken.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (launchToken *LaunchToken) PackSymbol() []byte {
	enc, err := launchToken.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (launchToken *LaunchToken) TryPackSymbol() ([]byte, error) {
	return launchToken.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (launchToken *LaunchToken) UnpackSymbol(data []byte) (string, error) {
	out, err := launchToken.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (launchToken *LaunchToken) PackTotalSupply() []byte {
	enc, err := launchToken.abi.Pack("totalSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalSupply() view returns(uint256)
func (launchToken *LaunchToken) TryPackTotalSupply() ([]byte, error) {
	return launchToken.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (launchToken *LaunchToken) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := launchToken.abi.Unpack("totalSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (launchToken *LaunchToken) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := launchToken.abi.Pack("transfer", to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (launchToken *LaunchToken) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return launchToken.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (launchToken *LaunchToken) UnpackTransfer(data []byte) (bool, error) {
	out, err := launchToken.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (launchToken *LaunchToken) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := launchToken.abi.Pack("transferFrom", from, to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (launchToken *LaunchToken) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return launchToken.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (launchToken *LaunchToken) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := launchToken.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackVault is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfbfa77cf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function vault() view returns(address)
func (launchToken *LaunchToken) PackVault() []byte {
	enc, err := launchToken.abi.Pack("vault")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVault is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfbfa77cf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function vault() view returns(address)
func (launchToken *LaunchToken) TryPackVault() ([]byte, error) {
	return launchToken.abi.Pack("vault")
}

// UnpackVault is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfbfa77cf.
//
// Solidity: function vault() view returns(address)
func (launchToken *LaunchToken) UnpackVault(data []byte) (common.Address, error) {
	out, err := launchToken.abi.Unpack("vault", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// LaunchTokenApproval represents a Approval event raised by the LaunchToken contract.
type LaunchTokenApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const LaunchTokenApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (LaunchTokenApproval) ContractEventName() string {
	return LaunchTokenApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (launchToken *LaunchToken) UnpackApprovalEvent(log *types.Log) (*LaunchTokenApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != launchToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LaunchTokenApproval)
	if len(log.Data) > 0 {
		if err := launchToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range launchToken.abi.Events[event].Inputs {
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

// LaunchTokenTransfer represents a Transfer event raised by the LaunchToken contract.
type LaunchTokenTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const LaunchTokenTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (LaunchTokenTransfer) ContractEventName() string {
	return LaunchTokenTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (launchToken *LaunchToken) UnpackTransferEvent(log *types.Log) (*LaunchTokenTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != launchToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LaunchTokenTransfer)
	if len(log.Data) > 0 {
		if err := launchToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range launchToken.abi.Events[event].Inputs {
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
func (launchToken *LaunchToken) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], launchToken.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return launchToken.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchToken.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return launchToken.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchToken.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return launchToken.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchToken.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return launchToken.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchToken.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return launchToken.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchToken.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return launchToken.UnpackERC20InvalidSpenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], launchToken.abi.Errors["ZeroVault"].ID.Bytes()[:4]) {
		return launchToken.UnpackZeroVaultError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// LaunchTokenERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the LaunchToken contract.
type LaunchTokenERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func LaunchTokenERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (launchToken *LaunchToken) UnpackERC20InsufficientAllowanceError(raw []byte) (*LaunchTokenERC20InsufficientAllowance, error) {
	out := new(LaunchTokenERC20InsufficientAllowance)
	if err := launchToken.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchTokenERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the LaunchToken contract.
type LaunchTokenERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func LaunchTokenERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (launchToken *LaunchToken) UnpackERC20InsufficientBalanceError(raw []byte) (*LaunchTokenERC20InsufficientBalance, error) {
	out := new(LaunchTokenERC20InsufficientBalance)
	if err := launchToken.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchTokenERC20InvalidApprover represents a ERC20InvalidApprover error raised by the LaunchToken contract.
type LaunchTokenERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func LaunchTokenERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (launchToken *LaunchToken) UnpackERC20InvalidApproverError(raw []byte) (*LaunchTokenERC20InvalidApprover, error) {
	out := new(LaunchTokenERC20InvalidApprover)
	if err := launchToken.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchTokenERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the LaunchToken contract.
type LaunchTokenERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func LaunchTokenERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (launchToken *LaunchToken) UnpackERC20InvalidReceiverError(raw []byte) (*LaunchTokenERC20InvalidReceiver, error) {
	out := new(LaunchTokenERC20InvalidReceiver)
	if err := launchToken.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchTokenERC20InvalidSender represents a ERC20InvalidSender error raised by the LaunchToken contract.
type LaunchTokenERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func LaunchTokenERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (launchToken *LaunchToken) UnpackERC20InvalidSenderError(raw []byte) (*LaunchTokenERC20InvalidSender, error) {
	out := new(LaunchTokenERC20InvalidSender)
	if err := launchToken.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchTokenERC20InvalidSpender represents a ERC20InvalidSpender error raised by the LaunchToken contract.
type LaunchTokenERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func LaunchTokenERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (launchToken *LaunchToken) UnpackERC20InvalidSpenderError(raw []byte) (*LaunchTokenERC20InvalidSpender, error) {
	out := new(LaunchTokenERC20InvalidSpender)
	if err := launchToken.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LaunchTokenZeroVault represents a ZeroVault error raised by the LaunchToken contract.
type LaunchTokenZeroVault struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroVault()
func LaunchTokenZeroVaultErrorID() common.Hash {
	return common.HexToHash("0xc68fcf8295913206f3ff154205c05e0726fa055ff25e4540f771e9dd7e090b98")
}

// UnpackZeroVaultError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroVault()
func (launchToken *LaunchToken) UnpackZeroVaultError(raw []byte) (*LaunchTokenZeroVault, error) {
	out := new(LaunchTokenZeroVault)
	if err := launchToken.abi.UnpackIntoInterface(out, "ZeroVault", raw); err != nil {
		return nil, err
	}
	return out, nil
}
