package lambdaruntime

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// rawRuntime plays the function side of the Runtime API with plain HTTP.
type rawRuntime struct {
	t    *testing.T
	base string
}

func newRawRuntime(t *testing.T, s *Server) *rawRuntime {
	t.Helper()
	return &rawRuntime{t: t, base: "http://" + s.Addr() + "/2018-06-01/runtime/"}
}

type nextInvocation struct {
	id     string
	header http.Header
	body   []byte
}

// next long-polls for an invocation.
func (rt *rawRuntime) next(ctx context.Context) (nextInvocation, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rt.base+"invocation/next", nil)
	if err != nil {
		return nextInvocation{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nextInvocation{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nextInvocation{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return nextInvocation{}, fmt.Errorf("next: status %d: %s", resp.StatusCode, body)
	}
	return nextInvocation{id: resp.Header.Get("Lambda-Runtime-Aws-Request-Id"), header: resp.Header, body: body}, nil
}

// post sends body to path and returns the status code.
func (rt *rawRuntime) post(path string, body []byte, header http.Header) int {
	rt.t.Helper()
	req, err := http.NewRequest(http.MethodPost, rt.base+path, bytes.NewReader(body))
	if err != nil {
		rt.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		rt.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := StartWith(opts)
	if err != nil {
		t.Fatalf("StartWith: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type invokeOutcome struct {
	result Result
	err    error
}

// invokeAsync starts Invoke and returns a channel with its outcome.
func invokeAsync(ctx context.Context, s *Server, payload []byte) <-chan invokeOutcome {
	out := make(chan invokeOutcome, 1)
	go func() {
		r, err := s.Invoke(ctx, payload)
		out <- invokeOutcome{r, err}
	}()
	return out
}

func await(t *testing.T, ctx context.Context, c <-chan invokeOutcome) invokeOutcome {
	t.Helper()
	select {
	case o := <-c:
		return o
	case <-ctx.Done():
		t.Fatal("Invoke did not return")
		return invokeOutcome{}
	}
}
