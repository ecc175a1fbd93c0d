package api_test

import (
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/emailauth"
	"github.com/svcplatform/svc/internal/emailauth/smtptest"
)

// mailWait bounds how long a test waits for a message the API sent before answering.
const mailWait = 10 * time.Second

// codeInBody finds the 6-digit code of a sign-in message.
var codeInBody = regexp.MustCompile(`\b(\d{6})\b`)

// movableClock is a clock a test moves forward (past a code's expiry or the resend interval).
type movableClock struct{ offset atomic.Int64 }

func (c *movableClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *movableClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// emailEnv is a platform mailing its codes to a real SMTP server the test runs, on a clock it moves,
// its API logging at debug level into logs (which must never hold a code or a secret).
func emailEnv(t *testing.T) (*apptest.Env, *smtptest.Server, *movableClock) {
	env, mail, clock, _ := emailEnvLogged(t)
	return env, mail, clock
}

func emailEnvLogged(t *testing.T) (*apptest.Env, *smtptest.Server, *movableClock, *apptest.Buffer) {
	t.Helper()
	mail := smtptest.Start(t)
	clock := &movableClock{}
	logs := &apptest.Buffer{}
	env := apptest.NewWith(t, apptest.Options{SMTPURL: mail.URL(), EmailNow: clock.now, NoDatabases: true, Log: logs})
	return env, mail, clock, logs
}

// startEmail asks for a code and answers it as the SMTP server received it.
func startEmail(t *testing.T, env *apptest.Env, mail *smtptest.Server, address string) (string, *apptest.Response) {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/start", Body: map[string]any{"email": address}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	msg := mail.Next(t, mailWait)
	want := strings.ToLower(strings.TrimSpace(address))
	require.Equal(t, []string{want}, msg.To)
	require.Equal(t, emailauth.Subject, msg.Subject)
	m := codeInBody.FindStringSubmatch(msg.Body)
	require.NotNil(t, m, "no 6-digit code in %q", msg.Body)
	require.Contains(t, msg.Body, "expires at")
	return m[1], r
}

func verifyEmail(t *testing.T, env *apptest.Env, body map[string]any) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/verify", Body: body})
}

