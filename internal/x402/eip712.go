package x402

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
)

// EIP-712 type hashes used by EIP-3009 tokens such as USDC.
var (
	// DomainTypeHash is keccak256 of the EIP712Domain type with name, version,
	// chainId and verifyingContract (no salt), as USDC's domain is defined.
	DomainTypeHash = crypto.Keccak256Hash([]byte(
		"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	// TransferWithAuthorizationTypeHash is keccak256 of the EIP-3009
	// TransferWithAuthorization type.
	TransferWithAuthorizationTypeHash = crypto.Keccak256Hash([]byte(
		"TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
)

// Domain is a token's EIP-712 domain.
type Domain struct {
	Name              string
	Version           string
	ChainID           *big.Int
	VerifyingContract common.Address
}

// Separator returns the EIP-712 domain separator of d.
func (d Domain) Separator() common.Hash {
	return keccakWords(
		DomainTypeHash.Bytes(),
		crypto.Keccak256([]byte(d.Name)),
		crypto.Keccak256([]byte(d.Version)),
		word(d.ChainID),
		common.LeftPadBytes(d.VerifyingContract.Bytes(), 32),
	)
}

// StructHash returns the EIP-712 hashStruct of a's TransferWithAuthorization.
func (a Authorization) StructHash() common.Hash {
	return keccakWords(
		TransferWithAuthorizationTypeHash.Bytes(),
		common.LeftPadBytes(a.From.Bytes(), 32),
		common.LeftPadBytes(a.To.Bytes(), 32),
		word(a.Value),
		word(a.ValidAfter),
		word(a.ValidBefore),
		a.Nonce[:],
	)
}

// Digest returns the EIP-712 digest keccak256(0x1901 ‖ domainSeparator ‖
// structHash) that the payer signed, under domain d.
func (a Authorization) Digest(d Domain) common.Hash {
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, d.Separator().Bytes(), a.StructHash().Bytes())
}

// word encodes a non-negative integer of at most 256 bits as an ABI word;
// nil encodes as zero.
func word(x *big.Int) []byte {
	if x == nil {
		return make([]byte, 32)
	}
	return math.U256Bytes(new(big.Int).Set(x))
}

func keccakWords(words ...[]byte) common.Hash {
	return crypto.Keccak256Hash(words...)
}
