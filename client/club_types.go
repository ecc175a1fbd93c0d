package client

import "time"

// SubscribeClubRequest is the body of POST /v1/club/subscribe.
type SubscribeClubRequest struct {
	Period string `json:"period" enum:"month,year" doc:"month: 20 USD; year: 198 USD; paid from credits at the catalog's rate (100 credits per USD)."`
}

// ClubStatus is an account's Club membership.
type ClubStatus struct {
	// Status is none (never subscribed), active, cancelled (paid to endsAt, not renewing), lapsed (a
	// renewal could not be paid) or ended.
	Status string `json:"status" enum:"none,active,cancelled,lapsed,ended"`
	// Tier is the account's tier, which every tier limit reads.
	Tier         string     `json:"tier" enum:"standard,club"`
	Member       bool       `json:"member" doc:"Whether the account's tier is club."`
	Period       string     `json:"period,omitempty" enum:"month,year"`
	PeriodStart  *time.Time `json:"periodStart,omitempty"`
	RenewsAt     *time.Time `json:"renewsAt,omitempty" doc:"When the next period is charged (active)."`
	EndsAt       *time.Time `json:"endsAt,omitempty" doc:"When the membership ends or ended (cancelled, lapsed, ended)."`
	PriceCredits string     `json:"priceCredits,omitempty" doc:"What each renewal charges, in credits."`
}

// ClubEnvelope answers the Club routes.
type ClubEnvelope struct {
	OK   bool       `json:"ok"`
	Club ClubStatus `json:"club"`
}

// AutoTopUpRequest is the body of PUT /v1/credits/auto-topup (svc llm credits auto).
type AutoTopUpRequest struct {
	Enabled bool   `json:"enabled" doc:"true enables auto top-up with below and target; false disables it."`
	Below   *int64 `json:"below,omitempty" doc:"Top up when the available credits fall under this many (whole credits, 0..1000000)."`
	Target  *int64 `json:"target,omitempty" doc:"Top up to this many credits (more than below, at most 1000000)."`
}

// AutoTopUp is an account's auto top-up setting.
type AutoTopUp struct {
	Enabled   bool       `json:"enabled"`
	Below     *int64     `json:"below,omitempty"`
	Target    *int64     `json:"target,omitempty"`
	Available string     `json:"available" doc:"The account's available credits now."`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
	// LastRound is the latest round of workflow autotopup/<accountId> (absent before the first).
	LastRound *AutoTopUpRound `json:"lastRound,omitempty"`
}

// AutoTopUpRound is one auto top-up round: a check that found the balance under the threshold, the fee
// claims it started and what they released and credited.
type AutoTopUpRound struct {
	Round     int        `json:"round"`
	StartedAt time.Time  `json:"startedAt"`
	EndedAt   *time.Time `json:"endedAt,omitempty" doc:"Absent while the round's claims are in flight."`
	ClaimIDs  []string   `json:"claimIds" doc:"The fee claims the round started (fclm_…)."`
	Claimed   string     `json:"claimed" doc:"The native amount the claims released (ether units)."`
	Credited  string     `json:"credited" doc:"The credits posted for it (reference autotopup:<claimId>)."`
}

// AutoTopUpEnvelope answers the auto top-up routes.
type AutoTopUpEnvelope struct {
	OK        bool      `json:"ok"`
	AutoTopUp AutoTopUp `json:"autoTopUp"`
}