// TestEmailSignInOverSMTP: a code mailed over SMTP signs in once; the first sign-in needs the terms and
// creates the account; the key has the CLI defaults (read-only: a read answers 200, a write 403); a
// second sign-in, a minute later, reuses the account.
func TestEmailSignInOverSMTP(t *testing.T) {
	t.Parallel()
	env, mail, clock, logs := emailEnvLogged(t)
	code, started := startEmail(t, env, mail, "  Alice@Example.COM ")
	require.Equal(t, "alice@example.com", started.Body["email"])
	require.Regexp(t, `^otp_`, started.Body["attemptId"])
	require.NotContains(t, string(started.Raw), code)

	noTerms := verifyEmail(t, env, map[string]any{"email": "alice@example.com", "code": code})
	require.Equal(t, http.StatusBadRequest, noTerms.Status, "%s", noTerms.Raw)
	require.Equal(t, "acceptTerms", errorOf(noTerms)["param"])

	ok := verifyEmail(t, env, map[string]any{"email": "ALICE@example.com", "code": code, "acceptTerms": true})
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	require.Equal(t, true, ok.Body["newAccount"])
	accountID := ok.Body["accountId"].(string)
	key := ok.Body["apiKey"].(map[string]any)
	require.Equal(t, true, key["readOnly"])
	require.Equal(t, "CLI-"+time.Now().UTC().Format(time.DateOnly), key["name"])
	require.Contains(t, key["services"], client.ServiceManagedWallets)
	require.NotContains(t, key["services"], client.ServiceManagedAgents)
	require.Contains(t, key["scopes"], client.ScopeWalletsSign)
	require.NotContains(t, key["scopes"], client.ScopeRunsWrite)
	secret := key["secret"].(string)

	read := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: secret})
	require.Equal(t, http.StatusOK, read.Status, "%s", read.Raw)
	write := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/projects", Key: secret, Body: map[string]any{"name": "p"},
		Headers: map[string]string{"Idempotency-Key": "p1"}})
	require.Equal(t, http.StatusForbidden, write.Status, "%s", write.Raw)
	require.Equal(t, "readOnly", errorOf(write)["param"])

	replay := verifyEmail(t, env, map[string]any{"email": "alice@example.com", "code": code, "acceptTerms": true})
	require.Equal(t, http.StatusUnauthorized, replay.Status, "%s", replay.Raw)
	require.Equal(t, "code", errorOf(replay)["param"])
	require.Contains(t, errorOf(replay)["message"], "already used")

	clock.advance(emailauth.DefaultResendAfter + time.Second)
	code2, _ := startEmail(t, env, mail, "alice@example.com")
	again := verifyEmail(t, env, map[string]any{"email": "alice@example.com", "code": code2, "keyName": "laptop",
		"flags": map[string]any{"readOnly": false, "agentApi": true, "walletApi": false, "tokenLaunchApi": false}})
	require.Equal(t, http.StatusOK, again.Status, "%s", again.Raw)
	require.Equal(t, false, again.Body["newAccount"])
	require.Equal(t, accountID, again.Body["accountId"])
	key2 := again.Body["apiKey"].(map[string]any)
	require.Equal(t, "laptop", key2["name"])
	require.Equal(t, false, key2["readOnly"])
	require.Contains(t, key2["services"], client.ServiceManagedAgents)
	require.NotContains(t, key2["services"], client.ServiceManagedWallets)
	require.NotContains(t, key2["scopes"], client.ScopeWalletsTransact)
	made := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/projects", Key: key2["secret"].(string), Body: map[string]any{"name": "p"},
		Headers: map[string]string{"Idempotency-Key": "p2"}})
	require.Equal(t, http.StatusCreated, made.Status, "%s", made.Raw)

	for _, secret := range []string{code, code2, secret, key2["secret"].(string), "sign-in code is"} {
		require.NotContains(t, logs.String(), secret)
	}
}

// TestEmailSignInThrottlesResends: a second code for an address within a minute is refused with 429,
// Retry-After and resendAfter, and nothing is mailed; another address is not held up.
func TestEmailSignInThrottlesResends(t *testing.T) {
	t.Parallel()
	env, mail, _ := emailEnv(t)
	_, first := startEmail(t, env, mail, "bob@example.com")
	again := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/start", Body: map[string]any{"email": "BOB@example.com"}})
	require.Equal(t, http.StatusTooManyRequests, again.Status, "%s", again.Raw)
	require.Equal(t, "email", errorOf(again)["param"])
	details := errorOf(again)["details"].(map[string]any)
	require.Equal(t, first.Body["resendAfter"], details["resendAfter"])
	require.NotEmpty(t, again.Header.Get("Retry-After"))
	require.LessOrEqual(t, details["retryAfterSeconds"].(float64), 60.0)
	require.Zero(t, mail.Pending(), "a throttled start mailed a code")
	startEmail(t, env, mail, "carol@example.com")

	bad := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/start", Body: map[string]any{"email": "Bob <bob@example.com>"}})
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)
	require.Equal(t, "email", errorOf(bad)["param"])
	unknown := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/start", Body: map[string]any{"email": "dan@example.com", "extra": 1}})
	require.Equal(t, http.StatusBadRequest, unknown.Status, "%s", unknown.Raw)
}

