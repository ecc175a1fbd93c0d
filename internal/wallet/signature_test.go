package wallet

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// eip712Mail is EIP-712's own example (the "Mail" message), without types.EIP712Domain: it follows from
// the domain's fields.
const eip712Mail = `{"types":{"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],
"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},
"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!"}}`

// TestTypedDataDigest: EIP-712's example hashes to the digest the EIP gives, as an object and as a JSON
// string, and the summary shows its domain and primary type.
func TestTypedDataDigest(t *testing.T) {
	t.Parallel()
	quoted, err := json.Marshal(eip712Mail)
	require.NoError(t, err)
	for _, raw := range []string{eip712Mail, string(quoted)} {
		sg, err := typedSigning(nil, Prices{}, json.RawMessage(raw))
		require.NoError(t, err)
		require.Equal(t, "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2", sg.digest.Hex())
		require.Equal(t, "Mail", sg.subject.TypedData.PrimaryType)
		require.Equal(t, "Ether Mail", sg.subject.TypedData.Domain.Name)
		require.Equal(t, "1", *sg.subject.TypedData.Domain.ChainID)
		require.Nil(t, sg.spend, "a mail spends nothing")
	}
}

// TestPersonalDigest: EIP-191 of text and of 0x hex bytes.
func TestPersonalDigest(t *testing.T) {
	t.Parallel()
	sg, err := personalSigning("hello")
	require.NoError(t, err)
	// keccak256("\x19Ethereum Signed Message:\n5hello")
	require.Equal(t, "0x50b2c43fd39106bafbba0da34fc430e1f91e3c96ea2acee2bc34119f92b37750", sg.digest.Hex())
	require.Equal(t, "hello", *sg.subject.Message)
	raw, err := personalSigning("0x68656c6c6f")
	require.NoError(t, err)
	require.Equal(t, sg.digest, raw.digest, "hex bytes sign the bytes")
	_, err = personalSigning("0xnothex")
	requireField(t, err, "message")
}

// TestTypedDataBadInput: each missing part is named.
func TestTypedDataBadInput(t *testing.T) {
	t.Parallel()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(eip712Mail), &m))
	for _, part := range []string{"domain", "types", "message", "primaryType"} {
		c := map[string]any{}
		for k, v := range m {
			if k != part {
				c[k] = v
			}
		}
		raw, _ := json.Marshal(c)
		_, err := typedSigning(nil, Prices{}, raw)
		requireField(t, err, "typedData."+part)
	}
	m["primaryType"] = "Letter"
	raw, _ := json.Marshal(m)
	_, err := typedSigning(nil, Prices{}, raw)
	requireField(t, err, "typedData.primaryType")
}

// TestPermitSpend: an EIP-2612 permit of the known USDC is a spend of its value to its spender; one of
// an unknown token has no price; Permit2's PermitSingle reads its details.
func TestPermitSpend(t *testing.T) {
	t.Parallel()
	usdc := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	spender := "0x2222222222222222222222222222222222222222"
	permit := func(token string) string {
		return `{"types":{"Permit":[{"name":"owner","type":"address"},{"name":"spender","type":"address"},{"name":"value","type":"uint256"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
"primaryType":"Permit","domain":{"name":"USDC","version":"2","chainId":1337,"verifyingContract":"` + token + `"},
"message":{"owner":"0x1111111111111111111111111111111111111111","spender":"` + spender + `","value":250000000,"nonce":0,"deadline":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}}`
	}
	c := &Chain{USDC: usdc}
	sg, err := typedSigning(c, Prices{}, json.RawMessage(permit(usdc.Hex())))
	require.NoError(t, err)
	require.NotNil(t, sg.spend)
	require.Equal(t, int64(25000), *sg.spend.usdCents)
	require.Equal(t, common.HexToAddress(spender), sg.spend.to)
	require.Equal(t, client.SpendPermit, sg.subject.Spend.Kind)
	require.Equal(t, "250", sg.subject.Spend.Amount)

	other, err := typedSigning(c, Prices{}, json.RawMessage(permit("0x3333333333333333333333333333333333333333")))
	require.NoError(t, err)
	require.NotNil(t, other.spend)
	require.Nil(t, other.spend.usdCents, "an unknown token has no price")

	single := `{"types":{"PermitDetails":[{"name":"token","type":"address"},{"name":"amount","type":"uint160"},{"name":"expiration","type":"uint48"},{"name":"nonce","type":"uint48"}],
"PermitSingle":[{"name":"details","type":"PermitDetails"},{"name":"spender","type":"address"},{"name":"sigDeadline","type":"uint256"}]},
"primaryType":"PermitSingle","domain":{"name":"Permit2","chainId":1337,"verifyingContract":"0x000000000022D473030F116dDEE9F6B43aC78BA3"},
"message":{"details":{"token":"` + usdc.Hex() + `","amount":"1461501637330902918203684832716283019655932542975","expiration":1,"nonce":0},"spender":"` + spender + `","sigDeadline":1}}`
	sg, err = typedSigning(c, Prices{}, json.RawMessage(single))
	require.NoError(t, err)
	require.Equal(t, client.SpendPermit2, sg.subject.Spend.Kind)
	require.NotNil(t, sg.spend.usdCents)
	require.Greater(t, *sg.spend.usdCents, int64(1_000_000_00), "an unlimited allowance is worth more than any limit")
}

// An EIP-3009 authorization moves its value by the signature alone: it is a spend to its recipient,
// judged by the wallet's limits like a send (x402 payments are made of them).
func TestTransferWithAuthorizationIsASpend(t *testing.T) {
	usdc := common.HexToAddress("0x5555555555555555555555555555555555555555")
	c := &Chain{USDC: usdc}
	to := "0x4444444444444444444444444444444444444444"
	auth := `{"types":{"TransferWithAuthorization":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"}]},
"primaryType":"TransferWithAuthorization","domain":{"name":"USD Coin","version":"2","chainId":1337,"verifyingContract":"` + usdc.Hex() + `"},
"message":{"from":"0x3333333333333333333333333333333333333333","to":"` + to + `","value":"2500000","validAfter":"0","validBefore":"99999999999","nonce":"0x0000000000000000000000000000000000000000000000000000000000000001"}}`
	sg, err := typedSigning(c, Prices{}, json.RawMessage(auth))
	require.NoError(t, err)
	require.NotNil(t, sg.spend, "a transfer authorization moves value")
	require.Equal(t, client.SpendAuthorization, sg.subject.Spend.Kind)
	require.Equal(t, common.HexToAddress(to), sg.spend.to)
	require.Equal(t, "2500000", sg.spend.atomic.String())
	require.NotNil(t, sg.spend.usdCents)
	require.Equal(t, int64(250), *sg.spend.usdCents)
}

func requireField(t *testing.T, err error, field string) {
	t.Helper()
	require.Error(t, err)
	var e *svcerr.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, field, e.Param, "%v", err)
}
