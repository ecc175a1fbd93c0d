// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package devtoken

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

// DevTokenMetaData contains all meta data concerning the DevToken contract.
var DevTokenMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"TOTAL_SUPPLY\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "DevToken",
	Bin: "0x608060405234801561000f575f5ffd5b50604051806040016040528060098152602001682232bb102a37b5b2b760b91b815250604051806040016040528060038152602001622222ab60e91b815250816003908161005d9190610292565b50600461006a8282610292565b5050506100873369d3c21bcecceda100000061008c60201b60201c565b610375565b6001600160a01b0382166100ba5760405163ec442f0560e01b81525f60048201526024015b60405180910390fd5b6100c55f83836100c9565b5050565b6001600160a01b0383166100f3578060025f8282546100e89190610350565b909155506101639050565b6001600160a01b0383165f90815260208190526040902054818110156101455760405163391434e360e21b81526001600160a01b038516600482015260248101829052604481018390526064016100b1565b6001600160a01b0384165f9081526020819052604090209082900390555b6001600160a01b03821661017f5760028054829003905561019d565b6001600160a01b0382165f9081526020819052604090208054820190555b816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef836040516101e291815260200190565b60405180910390a3505050565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061021757607f821691505b60208210810361023557634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561028d578282111561028d57805f5260205f20601f840160051c602085101561026657505f5b90810190601f840160051c035f5b81811015610289575f83820155600101610274565b5050505b505050565b81516001600160401b038111156102ab576102ab6101ef565b6102bf816102b98454610203565b8461023b565b6020601f8211600181146102f1575f83156102da5750848201515b5f19600385901b1c1916600184901b178455610349565b5f84815260208120601f198516915b828110156103205787850151825560209485019460019092019101610300565b508482101561033d57868401515f19600387901b60f8161c191681555b505060018360011b0184555b5050505050565b8082018082111561036f57634e487b7160e01b5f52601160045260245ffd5b92915050565b610700806103825f395ff3fe608060405234801561000f575f5ffd5b506004361061009b575f3560e01c806370a082311161006357806370a0823114610114578063902d55a51461013c57806395d89b411461014d578063a9059cbb14610155578063dd62ed3e14610168575f5ffd5b806306fdde031461009f578063095ea7b3146100bd57806318160ddd146100e057806323b872dd146100f2578063313ce56714610105575b5f5ffd5b6100a76101a0565b6040516100b49190610570565b60405180910390f35b6100d06100cb3660046105c0565b610230565b60405190151581526020016100b4565b6002545b6040519081526020016100b4565b6100d06101003660046105e8565b610249565b604051601281526020016100b4565b6100e4610122366004610622565b6001600160a01b03165f9081526020819052604090205490565b6100e469d3c21bcecceda100000081565b6100a761026c565b6100d06101633660046105c0565b61027b565b6100e4610176366004610642565b6001600160a01b039182165f90815260016020908152604080832093909416825291909152205490565b6060600380546101af90610673565b80601f01602080910402602001604051908101604052809291908181526020018280546101db90610673565b80156102265780601f106101fd57610100808354040283529160200191610226565b820191905f5260205f20905b81548152906001019060200180831161020957829003601f168201915b5050505050905090565b5f3361023d818585610288565b60019150505b92915050565b5f3361025685828561029a565b61026185858561031b565b506001949350505050565b6060600480546101af90610673565b5f3361023d81858561031b565b6102958383836001610378565b505050565b6001600160a01b038381165f908152600160209081526040808320938616835292905220545f19811015610315578181101561030757604051637dc7a0d960e11b81526001600160a01b038416600482015260248101829052604481018390526064015b60405180910390fd5b61031584848484035f610378565b50505050565b6001600160a01b03831661034457604051634b637e8f60e11b81525f60048201526024016102fe565b6001600160a01b03821661036d5760405163ec442f0560e01b81525f60048201526024016102fe565b61029583838361044a565b6001600160a01b0384166103a15760405163e602df0560e01b81525f60048201526024016102fe565b6001600160a01b0383166103ca57604051634a1406b160e11b81525f60048201526024016102fe565b6001600160a01b038085165f908152600160209081526040808320938716835292905220829055801561031557826001600160a01b0316846001600160a01b03167f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b9258460405161043c91815260200190565b60405180910390a350505050565b6001600160a01b038316610474578060025f82825461046991906106ab565b909155506104e49050565b6001600160a01b0383165f90815260208190526040902054818110156104c65760405163391434e360e21b81526001600160a01b038516600482015260248101829052604481018390526064016102fe565b6001600160a01b0384165f9081526020819052604090209082900390555b6001600160a01b0382166105005760028054829003905561051e565b6001600160a01b0382165f9081526020819052604090208054820190555b816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef8360405161056391815260200190565b60405180910390a3505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80356001600160a01b03811681146105bb575f5ffd5b919050565b5f5f604083850312156105d1575f5ffd5b6105da836105a5565b946020939093013593505050565b5f5f5f606084860312156105fa575f5ffd5b610603846105a5565b9250610611602085016105a5565b929592945050506040919091013590565b5f60208284031215610632575f5ffd5b61063b826105a5565b9392505050565b5f5f60408385031215610653575f5ffd5b61065c836105a5565b915061066a602084016105a5565b90509250929050565b600181811c9082168061068757607f821691505b6020821081036106a557634e487b7160e01b5f52602260045260245ffd5b50919050565b8082018082111561024357634e487b7160e01b5f52601160045260245ffdfea2646970667358221220df7157853fb6d2c29508310f44938ad05ebbdb35c4a3d978615930e5b8bf2af764736f6c63430008250033",
}

