package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/llm/llmtest"
)

// llmBenchCatalog routes the model "bench" to the scripted upstream of the benchmark.
const llmBenchCatalog = `
providers:
  - id: scripted
    baseUrlEnv: BENCH_UPSTREAM
models:
  - id: bench
    upstream: scripted-1
    providers: [scripted]
    inputPerMillion: 1
    outputPerMillion: 2
    base: true
`

// BenchmarkLLMGatewayVersusUpstream loads chat completions through the gateway (POST /llm/v1/chat/
// completions: auth, service access, limits, the credit reservation, the upstream call, the charge, the
// audit event) and straight at the same scripted upstream, with 64 connections each in five alternating
// 2-second rounds, non-streaming and streaming (eight content chunks and a usage chunk). ratio is the
// gateway's completions per second over the upstream's. The upstream answers at once ("instant": the
// gateway's whole cost shows) or after 100 ms ("model100ms": a fast model's time to its first token).
// ttfb-added-p50-ms is the median time to the first streamed event through the gateway minus the
// upstream's, measured apart on one connection (no queueing behind the load).
func BenchmarkLLMGatewayVersusUpstream(b *testing.B) {
	app.TuneGC(os.Getenv)
	up := llmtest.New()
	defer up.Close()
	cat, err := llm.ParseCatalog([]byte(llmBenchCatalog), func(string) string { return up.URL() })
	require.NoError(b, err)
	env := apptest.NewWith(b, apptest.Options{LLM: cat, NoWorker: true, NoDatabases: true})
	acct, token := env.NewAccount(b, "llm-bench")
	require.NoError(b, ledger.New(env.DB).Grant(context.Background(), env.DB, acct, 1_000_000_000_000, "bench"))
	made := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first"}})
	require.Equal(b, http.StatusCreated, made.Status, "%s", made.Raw)
	key := made.Body["apiKey"].(map[string]any)["secret"].(string)

	for _, delay := range []time.Duration{0, 100 * time.Millisecond} {
		for _, stream := range []bool{false, true} {
			name := map[bool]string{false: "json", true: "stream"}[stream] + "/" + map[bool]string{true: "instant", false: "model100ms"}[delay == 0]
			b.Run(name, func(b *testing.B) {
				up.Repeat(llmtest.Answer{Text: "one two three four five six seven eight", Delay: delay,
					Usage: &llm.Usage{PromptTokens: 20, CompletionTokens: 8, TotalTokens: 28}})
				body := fmt.Sprintf(`{"model":"%%s","messages":[{"role":"user","content":"count to eight"}],"max_tokens":16,"stream":%v}`, stream)
				viaGateway := chatOp(env.URL+"/llm/v1/chat/completions", key, fmt.Sprintf(body, "bench"))
				direct := chatOp(up.URL()+"/chat/completions", "", fmt.Sprintf(body, "scripted-1"))
				ctx := context.Background()
				for b.Loop() {
					LoadFunc(ctx, loadConns, time.Second, viaGateway.do) // warm up both
					LoadFunc(ctx, loadConns, time.Second, direct.do)
					var gw, up LoadResult
					for range loadRounds {
						gw = gw.Merge(LoadFunc(ctx, loadConns, loadRound, viaGateway.do))
						up = up.Merge(LoadFunc(ctx, loadConns, loadRound, direct.do))
					}
					require.Zero(b, gw.Errors+up.Errors, "requests failed: %v %v", gw.FirstErr, up.FirstErr)
					report(b, "gateway", gw)
					report(b, "upstream", up)
					b.ReportMetric(gw.RPS()/up.RPS(), "ratio")
					if stream && delay == 0 {
						viaGateway.reset()
						direct.reset()
						for range loadRounds {
							LoadFunc(ctx, 1, time.Second, viaGateway.do)
							LoadFunc(ctx, 1, time.Second, direct.do)
						}
						added := viaGateway.ttfbP50() - direct.ttfbP50()
						b.ReportMetric(ms(added), "ttfb-added-p50-ms")
						b.Logf("time to first event p50 on one connection: gateway %v, upstream %v, added %v",
							viaGateway.ttfbP50(), direct.ttfbP50(), added)
					}
				}
			})
		}
	}
}

// chatLoad sends one chat completion per call and records the time to its first byte of body.
type chatLoad struct {
	url, key, body string
	hc             *http.Client
	mu             sync.Mutex
	ttfb           []time.Duration
}

func chatOp(url, key, body string) *chatLoad {
	tr := &http.Transport{MaxIdleConnsPerHost: loadConns, MaxConnsPerHost: loadConns,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	return &chatLoad{url: url, key: key, body: body, hc: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

func (l *chatLoad) reset() {
	l.mu.Lock()
	l.ttfb = nil
	l.mu.Unlock()
}

func (l *chatLoad) do(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader([]byte(l.body)))
	req.Header.Set("Content-Type", "application/json")
	if l.key != "" {
		req.Header.Set("Authorization", "Bearer "+l.key)
	}
	t0 := time.Now()
	resp, err := l.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("status %d: %s", resp.StatusCode, data)
	}
	r := bufio.NewReader(resp.Body)
	first, err := r.ReadString('\n')
	if err != nil && err != io.EOF {
		return err
	}
	took := time.Since(t0)
	rest, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if strings.HasPrefix(first, "data:") && !bytes.Contains(rest, []byte("[DONE]")) {
		return fmt.Errorf("stream without [DONE]")
	}
	l.mu.Lock()
	l.ttfb = append(l.ttfb, took)
	l.mu.Unlock()
	return nil
}

func (l *chatLoad) ttfbP50() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ttfb) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), l.ttfb...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return s[len(s)/2]
}
