package x402

import (
	"context"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// paidServer is this package's server side behind HTTP: 402 with cfg's requirements for price, then
// Verify on the retry and 200 with a Payment-Response. It counts the paid requests it accepted.
type paidServer struct {
	cfg     Config
	price   *big.Int
	paid    atomic.Int32
	payer   atomic.Value // common.Address of the last verified payment
	gotBody atomic.Value // string body of the paid request
	gotAuth atomic.Value // Authorization header of the paid request
}

func (s *paidServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	want := s.cfg.Requirements(s.price)
	header := r.Header.Get(HeaderPaymentSignature)
	if header == "" {
		pr, _ := EncodeHeader(NewPaymentRequired("http://"+r.Host+r.URL.Path, "test", want))
		w.Header().Set(HeaderPaymentRequired, pr)
		w.WriteHeader(http.StatusPaymentRequired)
		return
	}
	p, err := DecodePaymentHeader(header, false)
	if err == nil {
		var a Authorization
		if a, err = Verify(s.cfg, want, p, time.Now()); err == nil {
			body, _ := io.ReadAll(r.Body)
			s.gotBody.Store(string(body))
			s.gotAuth.Store(r.Header.Get("Authorization"))
			s.payer.Store(a.From)
			s.paid.Add(1)
			settled, _ := SettlementSucceeded(s.cfg.Network, common.HexToHash("0x01"), a.From).Header()
			w.Header().Set(HeaderPaymentResponse, settled)
			_, _ = w.Write([]byte(`{"ok":true}`))
			return
		}
	}
	http.Error(w, err.Error(), http.StatusPaymentRequired)
}

func newPaidServer(t *testing.T, price int64) (*paidServer, string) {
	t.Helper()
	s := &paidServer{cfg: testConfig(), price: big.NewInt(price)}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL
}

func newClient(t *testing.T, maxAtomic int64) (*Client, common.Address) {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	return &Client{HTTP: http.DefaultClient, Signer: KeySigner{Key: key}, Network: cfg.Network, Asset: cfg.Asset,
		MaxAtomic: big.NewInt(maxAtomic)}, crypto.PubkeyToAddress(key.PublicKey)
}

// TestClientPaysOnce: a 402 is paid with a signature the package's own Verify accepts, the retry keeps
// the original headers and body, and the settlement is read from Payment-Response.
func TestClientPaysOnce(t *testing.T) {
	t.Parallel()
	srv, url := newPaidServer(t, 1_500_000)
	c, payer := newClient(t, 2_000_000)
	var approved Offer
	c.Approve = func(_ context.Context, o Offer) error { approved = o; return nil }
	res, err := c.Do(context.Background(), http.MethodPost, url+"/paid", http.Header{"Authorization": {"Bearer k"}}, []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusOK || string(res.Body) != `{"ok":true}` {
		t.Fatalf("answer %d %s", res.Status, res.Body)
	}
	if srv.paid.Load() != 1 || srv.payer.Load() != payer {
		t.Fatalf("server accepted %d payments from %v, want 1 from %s", srv.paid.Load(), srv.payer.Load(), payer)
	}
	if srv.gotBody.Load() != `{"a":1}` || srv.gotAuth.Load() != "Bearer k" {
		t.Fatalf("the retry lost the body or headers: %v %v", srv.gotBody.Load(), srv.gotAuth.Load())
	}
	if !res.Paid.Settled() || res.Paid.Settlement.Payer != payer.Hex() {
		t.Fatalf("settlement %+v", res.Paid.Settlement)
	}
	if approved.Atomic.Int64() != 1_500_000 || approved.Requirements.PayTo != testPayTo.Hex() {
		t.Fatalf("approved %+v", approved)
	}
}

// TestClientRefusesBeforeSigning: a price above the cap, a refusal by Approve and an offer on another
// network are refused with nothing sent to the server's paid path.
func TestClientRefusesBeforeSigning(t *testing.T) {
	t.Parallel()
	srv, url := newPaidServer(t, 1_500_000)
	ctx := context.Background()

	c, _ := newClient(t, 1_000_000)
	if _, err := c.Do(ctx, http.MethodGet, url, nil, nil); !errors.Is(err, ErrAboveCap) {
		t.Fatalf("above the cap: %v", err)
	}
	c, _ = newClient(t, 2_000_000)
	stop := errors.New("daily limit")
	c.Approve = func(context.Context, Offer) error { return stop }
	if _, err := c.Do(ctx, http.MethodGet, url, nil, nil); !errors.Is(err, stop) {
		t.Fatalf("approve refusal: %v", err)
	}
	c, _ = newClient(t, 2_000_000)
	c.Network = "eip155:8453"
	if _, err := c.Do(ctx, http.MethodGet, url, nil, nil); !errors.Is(err, ErrNoOffer) {
		t.Fatalf("other network: %v", err)
	}
	if n := srv.paid.Load(); n != 0 {
		t.Fatalf("%d payments reached the server", n)
	}
}

// TestClientFreeAnswerPassesThrough: an answer other than 402 is returned as is, with no payment.
func TestClientFreeAnswerPassesThrough(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("free")) }))
	t.Cleanup(hs.Close)
	c, _ := newClient(t, 1)
	res, err := c.Do(context.Background(), http.MethodGet, hs.URL, nil, nil)
	if err != nil || res.Status != http.StatusOK || string(res.Body) != "free" || res.Paid != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
}
