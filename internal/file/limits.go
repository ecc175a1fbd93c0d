package file

import (
	"fmt"

	"github.com/svcplatform/svc/schema"
)

// Size units of the limits: binary, so a "10 MB" cap admits a file of 10 MiB.
const (
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// Limits are one tier's storage rules.
type Limits struct {
	// StorageBytes caps the bytes of an account's live files plus its uploads in flight.
	StorageBytes int64
	// FileBytes caps one file, even when space remains.
	FileBytes int64
	// MonthlyDownloadBytes caps the bytes downloaded in one UTC month (reset on the 1st).
	MonthlyDownloadBytes int64
}

// Tiers maps an account tier (schema.TierStandard, schema.TierClub) to its limits.
type Tiers map[string]Limits

// DefaultTiers are seed 002's limits: standard 1 GB total, 10 MB a file, 10 GB downloads a month; club
// 10 GB, 50 MB and 100 GB.
func DefaultTiers() Tiers {
	return Tiers{
		schema.TierStandard: {StorageBytes: 1 * GiB, FileBytes: 10 * MiB, MonthlyDownloadBytes: 10 * GiB},
		schema.TierClub:     {StorageBytes: 10 * GiB, FileBytes: 50 * MiB, MonthlyDownloadBytes: 100 * GiB},
	}
}

// For returns the limits of a tier; a tier without limits is an error (the configuration lacks it).
func (t Tiers) For(tier string) (Limits, error) {
	l, ok := t[tier]
	if !ok {
		return Limits{}, fmt.Errorf("no storage limits configured for tier %q", tier)
	}
	return l, nil
}

// ValidTier reports whether tier is one an account may have.
func ValidTier(tier string) bool { return tier == schema.TierStandard || tier == schema.TierClub }
