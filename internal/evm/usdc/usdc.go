// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package usdc

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

// USDCMetaData contains all meta data concerning the USDC contract.
var USDCMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidShortString\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"OwnableInvalidOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"OwnableUnauthorizedAccount\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"str\",\"type\":\"string\"}],\"name\":\"StringTooLong\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"}],\"name\":\"AuthorizationCanceled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"}],\"name\":\"AuthorizationUsed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"EIP712DomainChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previousOwner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"OwnershipTransferred\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"CANCEL_AUTHORIZATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"DOMAIN_SEPARATOR\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"RECEIVE_WITH_AUTHORIZATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"TRANSFER_WITH_AUTHORIZATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"}],\"name\":\"authorizationState\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"cancelAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"cancelAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"receiveWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"receiveWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"renounceOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"transferOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"transferWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"transferWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "USDC",
	Bin: "0x610160604052348015610010575f5ffd5b50604051806040016040528060088152602001672aa9a21021b7b4b760c11b815250604051806040016040528060018152602001601960f91b81525033604051806040016040528060088152602001672aa9a21021b7b4b760c11b815250604051806040016040528060048152602001635553444360e01b815250816003908161009a91906102c3565b5060046100a782826102c3565b5050506001600160a01b0381166100d857604051631e4fbdf760e01b81525f60048201526024015b60405180910390fd5b6100e181610192565b506100eb826101e3565b610120526100f8816101e3565b61014052815160208084019190912060e052815190820120610100524660a05261018460e05161010051604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201529081019290925260608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b60805250503060c0526103d9565b600580546001600160a01b038381166001600160a01b0319831681179093556040519116919082907f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0905f90a35050565b5f5f829050601f8151111561020d578260405163305a27a960e01b81526004016100cf9190610381565b8051610218826103b6565b179392505050565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061024857607f821691505b60208210810361026657634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156102be57828211156102be57805f5260205f20601f840160051c602085101561029757505f5b90810190601f840160051c035f5b818110156102ba575f838201556001016102a5565b5050505b505050565b81516001600160401b038111156102dc576102dc610220565b6102f0816102ea8454610234565b8461026c565b6020601f821160018114610322575f831561030b5750848201515b5f19600385901b1c1916600184901b17845561037a565b5f84815260208120601f198516915b828110156103515787850151825560209485019460019092019101610331565b508482101561036e57868401515f19600387901b60f8161c191681555b505060018360011b0184555b5050505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80516020808301519190811015610266575f1960209190910360031b1b16919050565b60805160a05160c05160e0516101005161012051610140516116c161042a5f395f610af101525f610ac601525f6108b501525f61088d01525f6107e801525f61081201525f61083c01526116c15ff3fe608060405234801561000f575f5ffd5b506004361061016d575f3560e01c806388b7ab63116100d9578063cf09299511610093578063e3ee160e1161006e578063e3ee160e1461037d578063e94a010214610390578063ef55bec6146103c8578063f2fde38b146103db575f5ffd5b8063cf0929951461030b578063d91694871461031e578063dd62ed3e14610345575f5ffd5b806388b7ab63146102885780638da5cb5b1461029b57806395d89b41146102b6578063a0cc6a68146102be578063a9059cbb146102e5578063b7b72899146102f8575f5ffd5b806340c10f191161012a57806340c10f19146101ee5780635a049a701461020357806370a0823114610216578063715018a61461023e5780637f2eecc31461024657806384b0196e1461026d575f5ffd5b806306fdde0314610171578063095ea7b31461018f57806318160ddd146101b257806323b872dd146101c4578063313ce567146101d75780633644e515146101e6575b5f5ffd5b6101796103ee565b6040516101869190611226565b60405180910390f35b6101a261019d366004611253565b61047e565b6040519015158152602001610186565b6002545b604051908152602001610186565b6101a26101d236600461127b565b610497565b60405160068152602001610186565b6101b66104bc565b6102016101fc366004611253565b6104ca565b005b6102016102113660046112c5565b6104e0565b6101b661022436600461130f565b6001600160a01b03165f9081526020819052604090205490565b6102016104fc565b6101b67fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de881565b61027561050f565b6040516101869796959493929190611328565b61020161029636600461145d565b610551565b6005546040516001600160a01b039091168152602001610186565b6101796105bb565b6101b67f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a226781565b6101a26102f3366004611253565b6105ca565b6102016103063660046114dc565b6105d7565b61020161031936600461145d565b6105e7565b6101b67f158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a159742981565b6101b661035336600461152f565b6001600160a01b039182165f90815260016020908152604080832093909416825291909152205490565b61020161038b366004611560565b610617565b6101a261039e366004611253565b6001600160a01b03919091165f908152600860209081526040808320938352929052205460ff1690565b6102016103d6366004611560565b61065c565b6102016103e936600461130f565b6106b9565b6060600380546103fd906115db565b80601f0160208091040260200160405190810160405280929190818152602001828054610429906115db565b80156104745780601f1061044b57610100808354040283529160200191610474565b820191905f5260205f20905b81548152906001019060200180831161045757829003601f168201915b5050505050905090565b5f3361048b8185856106f6565b60019150505b92915050565b5f336104a4858285610703565b6104af85858561077f565b60019150505b9392505050565b5f6104c56107dc565b905090565b6104d2610905565b6104dc8282610932565b5050565b6104f585856104f0868686610966565b6109a3565b5050505050565b610504610905565b61050d5f610a6e565b565b5f6060805f5f5f6060610520610abf565b610528610aea565b604080515f80825260208201909252600f60f81b9b939a50919850469750309650945092509050565b6001600160a01b03861633146105825760405162461bcd60e51b815260040161057990611613565b60405180910390fd5b6105b27fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de888888888888888610b15565b50505050505050565b6060600480546103fd906115db565b5f3361048b81858561077f565b6105e28383836109a3565b505050565b6105b27f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a226788888888888888610b15565b6106517f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a22678a8a8a8a8a8a61064c8b8b8b610966565b610b15565b505050505050505050565b6001600160a01b03881633146106845760405162461bcd60e51b815260040161057990611613565b6106517fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de88a8a8a8a8a8a61064c8b8b8b610966565b6106c1610905565b6001600160a01b0381166106ea57604051631e4fbdf760e01b81525f6004820152602401610579565b6106f381610a6e565b50565b6105e28383836001610ca1565b6001600160a01b038381165f908152600160209081526040808320938616835292905220545f19811015610779578181101561076b57604051637dc7a0d960e11b81526001600160a01b03841660048201526024810182905260448101839052606401610579565b61077984848484035f610ca1565b50505050565b6001600160a01b0383166107a857604051634b637e8f60e11b81525f6004820152602401610579565b6001600160a01b0382166107d15760405163ec442f0560e01b81525f6004820152602401610579565b6105e2838383610d73565b5f306001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001614801561083457507f000000000000000000000000000000000000000000000000000000000000000046145b1561085e57507f000000000000000000000000000000000000000000000000000000000000000090565b6104c5604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f0000000000000000000000000000000000000000000000000000000000000000918101919091527f000000000000000000000000000000000000000000000000000000000000000060608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b6005546001600160a01b0316331461050d5760405163118cdaa760e01b8152336004820152602401610579565b6001600160a01b03821661095b5760405163ec442f0560e01b81525f6004820152602401610579565b6104dc5f8383610d73565b6040805160208101939093528281019190915260f89290921b6001600160f81b031916606082015281516041818303018152606190910190915290565b6109ad8383610e99565b604080517f158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a159742960208201526001600160a01b0385169181019190915260608101839052610a149084906080016040516020818303038152906040528051906020012083610f23565b6001600160a01b0383165f818152600860209081526040808320868452909152808220805460ff19166001179055518492917f1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d8191a3505050565b600580546001600160a01b038381166001600160a01b0319831681179093556040519116919082907f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0905f90a35050565b60606104c57f0000000000000000000000000000000000000000000000000000000000000000610f82565b60606104c57f0000000000000000000000000000000000000000000000000000000000000000610f82565b834211610b785760405162461bcd60e51b815260206004820152602b60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e206973206e6f60448201526a1d081e595d081d985b1a5960aa1b6064820152608401610579565b824210610bd55760405162461bcd60e51b815260206004820152602560248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e2069732065786044820152641c1a5c995960da1b6064820152608401610579565b610bdf8783610e99565b6040805160208082018b90526001600160a01b038a811683850152891660608301526080820188905260a0820187905260c0820186905260e0808301869052835180840390910181526101009092019092528051910120610c41888284610f23565b6001600160a01b0388165f818152600860209081526040808320878452909152808220805460ff19166001179055518592917f98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a591a361065188888861077f565b6001600160a01b038416610cca5760405163e602df0560e01b81525f6004820152602401610579565b6001600160a01b038316610cf357604051634a1406b160e11b81525f6004820152602401610579565b6001600160a01b038085165f908152600160209081526040808320938716835292905220829055801561077957826001600160a01b0316846001600160a01b03167f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92584604051610d6591815260200190565b60405180910390a350505050565b6001600160a01b038316610d9d578060025f828254610d929190611658565b90915550610e0d9050565b6001600160a01b0383165f9081526020819052604090205481811015610def5760405163391434e360e21b81526001600160a01b03851660048201526024810182905260448101839052606401610579565b6001600160a01b0384165f9081526020819052604090209082900390555b6001600160a01b038216610e2957600280548290039055610e47565b6001600160a01b0382165f9081526020819052604090208054820190555b816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef83604051610e8c91815260200190565b60405180910390a3505050565b6001600160a01b0382165f90815260086020908152604080832084845290915290205460ff16156104dc5760405162461bcd60e51b815260206004820152602e60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e20697320757360448201526d1959081bdc8818d85b98d95b195960921b6064820152608401610579565b610f3683610f3084610fbf565b83610feb565b6105e25760405162461bcd60e51b815260206004820152601e60248201527f46696174546f6b656e56323a20696e76616c6964207369676e617475726500006044820152606401610579565b60605f610f8e8361105b565b6040805160208082528183019092529192505f91906020820181803683375050509182525060208101929092525090565b5f610491610fcb6107dc565b8360405161190160f01b8152600281019290925260228201526042902090565b5f836001600160a01b03163b5f03611049575f5f6110098585611082565b5090925090505f81600381111561102257611022611677565b1480156110405750856001600160a01b0316826001600160a01b0316145b925050506104b5565b6110548484846110cb565b90506104b5565b5f60ff8216601f81111561049157604051632cd44ac360e21b815260040160405180910390fd5b5f5f5f83516041036110b9576020840151604085015160608601515f1a6110ab88828585611130565b9550955095505050506110c4565b505081515f91506002905b9250925092565b805160408051630b135d3f60e11b8082526004820186905260248201929092525f92906020820185604483015e5f82606483010152601f820160051c60051b915060205f60648401838a5afa9050825f5114601f3d1116811693505050509392505050565b5f80807f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a084111561116957505f915060039050826111ee565b604080515f808252602082018084528a905260ff891692820192909252606081018790526080810186905260019060a0016020604051602081039080840390855afa1580156111ba573d5f5f3e3d5ffd5b5050604051601f1901519150506001600160a01b0381166111e557505f9250600191508290506111ee565b92505f91508190505b9450945094915050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f6104b560208301846111f8565b80356001600160a01b038116811461124e575f5ffd5b919050565b5f5f60408385031215611264575f5ffd5b61126d83611238565b946020939093013593505050565b5f5f5f6060848603121561128d575f5ffd5b61129684611238565b92506112a460208501611238565b929592945050506040919091013590565b803560ff8116811461124e575f5ffd5b5f5f5f5f5f60a086880312156112d9575f5ffd5b6112e286611238565b9450602086013593506112f7604087016112b5565b94979396509394606081013594506080013592915050565b5f6020828403121561131f575f5ffd5b6104b582611238565b60ff60f81b8816815260e060208201525f61134660e08301896111f8565b828103604084015261135881896111f8565b606084018890526001600160a01b038716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b818110156113ad57835183526020938401939092019160010161138f565b50909b9a5050505050505050505050565b634e487b7160e01b5f52604160045260245ffd5b5f82601f8301126113e1575f5ffd5b813567ffffffffffffffff8111156113fb576113fb6113be565b604051601f8201601f19908116603f0116810167ffffffffffffffff8111828210171561142a5761142a6113be565b604052818152838201602001851015611441575f5ffd5b816020850160208301375f918101602001919091529392505050565b5f5f5f5f5f5f5f60e0888a031215611473575f5ffd5b61147c88611238565b965061148a60208901611238565b955060408801359450606088013593506080880135925060a0880135915060c088013567ffffffffffffffff8111156114c1575f5ffd5b6114cd8a828b016113d2565b91505092959891949750929550565b5f5f5f606084860312156114ee575f5ffd5b6114f784611238565b925060208401359150604084013567ffffffffffffffff811115611519575f5ffd5b611525868287016113d2565b9150509250925092565b5f5f60408385031215611540575f5ffd5b61154983611238565b915061155760208401611238565b90509250929050565b5f5f5f5f5f5f5f5f5f6101208a8c031215611579575f5ffd5b6115828a611238565b985061159060208b01611238565b975060408a0135965060608a0135955060808a0135945060a08a013593506115ba60c08b016112b5565b989b979a50959894979396929550929360e081013593506101000135919050565b600181811c908216806115ef57607f821691505b60208210810361160d57634e487b7160e01b5f52602260045260245ffd5b50919050565b60208082526025908201527f46696174546f6b656e56323a2063616c6c6572206d7573742062652074686520604082015264706179656560d81b606082015260800190565b8082018082111561049157634e487b7160e01b5f52601160045260245ffd5b634e487b7160e01b5f52602160045260245ffdfea26469706673582212208c6d6e6cedb24e355bd0d9e8009d3a05658b279d9c8c2b9932ba0d04e5091ce064736f6c63430008250033",
}

