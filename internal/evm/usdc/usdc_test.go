package usdc

import (
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// EIP-712 / EIP-3009 type hashes, computed independently of the contract.
var (
	domainTypeHash   = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	transferTypeHash = crypto.Keccak256Hash([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
	receiveTypeHash  = crypto.Keccak256Hash([]byte("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
	cancelTypeHash   = crypto.Keccak256Hash([]byte("CancelAuthorization(address authorizer,bytes32 nonce)"))
)

// usdc returns n whole USDC in base units.
func usdc(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000)) }

// account is a funded test key with its transactor.
type account struct {
	key  *ecdsa.PrivateKey
	addr common.Address
	opts *bind.TransactOpts
}

// chain is a simulated chain with DevUSDC deployed by owner and 1000 USDC minted to payer.
type chain struct {
	t                                *testing.T
	sim                              *simulated.Backend
	client                           simulated.Client
	chainID                          *big.Int
	token                            *USDC
	contract                         *bind.BoundContract
	address                          common.Address
	owner, payer, payee, facilitator *account
}

// newAccount makes a fresh key.
func newAccount(t *testing.T) *account {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	return &account{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// newChain starts the simulated chain, deploys DevUSDC and mints to the payer.
func newChain(t *testing.T) *chain {
	t.Helper()
	c := &chain{t: t, token: NewUSDC()}
	c.owner, c.payer, c.payee, c.facilitator = newAccount(t), newAccount(t), newAccount(t), newAccount(t)
	alloc := types.GenesisAlloc{}
	for _, a := range []*account{c.owner, c.payer, c.payee, c.facilitator} {
		alloc[a.addr] = types.Account{Balance: new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether))}
	}
	c.sim = simulated.NewBackend(alloc)
	t.Cleanup(func() { _ = c.sim.Close() })
	c.client = c.sim.Client()
	chainID, err := c.client.ChainID(t.Context())
	if err != nil {
		t.Fatalf("chain id: %v", err)
	}
	c.chainID = chainID
	for _, a := range []*account{c.owner, c.payer, c.payee, c.facilitator} {
		a.opts = bind.NewKeyedTransactor(a.key, chainID)
	}
	c.deploy()
	c.mustTransact(c.owner, c.token.PackMint(c.payer.addr, usdc(1000)))
	return c
}

// deploy deploys DevUSDC from the owner with the bindings' bytecode.
func (c *chain) deploy() {
	c.t.Helper()
	addr, tx, err := bind.DeployContract(c.owner.opts, common.FromHex(USDCMetaData.Bin), c.client, nil)
	if err != nil {
		c.t.Fatalf("deploy: %v", err)
	}
	c.sim.Commit()
	if _, err := bind.WaitDeployed(c.t.Context(), c.client, tx.Hash()); err != nil {
		c.t.Fatalf("wait deployed: %v", err)
	}
	c.address = addr
	c.contract = c.token.Instance(c.client, addr)
}

// mustTransact sends calldata from a, mines it and requires a successful receipt.
func (c *chain) mustTransact(from *account, data []byte) *types.Receipt {
	c.t.Helper()
	tx, err := bind.Transact(c.contract, from.opts, data)
	if err != nil {
		c.t.Fatalf("transact: %v", err)
	}
	c.sim.Commit()
	receipt, err := bind.WaitMined(c.t.Context(), c.client, tx.Hash())
	if err != nil {
		c.t.Fatalf("wait mined: %v", err)
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		c.t.Fatalf("transaction %s failed", tx.Hash())
	}
	return receipt
}

// requireRevert simulates calldata from a and requires a revert whose reason contains want.
func (c *chain) requireRevert(from *account, data []byte, want string) {
	c.t.Helper()
	_, err := c.client.EstimateGas(c.t.Context(), ethereum.CallMsg{From: from.addr, To: &c.address, Data: data})
	if err == nil {
		c.t.Fatalf("expected revert %q, the call succeeded", want)
	}
	if !strings.Contains(err.Error(), want) {
		c.t.Fatalf("expected revert %q, got: %v", want, err)
	}
}

// balance reads balanceOf(addr).
func (c *chain) balance(addr common.Address) *big.Int {
	c.t.Helper()
	b, err := bind.Call(c.contract, nil, c.token.PackBalanceOf(addr), c.token.UnpackBalanceOf)
	if err != nil {
		c.t.Fatalf("balanceOf: %v", err)
	}
	return b
}

// requireBalance requires balanceOf(a) == want.
func (c *chain) requireBalance(a *account, want *big.Int) {
	c.t.Helper()
	if got := c.balance(a.addr); got.Cmp(want) != 0 {
		c.t.Fatalf("balance of %s = %s, want %s", a.addr, got, want)
	}
}

// authorizationState reads authorizationState(authorizer, nonce).
func (c *chain) authorizationState(authorizer common.Address, nonce [32]byte) bool {
	c.t.Helper()
	used, err := bind.Call(c.contract, nil, c.token.PackAuthorizationState(authorizer, nonce), c.token.UnpackAuthorizationState)
	if err != nil {
		c.t.Fatalf("authorizationState: %v", err)
	}
	return used
}

// now is the latest block's timestamp.
func (c *chain) now() uint64 {
	c.t.Helper()
	head, err := c.client.HeaderByNumber(c.t.Context(), nil)
	if err != nil {
		c.t.Fatalf("head: %v", err)
	}
	return head.Time
}

// domainSeparator computes the EIP-712 domain separator in Go.
func domainSeparator(name, version string, chainID *big.Int, verifyingContract common.Address) common.Hash {
	return crypto.Keccak256Hash(
		domainTypeHash.Bytes(),
		crypto.Keccak256([]byte(name)),
		crypto.Keccak256([]byte(version)),
		common.LeftPadBytes(chainID.Bytes(), 32),
		common.LeftPadBytes(verifyingContract.Bytes(), 32),
	)
}

// typedDataDigest is keccak256("\x19\x01" ‖ domainSeparator ‖ structHash).
func typedDataDigest(domain, structHash common.Hash) []byte {
	return crypto.Keccak256([]byte{0x19, 0x01}, domain.Bytes(), structHash.Bytes())
}

// authorization is an EIP-3009 transfer/receive authorization.
type authorization struct {
	typeHash    common.Hash
	from, to    common.Address
	value       *big.Int
	validAfter  *big.Int
	validBefore *big.Int
	nonce       [32]byte
}

// structHash is the EIP-712 struct hash of the authorization.
func (a authorization) structHash() common.Hash {
	return crypto.Keccak256Hash(
		a.typeHash.Bytes(),
		common.LeftPadBytes(a.from.Bytes(), 32),
		common.LeftPadBytes(a.to.Bytes(), 32),
		common.LeftPadBytes(a.value.Bytes(), 32),
		common.LeftPadBytes(a.validAfter.Bytes(), 32),
		common.LeftPadBytes(a.validBefore.Bytes(), 32),
		a.nonce[:],
	)
}

// signature is a 65-byte r ‖ s ‖ v signature with v in {27, 28}.
type signature []byte

// vrs splits the signature for the (v, r, s) overloads.
func (s signature) vrs() (v uint8, r, sv [32]byte) {
	copy(r[:], s[:32])
	copy(sv[:], s[32:64])
	return s[64], r, sv
}

// sign signs the EIP-712 digest of structHash under the given domain name.
func (c *chain) sign(key *ecdsa.PrivateKey, domainName string, structHash common.Hash) signature {
	c.t.Helper()
	digest := typedDataDigest(domainSeparator(domainName, DomainVersion, c.chainID, c.address), structHash)
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		c.t.Fatalf("sign: %v", err)
	}
	sig[64] += 27
	return sig
}

// newNonce returns a random 32-byte nonce.
func newNonce() [32]byte {
	var n [32]byte
	_, _ = rand.Read(n[:]) // never fails (crypto/rand, Go 1.24+)
	return n
}

// paymentAuth is a transfer authorization payer → payee, valid for an hour.
func (c *chain) paymentAuth(value *big.Int) authorization {
	return authorization{
		typeHash:    transferTypeHash,
		from:        c.payer.addr,
		to:          c.payee.addr,
		value:       value,
		validAfter:  big.NewInt(0),
		validBefore: new(big.Int).SetUint64(c.now() + 3600),
		nonce:       newNonce(),
	}
}

// packTransferVRS packs transferWithAuthorization (v, r, s form) for a signed authorization.
func (c *chain) packTransferVRS(a authorization, sig signature) []byte {
	v, r, s := sig.vrs()
	return c.token.PackTransferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, r, s)
}

// TestTokenMetadata checks the ERC-20 metadata, the EIP-712 domain and the type hashes.
func TestTokenMetadata(t *testing.T) {
	c := newChain(t)
	name, err := bind.Call(c.contract, nil, c.token.PackName(), c.token.UnpackName)
	requireNoErr(t, err, "name")
	symbol, err := bind.Call(c.contract, nil, c.token.PackSymbol(), c.token.UnpackSymbol)
	requireNoErr(t, err, "symbol")
	decimals, err := bind.Call(c.contract, nil, c.token.PackDecimals(), c.token.UnpackDecimals)
	requireNoErr(t, err, "decimals")
	if name != "USD Coin" || symbol != "USDC" || decimals != Decimals {
		t.Fatalf("metadata = %q %q %d, want \"USD Coin\" \"USDC\" %d", name, symbol, decimals, Decimals)
	}

	domain, err := bind.Call(c.contract, nil, c.token.PackEip712Domain(), c.token.UnpackEip712Domain)
	requireNoErr(t, err, "eip712Domain")
	if domain.Name != DomainName || domain.Version != DomainVersion || domain.ChainId.Cmp(c.chainID) != 0 || domain.VerifyingContract != c.address {
		t.Fatalf("eip712Domain = %+v", domain)
	}
	onChain, err := bind.Call(c.contract, nil, c.token.PackDOMAINSEPARATOR(), c.token.UnpackDOMAINSEPARATOR)
	requireNoErr(t, err, "DOMAIN_SEPARATOR")
	if want := domainSeparator(DomainName, DomainVersion, c.chainID, c.address); common.Hash(onChain) != want {
		t.Fatalf("DOMAIN_SEPARATOR = %x, computed %x", onChain, want)
	}

	for name, pair := range map[string]struct {
		pack   func() []byte
		unpack func([]byte) ([32]byte, error)
		want   common.Hash
	}{
		"TRANSFER": {c.token.PackTRANSFERWITHAUTHORIZATIONTYPEHASH, c.token.UnpackTRANSFERWITHAUTHORIZATIONTYPEHASH, transferTypeHash},
		"RECEIVE":  {c.token.PackRECEIVEWITHAUTHORIZATIONTYPEHASH, c.token.UnpackRECEIVEWITHAUTHORIZATIONTYPEHASH, receiveTypeHash},
		"CANCEL":   {c.token.PackCANCELAUTHORIZATIONTYPEHASH, c.token.UnpackCANCELAUTHORIZATIONTYPEHASH, cancelTypeHash},
	} {
		got, err := bind.Call(c.contract, nil, pair.pack(), pair.unpack)
		requireNoErr(t, err, name)
		if common.Hash(got) != pair.want {
			t.Fatalf("%s typehash = %x, want %x", name, got, pair.want)
		}
	}
}

// TestMintOnlyOwner checks that only the owner can mint.
func TestMintOnlyOwner(t *testing.T) {
	c := newChain(t)
	c.requireBalance(c.payer, usdc(1000))
	_, err := c.client.EstimateGas(t.Context(), ethereum.CallMsg{
		From: c.facilitator.addr, To: &c.address, Data: c.token.PackMint(c.facilitator.addr, usdc(1)),
	})
	var dataErr rpc.DataError
	if !errors.As(err, &dataErr) {
		t.Fatalf("mint by a non-owner: want a revert with data, got %v", err)
	}
	revertData, _ := dataErr.ErrorData().(string)
	decoded, err := c.token.UnpackError(common.FromHex(revertData))
	requireNoErr(t, err, "unpack revert data")
	if got, ok := decoded.(*USDCOwnableUnauthorizedAccount); !ok || got.Account != c.facilitator.addr {
		t.Fatalf("mint by a non-owner reverted with %#v, want OwnableUnauthorizedAccount(%s)", decoded, c.facilitator.addr)
	}
}

// TestTransferWithAuthorization runs the x402-style happy path (v, r, s form)
// submitted by a facilitator, then the replay and the bad-window cases.
func TestTransferWithAuthorization(t *testing.T) {
	c := newChain(t)
	auth := c.paymentAuth(usdc(250))
	data := c.packTransferVRS(auth, c.sign(c.payer.key, DomainName, auth.structHash()))

	receipt := c.mustTransact(c.facilitator, data)
	c.requireBalance(c.payer, usdc(750))
	c.requireBalance(c.payee, usdc(250))
	c.requireBalance(c.facilitator, usdc(0))
	if !c.authorizationState(c.payer.addr, auth.nonce) {
		t.Fatal("authorizationState is false after the transfer")
	}
	c.requireLogs(receipt, auth)

	c.requireRevert(c.facilitator, data, "FiatTokenV2: authorization is used or canceled")
}

// requireLogs requires exactly one AuthorizationUsed and one Transfer event matching auth.
func (c *chain) requireLogs(receipt *types.Receipt, auth authorization) {
	c.t.Helper()
	var used, transfers int
	for _, log := range receipt.Logs {
		if ev, err := c.token.UnpackAuthorizationUsedEvent(log); err == nil {
			used++
			if ev.Authorizer != auth.from || ev.Nonce != auth.nonce {
				c.t.Fatalf("AuthorizationUsed = %x/%x, want %x/%x", ev.Authorizer, ev.Nonce, auth.from, auth.nonce)
			}
		}
		if ev, err := c.token.UnpackTransferEvent(log); err == nil {
			transfers++
			if ev.From != auth.from || ev.To != auth.to || ev.Value.Cmp(auth.value) != 0 {
				c.t.Fatalf("Transfer = %+v, want %s → %s %s", ev, auth.from, auth.to, auth.value)
			}
		}
	}
	if used != 1 || transfers != 1 {
		c.t.Fatalf("got %d AuthorizationUsed and %d Transfer events, want 1 and 1", used, transfers)
	}
}

// TestTransferWithAuthorizationRejects covers the window, domain and type checks.
func TestTransferWithAuthorizationRejects(t *testing.T) {
	c := newChain(t)
	now := new(big.Int).SetUint64(c.now())

	expired := c.paymentAuth(usdc(1))
	expired.validBefore = new(big.Int).Sub(now, big.NewInt(1))
	c.requireRevert(c.facilitator, c.packTransferVRS(expired, c.sign(c.payer.key, DomainName, expired.structHash())),
		"FiatTokenV2: authorization is expired")

	early := c.paymentAuth(usdc(1))
	early.validAfter = new(big.Int).Add(now, big.NewInt(3600))
	early.validBefore = new(big.Int).Add(now, big.NewInt(7200))
	c.requireRevert(c.facilitator, c.packTransferVRS(early, c.sign(c.payer.key, DomainName, early.structHash())),
		"FiatTokenV2: authorization is not yet valid")

	wrongDomain := c.paymentAuth(usdc(1))
	c.requireRevert(c.facilitator, c.packTransferVRS(wrongDomain, c.sign(c.payer.key, "USDC", wrongDomain.structHash())),
		"FiatTokenV2: invalid signature")

	wrongSigner := c.paymentAuth(usdc(1))
	c.requireRevert(c.facilitator, c.packTransferVRS(wrongSigner, c.sign(c.payee.key, DomainName, wrongSigner.structHash())),
		"FiatTokenV2: invalid signature")

	wrongType := c.paymentAuth(usdc(1))
	signedAsReceive := wrongType
	signedAsReceive.typeHash = receiveTypeHash
	c.requireRevert(c.facilitator, c.packTransferVRS(wrongType, c.sign(c.payer.key, DomainName, signedAsReceive.structHash())),
		"FiatTokenV2: invalid signature")

	c.requireBalance(c.payer, usdc(1000))
}

// TestTransferWithAuthorizationBytes checks the `bytes signature` overload.
func TestTransferWithAuthorizationBytes(t *testing.T) {
	c := newChain(t)
	auth := c.paymentAuth(usdc(10))
	sig := c.sign(c.payer.key, DomainName, auth.structHash())
	data := c.token.PackTransferWithAuthorization0(auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, sig)

	c.requireLogs(c.mustTransact(c.facilitator, data), auth)
	c.requireBalance(c.payee, usdc(10))
	c.requireRevert(c.facilitator, data, "FiatTokenV2: authorization is used or canceled")
}

// TestReceiveWithAuthorization checks that only the payee can redeem a receive authorization.
func TestReceiveWithAuthorization(t *testing.T) {
	c := newChain(t)
	auth := c.paymentAuth(usdc(5))
	auth.typeHash = receiveTypeHash
	v, r, s := c.sign(c.payer.key, DomainName, auth.structHash()).vrs()
	data := c.token.PackReceiveWithAuthorization(auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, v, r, s)

	c.requireRevert(c.facilitator, data, "FiatTokenV2: caller must be the payee")
	c.requireLogs(c.mustTransact(c.payee, data), auth)
	c.requireBalance(c.payee, usdc(5))
}

// TestCancelAuthorization checks that a canceled nonce can no longer be used.
func TestCancelAuthorization(t *testing.T) {
	c := newChain(t)
	auth := c.paymentAuth(usdc(7))
	cancelHash := crypto.Keccak256Hash(cancelTypeHash.Bytes(), common.LeftPadBytes(c.payer.addr.Bytes(), 32), auth.nonce[:])
	v, r, s := c.sign(c.payer.key, DomainName, cancelHash).vrs()

	receipt := c.mustTransact(c.facilitator, c.token.PackCancelAuthorization(c.payer.addr, auth.nonce, v, r, s))
	if len(receipt.Logs) != 1 {
		t.Fatalf("cancel emitted %d logs, want 1", len(receipt.Logs))
	}
	ev, err := c.token.UnpackAuthorizationCanceledEvent(receipt.Logs[0])
	requireNoErr(t, err, "AuthorizationCanceled")
	if ev.Authorizer != c.payer.addr || ev.Nonce != auth.nonce {
		t.Fatalf("AuthorizationCanceled = %+v", ev)
	}
	if !c.authorizationState(c.payer.addr, auth.nonce) {
		t.Fatal("authorizationState is false after cancel")
	}

	data := c.packTransferVRS(auth, c.sign(c.payer.key, DomainName, auth.structHash()))
	c.requireRevert(c.facilitator, data, "FiatTokenV2: authorization is used or canceled")
	c.requireBalance(c.payer, usdc(1000))
}

// requireNoErr fails the test if err is not nil.
func requireNoErr(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
