package launch

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/schema"
)

// Prediction is what FeesManager.launch will make for a launch, known before its transaction is sent
// (seed 002: the deploy answers the token's address and the pool's poolId and initializer).
type Prediction struct {
	// Token is the CREATE2 address of the token (FeesManager.predictTokenAddress(deployer, salt)).
	Token common.Address
	// PoolID is keccak256(abi.encode(feesManager, token, weth)), the id the fee manager gives the pool.
	PoolID common.Hash
	// Initializer is the fee manager that initialises the pool.
	Initializer common.Address
}

// PoolIDOf is the pool id FeesManager gives the pool of token against weth: keccak256 of the three
// addresses ABI-encoded (each left-padded to 32 bytes).
func PoolIDOf(feesManager, token, weth common.Address) common.Hash {
	return crypto.Keccak256Hash(common.LeftPadBytes(feesManager.Bytes(), 32), common.LeftPadBytes(token.Bytes(), 32),
		common.LeftPadBytes(weth.Bytes(), 32))
}

// predict asks the fee manager where launch l's token will live and derives its pool id. The chain
// answers for its own bytecode, so a configured fee manager of another build predicts right as well.
func (s *Service) predict(ctx context.Context, l *schema.TokenLaunch) (Prediction, error) {
	if s.Chain == nil || s.Chain.RPC == nil {
		return Prediction{}, fmt.Errorf("predict launch %s: no chain", l.ID)
	}
	fm, at := launch.NewFeesManager(), s.Config.FeesManager
	call := func(what string, data []byte) ([]byte, error) {
		out, err := s.Chain.RPC.CallContract(ctx, ethereum.CallMsg{To: &at, Data: data}, nil)
		if err != nil {
			return nil, fmt.Errorf("predict launch %s: call FeesManager.%s: %w", l.ID, what, err)
		}
		return out, nil
	}
	out, err := call("predictTokenAddress", fm.PackPredictTokenAddress(common.HexToAddress(l.DeployerAddress), common.HexToHash(l.Salt)))
	if err != nil {
		return Prediction{}, err
	}
	token, err := fm.UnpackPredictTokenAddress(out)
	if err != nil {
		return Prediction{}, fmt.Errorf("predict launch %s: read predictTokenAddress: %w", l.ID, err)
	}
	if out, err = call("weth", fm.PackWeth()); err != nil {
		return Prediction{}, err
	}
	weth, err := fm.UnpackWeth(out)
	if err != nil {
		return Prediction{}, fmt.Errorf("predict launch %s: read weth: %w", l.ID, err)
	}
	return Prediction{Token: token, PoolID: PoolIDOf(at, token, weth), Initializer: at}, nil
}

// withPrediction records on l the token, pool id and initializer its launch will make, when the fee
// manager answers; otherwise they stay empty until the Launch event fills them.
func (s *Service) withPrediction(ctx context.Context, l *schema.TokenLaunch) {
	p, err := s.predict(ctx, l)
	if err != nil {
		return
	}
	l.TokenAddress, l.PoolID, l.Initializer = opt(p.Token.Hex()), opt(p.PoolID.Hex()), opt(p.Initializer.Hex())
}