// TestEmailSignInCapsCodesPerDay: an address is sent at most MaxCodesPerDay codes in 24 hours, however
// far apart; the next start is refused 429 until the first of them is a day old.
func TestEmailSignInCapsCodesPerDay(t *testing.T) {
	t.Parallel()
	env, mail, clock := emailEnv(t)
	for range emailauth.MaxCodesPerDay {
		startEmail(t, env, mail, "gina@example.com")
		clock.advance(emailauth.DefaultResendAfter + time.Second)
	}
	capped := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/start", Body: map[string]any{"email": "gina@example.com"}})
	require.Equal(t, http.StatusTooManyRequests, capped.Status, "%s", capped.Raw)
	require.Contains(t, errorOf(capped)["message"], "24 hours")
	require.Zero(t, mail.Pending(), "a capped start mailed a code")
	clock.advance(24 * time.Hour)
	startEmail(t, env, mail, "gina@example.com")
}

// TestEmailSignInLocksAfterFiveWrongCodes: each wrong code says how many attempts are left; the fifth
// locks the attempt, and the right code is refused afterwards.
func TestEmailSignInLocksAfterFiveWrongCodes(t *testing.T) {
	t.Parallel()
	env, mail, _ := emailEnv(t)
	code, _ := startEmail(t, env, mail, "erin@example.com")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	for left := emailauth.MaxAttempts - 1; left >= 0; left-- {
		r := verifyEmail(t, env, map[string]any{"email": "erin@example.com", "code": wrong, "acceptTerms": true})
		require.Equal(t, http.StatusUnauthorized, r.Status, "%s", r.Raw)
		require.Equal(t, "code", errorOf(r)["param"])
		require.Equal(t, float64(left), errorOf(r)["details"].(map[string]any)["attemptsLeft"], "%s", r.Raw)
	}
	locked := verifyEmail(t, env, map[string]any{"email": "erin@example.com", "code": code, "acceptTerms": true})
	require.Equal(t, http.StatusUnauthorized, locked.Status, "%s", locked.Raw)
	require.Equal(t, "code", errorOf(locked)["param"])
	require.Contains(t, errorOf(locked)["message"], "locked")

	malformed := verifyEmail(t, env, map[string]any{"email": "erin@example.com", "code": "12a456"})
	require.Equal(t, http.StatusBadRequest, malformed.Status, "%s", malformed.Raw)
	require.Equal(t, "code", errorOf(malformed)["param"])
}

// TestEmailSignInRefusesAnExpiredCode: ten minutes after it was sent, the right code is refused naming
// its expiry; an address never sent a code is refused naming email.
func TestEmailSignInRefusesAnExpiredCode(t *testing.T) {
	t.Parallel()
	env, mail, clock := emailEnv(t)
	code, started := startEmail(t, env, mail, "frank@example.com")
	clock.advance(emailauth.DefaultCodeTTL + time.Second)
	r := verifyEmail(t, env, map[string]any{"email": "frank@example.com", "code": code, "acceptTerms": true})
	require.Equal(t, http.StatusUnauthorized, r.Status, "%s", r.Raw)
	require.Equal(t, "code", errorOf(r)["param"])
	require.Contains(t, errorOf(r)["message"], "expired")
	require.Equal(t, started.Body["expiresAt"], errorOf(r)["details"].(map[string]any)["expiresAt"])

	never := verifyEmail(t, env, map[string]any{"email": "nobody@example.com", "code": "123456", "acceptTerms": true})
	require.Equal(t, http.StatusUnauthorized, never.Status, "%s", never.Raw)
	require.Equal(t, "email", errorOf(never)["param"])
}

// TestOpenAPIDocumentsEmailSignIn: both routes are public in the document, with their own error answers.
func TestOpenAPIDocumentsEmailSignIn(t *testing.T) {
	t.Parallel()
	paths := fetchJSON(t, newBareServer(t).Handler(), "/openapi.json")["paths"].(map[string]any)
	start := paths["/auth/email/start"].(map[string]any)["post"].(map[string]any)
	verify := paths["/auth/email/verify"].(map[string]any)["post"].(map[string]any)
	require.Equal(t, client.OpAuthEmailStart, start["operationId"])
	require.Equal(t, client.OpAuthEmailVerify, verify["operationId"])
	require.Empty(t, start["security"])
	require.Empty(t, verify["security"])
	tooMany := start["responses"].(map[string]any)["429"].(map[string]any)
	require.Contains(t, tooMany["headers"], "Retry-After")
	require.Contains(t, verify["responses"], "401")
}

