package x402

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// gethDigest computes the TransferWithAuthorization digest with go-ethereum's
// generic EIP-712 encoder.
func gethDigest(t *testing.T, d Domain, a Authorization) []byte {
	t.Helper()
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {
				{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
			},
			"TransferWithAuthorization": {
				{Name: "from", Type: "address"}, {Name: "to", Type: "address"},
				{Name: "value", Type: "uint256"}, {Name: "validAfter", Type: "uint256"},
				{Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"},
			},
		},
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{
			Name: d.Name, Version: d.Version, ChainId: (*math.HexOrDecimal256)(d.ChainID),
			VerifyingContract: d.VerifyingContract.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"from": a.From.Hex(), "to": a.To.Hex(),
			"value": a.Value.String(), "validAfter": a.ValidAfter.String(), "validBefore": a.ValidBefore.String(),
			"nonce": "0x" + hex.EncodeToString(a.Nonce[:]),
		},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatalf("TypedDataAndHash: %v", err)
	}
	return digest
}

func TestDigestMatchesGethTypedData(t *testing.T) {
	huge, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
	domains := []Domain{
		testConfig().Domain(),
		{Name: "USDC", Version: "2", ChainID: big.NewInt(84532), VerifyingContract: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e")},
		{Name: "USD\u20ae0 \"quoted\"", Version: "1", ChainID: big.NewInt(1), VerifyingContract: common.Address{}},
	}
	auths := []Authorization{
		{From: testAsset, To: testPayTo, Value: topUp, ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(1_800_000_300), Nonce: [32]byte{0xde, 0xad}},
		{From: testPayTo, To: testAsset, Value: huge, ValidAfter: big.NewInt(1), ValidBefore: huge, Nonce: [32]byte{31: 0xff}},
	}
	for _, d := range domains {
		for _, a := range auths {
			if got, want := a.Digest(d).Bytes(), gethDigest(t, d, a); !bytes.Equal(got, want) {
				t.Fatalf("digest %x, geth %x (domain %+v)", got, want, d)
			}
		}
	}
}

// TestDigestKnownVector pins the EIP-3009 type hash (as in USDC's FiatTokenV2)
// and checks the digest under the domain of USDC on Base mainnet.
func TestDigestKnownVector(t *testing.T) {
	d := Domain{Name: "USD Coin", Version: "2", ChainID: big.NewInt(8453),
		VerifyingContract: common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")}
	a := Authorization{From: testAsset, To: testPayTo, Value: topUp, ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(1), Nonce: [32]byte{}}
	if got, want := a.Digest(d).Bytes(), gethDigest(t, d, a); !bytes.Equal(got, want) {
		t.Fatalf("digest %x, geth %x", got, want)
	}
	if TransferWithAuthorizationTypeHash.Hex() != "0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267" {
		t.Fatalf("TransferWithAuthorization typehash = %s", TransferWithAuthorizationTypeHash.Hex())
	}
}