// DevToken is an auto generated Go binding around an Ethereum contract.
type DevToken struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DevToken) GetABI() abi.ABI {
	return c.abi
}

// NewDevToken creates a new instance of DevToken.
func NewDevToken() *DevToken {
	parsed, err := DevTokenMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DevToken{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DevToken) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackTOTALSUPPLY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x902d55a5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function TOTAL_SUPPLY() view returns(uint256)
func (devToken *DevToken) PackTOTALSUPPLY() []byte {
	enc, err := devToken.abi.Pack("TOTAL_SUPPLY")
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
func (devToken *DevToken) TryPackTOTALSUPPLY() ([]byte, error) {
	return devToken.abi.Pack("TOTAL_SUPPLY")
}

// UnpackTOTALSUPPLY is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x902d55a5.
//
// Solidity: function TOTAL_SUPPLY() view returns(uint256)
func (devToken *DevToken) UnpackTOTALSUPPLY(data []byte) (*big.Int, error) {
	out, err := devToken.abi.Unpack("TOTAL_SUPPLY", data)
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
func (devToken *DevToken) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := devToken.abi.Pack("allowance", owner, spender)
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
func (devToken *DevToken) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return devToken.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (devToken *DevToken) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := devToken.abi.Unpack("allowance", data)
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
func (devToken *DevToken) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := devToken.abi.Pack("approve", spender, value)
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
func (devToken *DevToken) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return devToken.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (devToken *DevToken) UnpackApprove(data []byte) (bool, error) {
	out, err := devToken.abi.Unpack("approve", data)
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
func (devToken *DevToken) PackBalanceOf(account common.Address) []byte {
	enc, err := devToken.abi.Pack("balanceOf", account)
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
func (devToken *DevToken) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return devToken.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (devToken *DevToken) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := devToken.abi.Unpack("balanceOf", data)
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
func (devToken *DevToken) PackDecimals() []byte {
	enc, err := devToken.abi.Pack("decimals")
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
func (devToken *DevToken) TryPackDecimals() ([]byte, error) {
	return devToken.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (devToken *DevToken) UnpackDecimals(data []byte) (uint8, error) {
	out, err := devToken.abi.Unpack("decimals", data)
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
func (devToken *DevToken) PackName() []byte {
	enc, err := devToken.abi.Pack("name")
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
func (devToken *DevToken) TryPackName() ([]byte, error) {
	return devToken.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (devToken *DevToken) UnpackName(data []byte) (string, error) {
	out, err := devToken.abi.Unpack("name", data)
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
func (devToken *DevToken) PackSymbol() []byte {
	enc, err := devToken.abi.Pack("symbol")
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
func (devToken *DevToken) TryPackSymbol() ([]byte, error) {
	return devToken.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (devToken *DevToken) UnpackSymbol(data []byte) (string, error) {
	out, err := devToken.abi.Unpack("symbol", data)
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
func (devToken *DevToken) PackTotalSupply() []byte {
	enc, err := devToken.abi.Pack("totalSupply")
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
func (devToken *DevToken) TryPackTotalSupply() ([]byte, error) {
	return devToken.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (devToken *DevToken) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := devToken.abi.Unpack("totalSupply", data)
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
func (devToken *DevToken) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := devToken.abi.Pack("transfer", to, value)
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
func (devToken *DevToken) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return devToken.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (devToken *DevToken) UnpackTransfer(data []byte) (bool, error) {
	out, err := devToken.abi.Unpack("transfer", data)
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
func (devToken *DevToken) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := devToken.abi.Pack("transferFrom", from, to, value)
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
func (devToken *DevToken) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return devToken.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (devToken *DevToken) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := devToken.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// DevTokenApproval represents a Approval event raised by the DevToken contract.
type DevTokenApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const DevTokenApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (DevTokenApproval) ContractEventName() string {
	return DevTokenApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (devToken *DevToken) UnpackApprovalEvent(log *types.Log) (*DevTokenApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != devToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DevTokenApproval)
	if len(log.Data) > 0 {
		if err := devToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range devToken.abi.Events[event].Inputs {
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

// DevTokenTransfer represents a Transfer event raised by the DevToken contract.
type DevTokenTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const DevTokenTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (DevTokenTransfer) ContractEventName() string {
	return DevTokenTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (devToken *DevToken) UnpackTransferEvent(log *types.Log) (*DevTokenTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != devToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DevTokenTransfer)
	if len(log.Data) > 0 {
		if err := devToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range devToken.abi.Events[event].Inputs {
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
func (devToken *DevToken) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], devToken.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return devToken.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], devToken.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return devToken.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], devToken.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return devToken.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], devToken.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return devToken.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], devToken.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return devToken.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], devToken.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return devToken.UnpackERC20InvalidSpenderError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DevTokenERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the DevToken contract.
type DevTokenERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func DevTokenERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (devToken *DevToken) UnpackERC20InsufficientAllowanceError(raw []byte) (*DevTokenERC20InsufficientAllowance, error) {
	out := new(DevTokenERC20InsufficientAllowance)
	if err := devToken.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DevTokenERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the DevToken contract.
type DevTokenERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func DevTokenERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (devToken *DevToken) UnpackERC20InsufficientBalanceError(raw []byte) (*DevTokenERC20InsufficientBalance, error) {
	out := new(DevTokenERC20InsufficientBalance)
	if err := devToken.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DevTokenERC20InvalidApprover represents a ERC20InvalidApprover error raised by the DevToken contract.
type DevTokenERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func DevTokenERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (devToken *DevToken) UnpackERC20InvalidApproverError(raw []byte) (*DevTokenERC20InvalidApprover, error) {
	out := new(DevTokenERC20InvalidApprover)
	if err := devToken.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DevTokenERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the DevToken contract.
type DevTokenERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func DevTokenERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (devToken *DevToken) UnpackERC20InvalidReceiverError(raw []byte) (*DevTokenERC20InvalidReceiver, error) {
	out := new(DevTokenERC20InvalidReceiver)
	if err := devToken.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DevTokenERC20InvalidSender represents a ERC20InvalidSender error raised by the DevToken contract.
type DevTokenERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func DevTokenERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (devToken *DevToken) UnpackERC20InvalidSenderError(raw []byte) (*DevTokenERC20InvalidSender, error) {
	out := new(DevTokenERC20InvalidSender)
	if err := devToken.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DevTokenERC20InvalidSpender represents a ERC20InvalidSpender error raised by the DevToken contract.
type DevTokenERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func DevTokenERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (devToken *DevToken) UnpackERC20InvalidSpenderError(raw []byte) (*DevTokenERC20InvalidSpender, error) {
	out := new(DevTokenERC20InvalidSpender)
	if err := devToken.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}
