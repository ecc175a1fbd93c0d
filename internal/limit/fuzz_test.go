package limit

import (
	"strings"
	"testing"
	"unicode"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
)

// FuzzSelector feeds any limit selector to the catalog's check (what POST /v1/api-keys accepts) and to
// the matcher: neither panics, an accepted selector holds no control character or space, and every
// accepted selector matches some request (no limit can be set that nothing ever counts against).
func FuzzSelector(f *testing.F) {
	for _, s := range []string{"*", "runs.create", "runs.create.managed-workflows", "runs.create.managed-workflows.echo",
		"services.invoke.managed-workflows", "runs.create.managed-workflows.nope", "runs.create.", "runs.create..echo",
		"services.invoke.*", "runs.explode", "", "runs.create.managed-workflows.echo.extra", "runs.create\x00", "*.*"} {
		f.Add(s)
	}
	cat := catalog.Builtin()
	f.Fuzz(func(t *testing.T, selector string) {
		_ = catalog.CreditMetered(selector)
		if cat.ValidSelector(selector) != nil {
			return
		}
		if strings.ContainsFunc(selector, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) {
			t.Fatalf("accepted %q", selector)
		}
		if !matches(selector, requestFor(selector)) {
			t.Fatalf("accepted %q matches no request", selector)
		}
	})
}

// requestFor is the operations of the request a selector describes: a route's limit operation, or
// runs.create / services.invoke of a service and operation.
func requestFor(selector string) []string {
	for _, base := range []string{client.OpRunsCreate, client.OpServicesInvoke} {
		rest, ok := strings.CutPrefix(selector, base+".")
		if !ok {
			continue
		}
		for _, s := range catalog.Builtin().Services() {
			if rest == s.ID {
				return Operations(base, s.ID, "any")
			}
			if op, ok := strings.CutPrefix(rest, s.ID+"."); ok {
				return Operations(base, s.ID, op)
			}
		}
	}
	return Operations(selector, "", "")
}