// TestEmailSignInCodeSignsInOnce: two verifications of one code at the same moment make one key; the
// other is refused as already used.
func TestEmailSignInCodeSignsInOnce(t *testing.T) {
	t.Parallel()
	env, mail, _ := emailEnv(t)
	code, _ := startEmail(t, env, mail, "ivy@example.com")
	body := `{"email":"ivy@example.com","code":"` + code + `","acceptTerms":true}`
	statuses := make(chan int, 2)
	for range 2 {
		go func() {
			resp, err := http.Post(env.URL+"/auth/email/verify", "application/json", strings.NewReader(body))
			if err != nil {
				statuses <- 0
				return
			}
			_ = resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	got := []int{<-statuses, <-statuses}
	require.ElementsMatch(t, []int{http.StatusOK, http.StatusUnauthorized}, got)
	var keys int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM api_keys k JOIN account_emails e ON e.account_id = k.account_id WHERE e.email = ?",
		"ivy@example.com").Scan(t.Context(), &keys))
	require.Equal(t, 1, keys)
}

// TestEmailSignInSendFailureForgetsTheAttempt: with the SMTP server unreachable a start is 503, and the
// address is not throttled by a code that never left.
func TestEmailSignInSendFailureForgetsTheAttempt(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	env := apptest.NewWith(t, apptest.Options{SMTPURL: "smtp://" + closed, NoDatabases: true, NoWorker: true})
	for range 2 {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/start", Body: map[string]any{"email": "jo@example.com"}})
		require.Equal(t, http.StatusServiceUnavailable, r.Status, "%s", r.Raw)
		require.Equal(t, "email", errorOf(r)["param"])
		require.NotContains(t, string(r.Raw), closed, "the answer names the mail server")
	}
}

// TestEmailSignInThroughTheSDK: the client's EmailStart and EmailVerify (what `svc login email` calls)
// read the server's answers, flags included.
func TestEmailSignInThroughTheSDK(t *testing.T) {
	t.Parallel()
	env, mail, _ := emailEnv(t)
	c := client.New(client.WithBaseURL(env.URL))
	st := c.EmailStart(t.Context(), client.EmailStartRequest{Email: "Kim@Example.com"})
	require.True(t, st.OK, "%s", st.Raw)
	require.Equal(t, "kim@example.com", st.Body.Email)
	require.WithinDuration(t, time.Now().Add(emailauth.DefaultCodeTTL), st.Body.ExpiresAt, time.Minute)
	require.True(t, st.Body.ResendAfter.After(time.Now()))
	m := codeInBody.FindStringSubmatch(mail.Next(t, mailWait).Body)
	require.NotNil(t, m)
	llm := true
	in := c.EmailVerify(t.Context(), client.EmailVerifyRequest{Email: "kim@example.com", Code: m[1], AcceptTerms: true,
		KeyName: "sdk", Flags: &client.KeyFlags{LLMGateway: &llm}})
	require.True(t, in.OK, "%s", in.Raw)
	require.True(t, in.Body.NewAccount)
	require.Regexp(t, `^acct_`, in.Body.AccountID)
	require.Equal(t, "sdk", in.Body.APIKey.Name)
	require.True(t, in.Body.APIKey.ReadOnly)
	require.Contains(t, in.Body.APIKey.Scopes, client.ScopeServicesInvoke)
	require.Contains(t, in.Body.APIKey.Services, client.ServiceManagedAgents)
	require.True(t, strings.HasPrefix(in.Body.APIKey.Secret, "svc_sk_"))
}
