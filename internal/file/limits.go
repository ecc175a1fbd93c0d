package file

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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

// sizeUnits are the suffixes ParseSize accepts, binary like the limits themselves.
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{{"TiB", 1 << 40}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", 1 << 10}, {"TB", 1 << 40}, {"GB", GiB}, {"MB", MiB}, {"KB", 1 << 10}, {"B", 1}}

// ParseSize reads a size such as "10MiB", "1 GiB", "512KB" or "1048576". Units are binary: "MB" is
// read as MiB, as the seed's "10 MB" per-file cap is.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(num), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q is not a positive whole number of B, KiB, MiB, GiB or TiB", s)
	}
	return n * mult, nil
}

// ParseLimits overrides base with the fields of spec, a comma-separated list of
// storage=SIZE, file=SIZE and download=SIZE (each optional), e.g. "storage=5GiB,file=20MiB".
func ParseLimits(spec string, base Limits) (Limits, error) {
	for _, field := range strings.Split(spec, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		name, value, ok := strings.Cut(field, "=")
		if !ok {
			return Limits{}, fmt.Errorf("limit %q is not name=size", field)
		}
		size, err := ParseSize(value)
		if err != nil {
			return Limits{}, fmt.Errorf("limit %s: %w", name, err)
		}
		switch strings.TrimSpace(name) {
		case "storage":
			base.StorageBytes = size
		case "file":
			base.FileBytes = size
		case "download":
			base.MonthlyDownloadBytes = size
		default:
			return Limits{}, fmt.Errorf("unknown limit %q (storage, file or download)", name)
		}
	}
	if base.FileBytes > base.StorageBytes {
		return Limits{}, fmt.Errorf("the per-file cap (%d bytes) exceeds the total storage (%d bytes)", base.FileBytes, base.StorageBytes)
	}
	return base, nil
}
