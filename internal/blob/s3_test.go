package blob_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/blob/blobtest"
)

// TestS3 runs the suite against an S3 server spoken to over HTTP on loopback, through the same URL an
// operator sets in SVC_BLOB_URL (credentials from the AWS environment variables). The server is gofakes3
// (an implementation of the S3 REST protocol) started in this process: MinIO and other S3 servers are not
// installable from the registries the project can reach (see docs/DECISIONS.md). Each subtest gets a
// bucket of its own.
func TestS3(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "svc-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "svc-test-secret")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	runSuite(t, func(t *testing.T) blob.Store {
		s, err := blob.Open(context.Background(),
			"s3://"+blobtest.CreateBucket(t)+"?region=us-east-1&use_path_style=true&endpoint="+blobtest.S3URL())
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.(*blob.Bucket).Close()) })
		return s
	})
}

// TestS3StaticClient runs the suite on the stores blobtest.S3 gives other packages' tests.
func TestS3StaticClient(t *testing.T) {
	t.Parallel()
	runSuite(t, func(t *testing.T) blob.Store { return blobtest.S3(t) })
}
