package delivery

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/schema"
)

// TestWebhookDataShape pins the data of webhook.disabled: the endpoint's wire shape in UTC, events never
// null, no secret and no previousSecretExpiresAt even while a rotated secret still signs.
func TestWebhookDataShape(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	reason, project := DisabledGone, "proj_1"
	row := &schema.Webhook{ID: "whk_1", AccountID: "acct_1", ProjectID: &project, URL: "https://example.test/h",
		Description: "d", DisabledReason: &reason, SecretSealed: []byte("s"), PreviousSecretSealed: []byte("p"),
		PreviousSecretExpiresAt: &at, FailingSince: &at, CreatedAt: at, UpdatedAt: at.Add(time.Second)}
	got, err := json.Marshal(WebhookData(row))
	require.NoError(t, err)
	require.Equal(t, `{"id":"whk_1","url":"https://example.test/h","events":[],"description":"d","enabled":false,`+
		`"disabledReason":"410 Gone","createdAt":"2026-01-02T02:04:05Z","updatedAt":"2026-01-02T02:04:06Z"}`, string(got))

	row.Events, row.Enabled, row.DisabledReason = []string{"run.succeeded"}, true, nil
	got, err = json.Marshal(WebhookData(row))
	require.NoError(t, err)
	require.Equal(t, `{"id":"whk_1","url":"https://example.test/h","events":["run.succeeded"],"description":"d","enabled":true,`+
		`"createdAt":"2026-01-02T02:04:05Z","updatedAt":"2026-01-02T02:04:06Z"}`, string(got))
}
