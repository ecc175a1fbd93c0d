package api

import "github.com/svcplatform/svc/internal/catalog"

// credits converts millicredits to the credits of the wire.
func credits(millicredits int64) float64 {
	return float64(millicredits) / catalog.MillicreditsPerCredit
}
