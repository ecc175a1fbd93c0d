package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/emailauth"
	"github.com/svcplatform/svc/internal/svcerr"
)

// emailAuthAPI serves sign-in by email with a one-time code (issue 27).
type emailAuthAPI struct {
	auth *emailauth.Service
}

func (a *emailAuthAPI) service() (*emailauth.Service, error) {
	if a.auth == nil {
		return nil, svcerr.New(svcerr.Unavailable, "sign-in by email is not configured on this server")
	}
	return a.auth, nil
}

type emailStartInput struct {
	Body client.EmailStartRequest
}

func (a *emailAuthAPI) start(ctx context.Context, in *emailStartInput) (*Out[client.EmailStart], error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	st, err := svc.Start(ctx, in.Body.Email)
	if err != nil {
		return nil, err
	}
	return reply(client.EmailStart{OK: true, AttemptID: st.AttemptID, Email: st.Email, ExpiresAt: st.ExpiresAt, ResendAfter: st.ResendAfter})
}

type emailVerifyInput struct {
	Body client.EmailVerifyRequest
}

func (a *emailAuthAPI) verify(ctx context.Context, in *emailVerifyInput) (*Out[client.EmailSignIn], error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	req := emailauth.VerifyRequest{Email: in.Body.Email, Code: in.Body.Code, AcceptTerms: in.Body.AcceptTerms, KeyName: in.Body.KeyName}
	if in.Body.Flags != nil {
		req.Flags = *in.Body.Flags
	}
	signed, err := svc.Verify(ctx, req)
	if err != nil {
		return nil, err
	}
	return reply(client.EmailSignIn{OK: true, AccountID: signed.AccountID, Email: signed.Email, NewAccount: signed.NewAccount,
		APIKey: apikey.ToWire(signed.Key, signed.Secret)})
}

// documentPublicErrors declares error answers of a public route beyond those every route has (the
// error envelope, as the 400's), each with its description; a 429 also declares Retry-After.
func documentPublicErrors(answers map[string]string) func(op *huma.Operation) {
	return func(op *huma.Operation) {
		base := op.Responses["400"]
		if base == nil {
			return
		}
		for status, desc := range answers {
			resp := &huma.Response{Description: desc, Content: base.Content}
			if status == "429" {
				resp.Headers = map[string]*huma.Header{"Retry-After": {Description: "Seconds until another code may be sent.",
					Schema: &huma.Schema{Type: "integer", Minimum: ptr(0.0)}}}
			}
			op.Responses[status] = resp
		}
	}
}

// routes are the sign-in-by-email routes at the host root, beside /auth/siwe/….
func (a *emailAuthAPI) routes() []Route {
	const tag = "Sign-in by email"
	return []Route{
		handle(Route{Op: client.OpAuthEmailStart, Method: http.MethodPost, Path: "/auth/email/start", Tag: tag, Auth: authNone,
			Summary:  "Send a 6-digit one-time sign-in code to an address (10 minutes, 5 attempts; one code a minute per address)",
			document: documentPublicErrors(map[string]string{"429": "Another code was sent to this address less than a minute ago (Retry-After, details.resendAfter); nothing was sent."})}, a.start),
		handle(Route{Op: client.OpAuthEmailVerify, Method: http.MethodPost, Path: "/auth/email/verify", Tag: tag, Auth: authNone,
			Summary:  "Check a one-time code: the account (created on the first sign-in, terms accepted) and a new API key with seed 002's key flags",
			document: documentPublicErrors(map[string]string{"401": "The code is wrong (details.attemptsLeft), used, locked after five wrong answers, or expired (param code); or no code was sent to the address (param email)."})}, a.verify),
	}
}