// USDC is an auto generated Go binding around an Ethereum contract.
type USDC struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *USDC) GetABI() abi.ABI {
	return c.abi
}

// NewUSDC creates a new instance of USDC.
func NewUSDC() *USDC {
	parsed, err := USDCMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &USDC{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *USDC) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackCANCELAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd9169487.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function CANCEL_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) PackCANCELAUTHORIZATIONTYPEHASH() []byte {
	enc, err := uSDC.abi.Pack("CANCEL_AUTHORIZATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCANCELAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd9169487.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function CANCEL_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) TryPackCANCELAUTHORIZATIONTYPEHASH() ([]byte, error) {
	return uSDC.abi.Pack("CANCEL_AUTHORIZATION_TYPEHASH")
}

// UnpackCANCELAUTHORIZATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd9169487.
//
// Solidity: function CANCEL_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) UnpackCANCELAUTHORIZATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := uSDC.abi.Unpack("CANCEL_AUTHORIZATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (uSDC *USDC) PackDOMAINSEPARATOR() []byte {
	enc, err := uSDC.abi.Pack("DOMAIN_SEPARATOR")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (uSDC *USDC) TryPackDOMAINSEPARATOR() ([]byte, error) {
	return uSDC.abi.Pack("DOMAIN_SEPARATOR")
}

// UnpackDOMAINSEPARATOR is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3644e515.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (uSDC *USDC) UnpackDOMAINSEPARATOR(data []byte) ([32]byte, error) {
	out, err := uSDC.abi.Unpack("DOMAIN_SEPARATOR", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackRECEIVEWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7f2eecc3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) PackRECEIVEWITHAUTHORIZATIONTYPEHASH() []byte {
	enc, err := uSDC.abi.Pack("RECEIVE_WITH_AUTHORIZATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRECEIVEWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7f2eecc3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) TryPackRECEIVEWITHAUTHORIZATIONTYPEHASH() ([]byte, error) {
	return uSDC.abi.Pack("RECEIVE_WITH_AUTHORIZATION_TYPEHASH")
}

// UnpackRECEIVEWITHAUTHORIZATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7f2eecc3.
//
// Solidity: function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) UnpackRECEIVEWITHAUTHORIZATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := uSDC.abi.Unpack("RECEIVE_WITH_AUTHORIZATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0cc6a68.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) PackTRANSFERWITHAUTHORIZATIONTYPEHASH() []byte {
	enc, err := uSDC.abi.Pack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0cc6a68.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) TryPackTRANSFERWITHAUTHORIZATIONTYPEHASH() ([]byte, error) {
	return uSDC.abi.Pack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")
}

// UnpackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa0cc6a68.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (uSDC *USDC) UnpackTRANSFERWITHAUTHORIZATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := uSDC.abi.Unpack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (uSDC *USDC) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := uSDC.abi.Pack("allowance", owner, spender)
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
func (uSDC *USDC) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return uSDC.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (uSDC *USDC) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := uSDC.abi.Unpack("allowance", data)
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
func (uSDC *USDC) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := uSDC.abi.Pack("approve", spender, value)
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
func (uSDC *USDC) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return uSDC.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (uSDC *USDC) UnpackApprove(data []byte) (bool, error) {
	out, err := uSDC.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackAuthorizationState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe94a0102.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (uSDC *USDC) PackAuthorizationState(authorizer common.Address, nonce [32]byte) []byte {
	enc, err := uSDC.abi.Pack("authorizationState", authorizer, nonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAuthorizationState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe94a0102.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (uSDC *USDC) TryPackAuthorizationState(authorizer common.Address, nonce [32]byte) ([]byte, error) {
	return uSDC.abi.Pack("authorizationState", authorizer, nonce)
}

// UnpackAuthorizationState is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe94a0102.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (uSDC *USDC) UnpackAuthorizationState(data []byte) (bool, error) {
	out, err := uSDC.abi.Unpack("authorizationState", data)
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
func (uSDC *USDC) PackBalanceOf(account common.Address) []byte {
	enc, err := uSDC.abi.Pack("balanceOf", account)
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
func (uSDC *USDC) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return uSDC.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (uSDC *USDC) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := uSDC.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackCancelAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5a049a70.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (uSDC *USDC) PackCancelAuthorization(authorizer common.Address, nonce [32]byte, v uint8, r [32]byte, s [32]byte) []byte {
	enc, err := uSDC.abi.Pack("cancelAuthorization", authorizer, nonce, v, r, s)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCancelAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5a049a70.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (uSDC *USDC) TryPackCancelAuthorization(authorizer common.Address, nonce [32]byte, v uint8, r [32]byte, s [32]byte) ([]byte, error) {
	return uSDC.abi.Pack("cancelAuthorization", authorizer, nonce, v, r, s)
}

// PackCancelAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb7b72899.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature) returns()
func (uSDC *USDC) PackCancelAuthorization0(authorizer common.Address, nonce [32]byte, signature []byte) []byte {
	enc, err := uSDC.abi.Pack("cancelAuthorization0", authorizer, nonce, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCancelAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb7b72899.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature) returns()
func (uSDC *USDC) TryPackCancelAuthorization0(authorizer common.Address, nonce [32]byte, signature []byte) ([]byte, error) {
	return uSDC.abi.Pack("cancelAuthorization0", authorizer, nonce, signature)
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() pure returns(uint8)
func (uSDC *USDC) PackDecimals() []byte {
	enc, err := uSDC.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() pure returns(uint8)
func (uSDC *USDC) TryPackDecimals() ([]byte, error) {
	return uSDC.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() pure returns(uint8)
func (uSDC *USDC) UnpackDecimals(data []byte) (uint8, error) {
	out, err := uSDC.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (uSDC *USDC) PackEip712Domain() []byte {
	enc, err := uSDC.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (uSDC *USDC) TryPackEip712Domain() ([]byte, error) {
	return uSDC.abi.Pack("eip712Domain")
}

// Eip712DomainOutput serves as a container for the return parameters of contract
// method Eip712Domain.
type Eip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (uSDC *USDC) UnpackEip712Domain(data []byte) (Eip712DomainOutput, error) {
	out, err := uSDC.abi.Unpack("eip712Domain", data)
	outstruct := new(Eip712DomainOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Fields = *abi.ConvertType(out[0], new([1]byte)).(*[1]byte)
	outstruct.Name = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Version = *abi.ConvertType(out[2], new(string)).(*string)
	outstruct.ChainId = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.VerifyingContract = *abi.ConvertType(out[4], new(common.Address)).(*common.Address)
	outstruct.Salt = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Extensions = *abi.ConvertType(out[6], new([]*big.Int)).(*[]*big.Int)
	return *outstruct, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (uSDC *USDC) PackMint(to common.Address, amount *big.Int) []byte {
	enc, err := uSDC.abi.Pack("mint", to, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (uSDC *USDC) TryPackMint(to common.Address, amount *big.Int) ([]byte, error) {
	return uSDC.abi.Pack("mint", to, amount)
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (uSDC *USDC) PackName() []byte {
	enc, err := uSDC.abi.Pack("name")
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
func (uSDC *USDC) TryPackName() ([]byte, error) {
	return uSDC.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (uSDC *USDC) UnpackName(data []byte) (string, error) {
	out, err := uSDC.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (uSDC *USDC) PackOwner() []byte {
	enc, err := uSDC.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (uSDC *USDC) TryPackOwner() ([]byte, error) {
	return uSDC.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (uSDC *USDC) UnpackOwner(data []byte) (common.Address, error) {
	out, err := uSDC.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackReceiveWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xef55bec6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (uSDC *USDC) PackReceiveWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) []byte {
	enc, err := uSDC.abi.Pack("receiveWithAuthorization", from, to, value, validAfter, validBefore, nonce, v, r, s)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReceiveWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xef55bec6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (uSDC *USDC) TryPackReceiveWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) ([]byte, error) {
	return uSDC.abi.Pack("receiveWithAuthorization", from, to, value, validAfter, validBefore, nonce, v, r, s)
}

// PackReceiveWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x88b7ab63.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (uSDC *USDC) PackReceiveWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) []byte {
	enc, err := uSDC.abi.Pack("receiveWithAuthorization0", from, to, value, validAfter, validBefore, nonce, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReceiveWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x88b7ab63.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (uSDC *USDC) TryPackReceiveWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) ([]byte, error) {
	return uSDC.abi.Pack("receiveWithAuthorization0", from, to, value, validAfter, validBefore, nonce, signature)
}

// PackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function renounceOwnership() returns()
func (uSDC *USDC) PackRenounceOwnership() []byte {
	enc, err := uSDC.abi.Pack("renounceOwnership")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function renounceOwnership() returns()
func (uSDC *USDC) TryPackRenounceOwnership() ([]byte, error) {
	return uSDC.abi.Pack("renounceOwnership")
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (uSDC *USDC) PackSymbol() []byte {
	enc, err := uSDC.abi.Pack("symbol")
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
func (uSDC *USDC) TryPackSymbol() ([]byte, error) {
	return uSDC.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (uSDC *USDC) UnpackSymbol(data []byte) (string, error) {
	out, err := uSDC.abi.Unpack("symbol", data)
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
func (uSDC *USDC) PackTotalSupply() []byte {
	enc, err := uSDC.abi.Pack("totalSupply")
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
func (uSDC *USDC) TryPackTotalSupply() ([]byte, error) {
	return uSDC.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (uSDC *USDC) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := uSDC.abi.Unpack("totalSupply", data)
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
func (uSDC *USDC) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := uSDC.abi.Pack("transfer", to, value)
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
func (uSDC *USDC) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return uSDC.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (uSDC *USDC) UnpackTransfer(data []byte) (bool, error) {
	out, err := uSDC.abi.Unpack("transfer", data)
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
func (uSDC *USDC) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := uSDC.abi.Pack("transferFrom", from, to, value)
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
func (uSDC *USDC) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return uSDC.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (uSDC *USDC) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := uSDC.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (uSDC *USDC) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := uSDC.abi.Pack("transferOwnership", newOwner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (uSDC *USDC) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return uSDC.abi.Pack("transferOwnership", newOwner)
}

// PackTransferWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe3ee160e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (uSDC *USDC) PackTransferWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) []byte {
	enc, err := uSDC.abi.Pack("transferWithAuthorization", from, to, value, validAfter, validBefore, nonce, v, r, s)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe3ee160e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (uSDC *USDC) TryPackTransferWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) ([]byte, error) {
	return uSDC.abi.Pack("transferWithAuthorization", from, to, value, validAfter, validBefore, nonce, v, r, s)
}

// PackTransferWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf092995.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (uSDC *USDC) PackTransferWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) []byte {
	enc, err := uSDC.abi.Pack("transferWithAuthorization0", from, to, value, validAfter, validBefore, nonce, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf092995.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (uSDC *USDC) TryPackTransferWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) ([]byte, error) {
	return uSDC.abi.Pack("transferWithAuthorization0", from, to, value, validAfter, validBefore, nonce, signature)
}

// USDCApproval represents a Approval event raised by the USDC contract.
type USDCApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const USDCApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (USDCApproval) ContractEventName() string {
	return USDCApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (uSDC *USDC) UnpackApprovalEvent(log *types.Log) (*USDCApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uSDC.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(USDCApproval)
	if len(log.Data) > 0 {
		if err := uSDC.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uSDC.abi.Events[event].Inputs {
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

// USDCAuthorizationCanceled represents a AuthorizationCanceled event raised by the USDC contract.
type USDCAuthorizationCanceled struct {
	Authorizer common.Address
	Nonce      [32]byte
	Raw        *types.Log // Blockchain specific contextual infos
}

const USDCAuthorizationCanceledEventName = "AuthorizationCanceled"

// ContractEventName returns the user-defined event name.
func (USDCAuthorizationCanceled) ContractEventName() string {
	return USDCAuthorizationCanceledEventName
}

// UnpackAuthorizationCanceledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)
func (uSDC *USDC) UnpackAuthorizationCanceledEvent(log *types.Log) (*USDCAuthorizationCanceled, error) {
	event := "AuthorizationCanceled"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uSDC.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(USDCAuthorizationCanceled)
	if len(log.Data) > 0 {
		if err := uSDC.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uSDC.abi.Events[event].Inputs {
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

// USDCAuthorizationUsed represents a AuthorizationUsed event raised by the USDC contract.
type USDCAuthorizationUsed struct {
	Authorizer common.Address
	Nonce      [32]byte
	Raw        *types.Log // Blockchain specific contextual infos
}

const USDCAuthorizationUsedEventName = "AuthorizationUsed"

// ContractEventName returns the user-defined event name.
func (USDCAuthorizationUsed) ContractEventName() string {
	return USDCAuthorizationUsedEventName
}

// UnpackAuthorizationUsedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)
func (uSDC *USDC) UnpackAuthorizationUsedEvent(log *types.Log) (*USDCAuthorizationUsed, error) {
	event := "AuthorizationUsed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uSDC.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(USDCAuthorizationUsed)
	if len(log.Data) > 0 {
		if err := uSDC.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uSDC.abi.Events[event].Inputs {
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

// USDCEIP712DomainChanged represents a EIP712DomainChanged event raised by the USDC contract.
type USDCEIP712DomainChanged struct {
	Raw *types.Log // Blockchain specific contextual infos
}

const USDCEIP712DomainChangedEventName = "EIP712DomainChanged"

// ContractEventName returns the user-defined event name.
func (USDCEIP712DomainChanged) ContractEventName() string {
	return USDCEIP712DomainChangedEventName
}

// UnpackEIP712DomainChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP712DomainChanged()
func (uSDC *USDC) UnpackEIP712DomainChangedEvent(log *types.Log) (*USDCEIP712DomainChanged, error) {
	event := "EIP712DomainChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uSDC.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(USDCEIP712DomainChanged)
	if len(log.Data) > 0 {
		if err := uSDC.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uSDC.abi.Events[event].Inputs {
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

// USDCOwnershipTransferred represents a OwnershipTransferred event raised by the USDC contract.
type USDCOwnershipTransferred struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const USDCOwnershipTransferredEventName = "OwnershipTransferred"

// ContractEventName returns the user-defined event name.
func (USDCOwnershipTransferred) ContractEventName() string {
	return USDCOwnershipTransferredEventName
}

// UnpackOwnershipTransferredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)
func (uSDC *USDC) UnpackOwnershipTransferredEvent(log *types.Log) (*USDCOwnershipTransferred, error) {
	event := "OwnershipTransferred"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uSDC.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(USDCOwnershipTransferred)
	if len(log.Data) > 0 {
		if err := uSDC.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uSDC.abi.Events[event].Inputs {
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

// USDCTransfer represents a Transfer event raised by the USDC contract.
type USDCTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const USDCTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (USDCTransfer) ContractEventName() string {
	return USDCTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (uSDC *USDC) UnpackTransferEvent(log *types.Log) (*USDCTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uSDC.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(USDCTransfer)
	if len(log.Data) > 0 {
		if err := uSDC.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uSDC.abi.Events[event].Inputs {
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
func (uSDC *USDC) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], uSDC.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return uSDC.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return uSDC.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return uSDC.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return uSDC.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return uSDC.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return uSDC.UnpackERC20InvalidSpenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["InvalidShortString"].ID.Bytes()[:4]) {
		return uSDC.UnpackInvalidShortStringError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["OwnableInvalidOwner"].ID.Bytes()[:4]) {
		return uSDC.UnpackOwnableInvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["OwnableUnauthorizedAccount"].ID.Bytes()[:4]) {
		return uSDC.UnpackOwnableUnauthorizedAccountError(raw[4:])
	}
	if bytes.Equal(raw[:4], uSDC.abi.Errors["StringTooLong"].ID.Bytes()[:4]) {
		return uSDC.UnpackStringTooLongError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// USDCERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the USDC contract.
type USDCERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func USDCERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (uSDC *USDC) UnpackERC20InsufficientAllowanceError(raw []byte) (*USDCERC20InsufficientAllowance, error) {
	out := new(USDCERC20InsufficientAllowance)
	if err := uSDC.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the USDC contract.
type USDCERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func USDCERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (uSDC *USDC) UnpackERC20InsufficientBalanceError(raw []byte) (*USDCERC20InsufficientBalance, error) {
	out := new(USDCERC20InsufficientBalance)
	if err := uSDC.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCERC20InvalidApprover represents a ERC20InvalidApprover error raised by the USDC contract.
type USDCERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func USDCERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (uSDC *USDC) UnpackERC20InvalidApproverError(raw []byte) (*USDCERC20InvalidApprover, error) {
	out := new(USDCERC20InvalidApprover)
	if err := uSDC.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the USDC contract.
type USDCERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func USDCERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (uSDC *USDC) UnpackERC20InvalidReceiverError(raw []byte) (*USDCERC20InvalidReceiver, error) {
	out := new(USDCERC20InvalidReceiver)
	if err := uSDC.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCERC20InvalidSender represents a ERC20InvalidSender error raised by the USDC contract.
type USDCERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func USDCERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (uSDC *USDC) UnpackERC20InvalidSenderError(raw []byte) (*USDCERC20InvalidSender, error) {
	out := new(USDCERC20InvalidSender)
	if err := uSDC.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCERC20InvalidSpender represents a ERC20InvalidSpender error raised by the USDC contract.
type USDCERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func USDCERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (uSDC *USDC) UnpackERC20InvalidSpenderError(raw []byte) (*USDCERC20InvalidSpender, error) {
	out := new(USDCERC20InvalidSpender)
	if err := uSDC.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCInvalidShortString represents a InvalidShortString error raised by the USDC contract.
type USDCInvalidShortString struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidShortString()
func USDCInvalidShortStringErrorID() common.Hash {
	return common.HexToHash("0xb3512b0c6163e5f0bafab72bb631b9d58cd7a731b082f910338aa21c83d5c274")
}

// UnpackInvalidShortStringError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidShortString()
func (uSDC *USDC) UnpackInvalidShortStringError(raw []byte) (*USDCInvalidShortString, error) {
	out := new(USDCInvalidShortString)
	if err := uSDC.abi.UnpackIntoInterface(out, "InvalidShortString", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCOwnableInvalidOwner represents a OwnableInvalidOwner error raised by the USDC contract.
type USDCOwnableInvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableInvalidOwner(address owner)
func USDCOwnableInvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x1e4fbdf7f3ef8bcaa855599e3abf48b232380f183f08f6f813d9ffa5bd585188")
}

// UnpackOwnableInvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableInvalidOwner(address owner)
func (uSDC *USDC) UnpackOwnableInvalidOwnerError(raw []byte) (*USDCOwnableInvalidOwner, error) {
	out := new(USDCOwnableInvalidOwner)
	if err := uSDC.abi.UnpackIntoInterface(out, "OwnableInvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCOwnableUnauthorizedAccount represents a OwnableUnauthorizedAccount error raised by the USDC contract.
type USDCOwnableUnauthorizedAccount struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func USDCOwnableUnauthorizedAccountErrorID() common.Hash {
	return common.HexToHash("0x118cdaa7a341953d1887a2245fd6665d741c67c8c50581daa59e1d03373fa188")
}

// UnpackOwnableUnauthorizedAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func (uSDC *USDC) UnpackOwnableUnauthorizedAccountError(raw []byte) (*USDCOwnableUnauthorizedAccount, error) {
	out := new(USDCOwnableUnauthorizedAccount)
	if err := uSDC.abi.UnpackIntoInterface(out, "OwnableUnauthorizedAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// USDCStringTooLong represents a StringTooLong error raised by the USDC contract.
type USDCStringTooLong struct {
	Str string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StringTooLong(string str)
func USDCStringTooLongErrorID() common.Hash {
	return common.HexToHash("0x305a27a93f8e33b7392df0a0f91d6fc63847395853c45991eec52dbf24d72381")
}

// UnpackStringTooLongError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StringTooLong(string str)
func (uSDC *USDC) UnpackStringTooLongError(raw []byte) (*USDCStringTooLong, error) {
	out := new(USDCStringTooLong)
	if err := uSDC.abi.UnpackIntoInterface(out, "StringTooLong", raw); err != nil {
		return nil, err
	}
	return out, nil
}
