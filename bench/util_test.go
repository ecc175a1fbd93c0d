package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func runIDFrom(b *testing.B, resp *http.Response) string {
	var body struct {
		Run struct {
			ID string `json:"id"`
		} `json:"run"`
	}
	require.NoError(b, json.NewDecoder(resp.Body).Decode(&body))
	return body.Run.ID
}
