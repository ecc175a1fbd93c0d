package blob_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/blob"
)

// TestS3 runs the suite against an S3 server spoken to over HTTP on loopback, through the same URL an
// operator sets in SVC_BLOB_URL. The server is gofakes3 (an implementation of the S3 REST protocol),
// started in this process: MinIO and other S3 servers are not installable from the registries the
// project can reach (see docs/DECISIONS.md). Each subtest gets a bucket of its own.
func TestS3(t *testing.T) {
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	// The AWS SDK's default chain reads these; the server accepts any signature.
	t.Setenv("AWS_ACCESS_KEY_ID", "svc-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "svc-test-secret")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	var n atomic.Int64
	runSuite(t, func(t *testing.T) blob.Store {
		name := fmt.Sprintf("svc-test-%d", n.Add(1))
		require.NoError(t, backend.CreateBucket(name))
		s, err := blob.Open(context.Background(),
			"s3://"+name+"?region=us-east-1&use_path_style=true&endpoint="+srv.URL)
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.(*blob.Bucket).Close()) })
		return s
	})
}
