package gateway

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// MillicreditsPerCredit is the integer unit credits are kept in (as in the catalog).
const MillicreditsPerCredit = 1000

// creditsPattern is a plain decimal: up to 12 integer digits and up to 3 decimals, no sign or exponent.
var creditsPattern = regexp.MustCompile(`^[0-9]{1,12}(\.[0-9]{1,3})?$`)

// errCredits explains what a credits value must look like.
var errCredits = errors.New("must be a decimal number of credits, at least 0, with at most 3 decimals")

// ParseCredits converts a decimal number of credits ("2.5") to millicredits (2500) exactly, without floats.
func ParseCredits(s string) (int64, error) {
	if !creditsPattern.MatchString(s) {
		return 0, errCredits
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac += strings.Repeat("0", 3-len(frac))
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, errCredits
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, errCredits
	}
	return w*MillicreditsPerCredit + f, nil
}
