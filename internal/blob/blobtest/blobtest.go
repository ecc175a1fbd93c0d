// Package blobtest starts blob stores for tests: an S3 server on loopback (gofakes3, which speaks the S3
// REST protocol) with a fresh bucket per call, so code written against blob.Store can be tested on a
// bucket as well as on a local directory.
package blobtest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob/s3blob"

	"github.com/svcplatform/svc/internal/blob"
)

// server is the one S3 server of a test binary, started on first use.
var server struct {
	once    sync.Once
	url     string
	backend *s3mem.Backend
	buckets atomic.Int64
}

// S3URL is the endpoint of the test binary's S3 server, started on first use; it accepts any credentials.
// CreateBucket makes buckets on it.
func S3URL() string {
	server.once.Do(func() {
		server.backend = s3mem.New()
		// Left running until the test binary exits: every test of the package may use it.
		server.url = httptest.NewServer(gofakes3.New(server.backend).Server()).URL
	})
	return server.url
}

// CreateBucket creates a bucket of a fresh name on the S3 server and returns its name.
func CreateBucket(t testing.TB) string {
	t.Helper()
	S3URL()
	name := fmt.Sprintf("svc-test-%d", server.buckets.Add(1))
	if err := server.backend.CreateBucket(name); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// S3 returns a store on a fresh bucket of the S3 server, through the AWS SDK with static credentials (so
// tests using it may run in parallel), closed when the test ends.
func S3(t testing.TB) *blob.Bucket {
	t.Helper()
	client := s3.NewFromConfig(aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("svc-test", "svc-test-secret", ""),
		BaseEndpoint: aws.String(S3URL()),
	}, func(o *s3.Options) { o.UsePathStyle = true })
	b, err := s3blob.OpenBucket(context.Background(), client, CreateBucket(t), nil)
	if err != nil {
		t.Fatalf("open bucket: %v", err)
	}
	s := blob.NewBucket(b)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close bucket: %v", err)
		}
	})
	return s
}
