package s3local

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// start serves a fresh folder and returns the server, the folder and a
// real aws-sdk-go-v2 S3 client for it (path-style, as the engine uses).
func start(t *testing.T) (*Server, string, *s3.Client) {
	t.Helper()
	dir := t.TempDir()
	srv, err := Start(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, dir, Client(srv.URL())
}

// Client is an S3 client for the server at url.
func Client(url string) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// code is the S3 error code of err, or "".
func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func put(t *testing.T, c *s3.Client, bucket, key, body string) {
	t.Helper()
	if _, err := c.PutObject(ctx(t), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		t.Fatalf("PutObject %s/%s: %v", bucket, key, err)
	}
}

func get(t *testing.T, c *s3.Client, bucket, key string) (string, *s3.GetObjectOutput) {
	t.Helper()
	out, err := c.GetObject(ctx(t), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("GetObject %s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), out
}

func TestObjectsRoundTrip(t *testing.T) {
	t.Parallel()
	_, dir, c := start(t)
	if _, err := c.CreateBucket(ctx(t), &s3.CreateBucketInput{Bucket: aws.String("items")}); err != nil {
		t.Fatal(err)
	}
	body := `[{"id":"invoice-1001"}]`
	out, err := c.PutObject(ctx(t), &s3.PutObjectInput{Bucket: aws.String("items"), Key: aws.String("in/batch.json"), Body: strings.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(body))
	wantETag := `"` + hex.EncodeToString(sum[:]) + `"`
	if aws.ToString(out.ETag) != wantETag {
		t.Errorf("PutObject ETag %s, want %s", aws.ToString(out.ETag), wantETag)
	}
	got, g := get(t, c, "items", "in/batch.json")
	if got != body || aws.ToString(g.ETag) != wantETag || aws.ToString(g.ContentType) != "application/json" || aws.ToInt64(g.ContentLength) != int64(len(body)) {
		t.Errorf("GetObject = %q, ETag %s, type %s, length %d", got, aws.ToString(g.ETag), aws.ToString(g.ContentType), aws.ToInt64(g.ContentLength))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "items", "in", "batch.json")); err != nil || string(b) != body {
		t.Errorf("the object's file holds %q (%v), want the body", b, err)
	}
	h, err := c.HeadObject(ctx(t), &s3.HeadObjectInput{Bucket: aws.String("items"), Key: aws.String("in/batch.json")})
	if err != nil || aws.ToInt64(h.ContentLength) != int64(len(body)) || aws.ToString(h.ETag) != wantETag {
		t.Errorf("HeadObject = %+v, %v", h, err)
	}
	// A file dropped into the folder is an object.
	if err := os.WriteFile(filepath.Join(dir, "items", "dropped.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, g := get(t, c, "items", "dropped.csv"); got != "a,b\n1,2\n" || aws.ToString(g.ContentType) != "text/csv; charset=utf-8" {
		t.Errorf("dropped file read as %q (%s)", got, aws.ToString(g.ContentType))
	}
	// Overwrite, then delete: the emptied prefix folder goes too.
	put(t, c, "items", "in/batch.json", "[]")
	if got, _ := get(t, c, "items", "in/batch.json"); got != "[]" {
		t.Errorf("after overwrite: %q", got)
	}
	if _, err := c.DeleteObject(ctx(t), &s3.DeleteObjectInput{Bucket: aws.String("items"), Key: aws.String("in/batch.json")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "items", "in")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the emptied folder is still there: %v", err)
	}
	_, err = c.GetObject(ctx(t), &s3.GetObjectInput{Bucket: aws.String("items"), Key: aws.String("in/batch.json")})
	var nsk *types.NoSuchKey
	if !errors.As(err, &nsk) {
		t.Errorf("GetObject of a deleted key = %v, want NoSuchKey", err)
	}
}

func TestErrorsAreS3s(t *testing.T) {
	t.Parallel()
	_, dir, c := start(t)
	if _, err := c.CreateBucket(ctx(t), &s3.CreateBucketInput{Bucket: aws.String("bk1")}); err != nil {
		t.Fatal(err)
	}
	put(t, c, "bk1", "a", "x")
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"get from a missing bucket", func() error {
			_, err := c.GetObject(ctx(t), &s3.GetObjectInput{Bucket: aws.String("nope"), Key: aws.String("k")})
			return err
		}, "NoSuchBucket"},
		{"get a missing key", func() error {
			_, err := c.GetObject(ctx(t), &s3.GetObjectInput{Bucket: aws.String("bk1"), Key: aws.String("missing.json")})
			return err
		}, "NoSuchKey"},
		{"head a missing key", func() error {
			_, err := c.HeadObject(ctx(t), &s3.HeadObjectInput{Bucket: aws.String("bk1"), Key: aws.String("missing.json")})
			return err
		}, "NotFound"},
		{"head a missing bucket", func() error {
			_, err := c.HeadBucket(ctx(t), &s3.HeadBucketInput{Bucket: aws.String("nope")})
			return err
		}, "NotFound"},
		{"list a missing bucket", func() error {
			_, err := c.ListObjectsV2(ctx(t), &s3.ListObjectsV2Input{Bucket: aws.String("nope")})
			return err
		}, "NoSuchBucket"},
		{"put into a missing bucket", func() error {
			_, err := c.PutObject(ctx(t), &s3.PutObjectInput{Bucket: aws.String("nope"), Key: aws.String("k"), Body: strings.NewReader("x")})
			return err
		}, "NoSuchBucket"},
		{"bad bucket name", func() error {
			_, err := c.CreateBucket(ctx(t), &s3.CreateBucketInput{Bucket: aws.String("Bad_Name")})
			return err
		}, "InvalidBucketName"},
		{"key with a .. segment", func() error {
			_, err := c.PutObject(ctx(t), &s3.PutObjectInput{Bucket: aws.String("bk1"), Key: aws.String("x/../../escape"), Body: strings.NewReader("x")})
			return err
		}, "InvalidArgument"},
		{"key ending in a slash", func() error {
			_, err := c.PutObject(ctx(t), &s3.PutObjectInput{Bucket: aws.String("bk1"), Key: aws.String("folder/"), Body: strings.NewReader("")})
			return err
		}, "InvalidArgument"},
		{"key under an object", func() error {
			_, err := c.PutObject(ctx(t), &s3.PutObjectInput{Bucket: aws.String("bk1"), Key: aws.String("a/b"), Body: strings.NewReader("x")})
			return err
		}, "InvalidArgument"},
		{"delete a bucket that is not empty", func() error {
			_, err := c.DeleteBucket(ctx(t), &s3.DeleteBucketInput{Bucket: aws.String("bk1")})
			return err
		}, "BucketNotEmpty"},
	}
	for _, tt := range tests {
		if got := code(tt.call()); got != tt.want {
			t.Errorf("%s: error code %q, want %q", tt.name, got, tt.want)
		}
	}
	// The refused writes changed nothing.
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if !slices.Equal(files, []string{"bk1/a"}) {
		t.Errorf("files after the refused calls: %q, want only bk1/a", files)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
		t.Error("a key with .. wrote outside the folder")
	}
}

func TestListObjectsV2(t *testing.T) {
	t.Parallel()
	_, _, c := start(t)
	if _, err := c.CreateBucket(ctx(t), &s3.CreateBucketInput{Bucket: aws.String("results")}); err != nil {
		t.Fatal(err)
	}
	keys := []string{"run/1/FAILED_0.json", "run/1/SUCCEEDED_0.json", "run/1/manifest.json", "run/2/manifest.json", "top.json", "z/deep/er/x"}
	for _, k := range keys {
		put(t, c, "results", k, k)
	}
	list := func(in s3.ListObjectsV2Input) ([]string, []string, *s3.ListObjectsV2Output) {
		t.Helper()
		in.Bucket = aws.String("results")
		out, err := c.ListObjectsV2(ctx(t), &in)
		if err != nil {
			t.Fatalf("ListObjectsV2(%+v): %v", in, err)
		}
		var ks, ps []string
		for _, o := range out.Contents {
			ks = append(ks, aws.ToString(o.Key))
			if aws.ToInt64(o.Size) != int64(len(aws.ToString(o.Key))) || o.StorageClass != types.ObjectStorageClassStandard || o.LastModified == nil {
				t.Errorf("%s: size %d, class %s, modified %v", aws.ToString(o.Key), aws.ToInt64(o.Size), o.StorageClass, o.LastModified)
			}
		}
		for _, p := range out.CommonPrefixes {
			ps = append(ps, aws.ToString(p.Prefix))
		}
		return ks, ps, out
	}
	if ks, _, _ := list(s3.ListObjectsV2Input{}); !slices.Equal(ks, keys) {
		t.Errorf("all keys %q, want %q", ks, keys)
	}
	if ks, _, _ := list(s3.ListObjectsV2Input{Prefix: aws.String("run/1/")}); !slices.Equal(ks, keys[:3]) {
		t.Errorf("prefix run/1/: %q", ks)
	}
	if ks, ps, _ := list(s3.ListObjectsV2Input{Delimiter: aws.String("/")}); !slices.Equal(ks, []string{"top.json"}) || !slices.Equal(ps, []string{"run/", "z/"}) {
		t.Errorf("delimiter /: keys %q, prefixes %q", ks, ps)
	}
	if ks, _, _ := list(s3.ListObjectsV2Input{StartAfter: aws.String("run/2/manifest.json")}); !slices.Equal(ks, keys[4:]) {
		t.Errorf("start after: %q", ks)
	}
	// Pages of two, through the SDK's paginator.
	var paged []string
	pages := 0
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String("results"), MaxKeys: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, o := range out.Contents {
			paged = append(paged, aws.ToString(o.Key))
		}
	}
	if !slices.Equal(paged, keys) || pages != 3 {
		t.Errorf("paged keys %q in %d pages, want %q in 3", paged, pages, keys)
	}
	buckets, err := c.ListBuckets(ctx(t), &s3.ListBucketsInput{})
	if err != nil || len(buckets.Buckets) != 1 || aws.ToString(buckets.Buckets[0].Name) != "results" {
		t.Errorf("ListBuckets = %+v, %v", buckets, err)
	}
}

// The AWS SDKs send PutObject bodies aws-chunked, with a trailing
// checksum, when they stream: the object holds the decoded bytes.
func TestAWSChunkedUpload(t *testing.T) {
	t.Parallel()
	srv, _, c := start(t)
	if _, err := c.CreateBucket(ctx(t), &s3.CreateBucketInput{Bucket: aws.String("bk1")}); err != nil {
		t.Fatal(err)
	}
	body := "0123456789abcdef" + strings.Repeat("x", 70000)
	var chunked bytes.Buffer
	for rest := body; rest != ""; {
		n := min(len(rest), 65536)
		fmt.Fprintf(&chunked, "%x;chunk-signature=abc\r\n%s\r\n", n, rest[:n])
		rest = rest[n:]
	}
	chunked.WriteString("0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n")
	req, _ := http.NewRequest(http.MethodPut, srv.URL()+"/bk1/chunked.txt", &chunked)
	req.Header.Set("Content-Encoding", "aws-chunked")
	req.Header.Set("x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	req.Header.Set("x-amz-decoded-content-length", fmt.Sprint(len(body)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chunked PutObject: %s", resp.Status)
	}
	if got, _ := get(t, c, "bk1", "chunked.txt"); got != body {
		t.Errorf("the object holds %d bytes, want the %d decoded", len(got), len(body))
	}
}

func TestRefusesOtherHosts(t *testing.T) {
	t.Parallel()
	srv, _, _ := start(t)
	req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/", nil)
	req.Host = "rebind.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "<Code>AccessDenied</Code>") {
		t.Errorf("a request for Host rebind.example got %s %s", resp.Status, body)
	}
}

// fakeListener has a non-loopback address.
type fakeListener struct{ net.Listener }

func (fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 9000} }

func TestStartRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := Start(Options{Dir: t.TempDir(), Listener: fakeListener{ln}}); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("Start on 192.0.2.1 = %v, want a refusal", err)
	}
	if _, err := Start(Options{}); err == nil {
		t.Error("Start without a folder succeeded")
	}
}
