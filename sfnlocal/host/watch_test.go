package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

const role = "arn:aws:iam::123456789012:role/test"

func newEngine(t *testing.T) *sfnlocal.Engine {
	t.Helper()
	e := sfnlocal.New(sfnlocal.Options{})
	t.Cleanup(e.Close)
	return e
}

func pass(result string) string {
	return `{"StartAt":"A","States":{"A":{"Type":"Pass","Result":"` + result + `","End":true}}}`
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func definitionOf(t *testing.T, e *sfnlocal.Engine, arn string) string {
	t.Helper()
	sm, err := e.DescribeStateMachine(t.Context(), arn)
	if err != nil {
		t.Fatal(err)
	}
	return sm.Definition
}

func TestDeployCreatesUpdatesAndRefuses(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	ctx := t.Context()
	arn, change, err := Deploy(ctx, e, Definition{Name: "greet", Text: []byte(pass("one"))}, role)
	if err != nil || change != Created || !strings.HasSuffix(arn, ":stateMachine:greet") {
		t.Fatalf("first Deploy = %s %s %v, want created", arn, change, err)
	}
	if _, change, err := Deploy(ctx, e, Definition{Name: "greet", Text: []byte(pass("one"))}, role); err != nil || change != Unchanged {
		t.Errorf("same definition again = %s %v, want unchanged", change, err)
	}
	if _, change, err := Deploy(ctx, e, Definition{Name: "greet", Text: []byte(pass("two"))}, role); err != nil || change != Updated {
		t.Errorf("new definition = %s %v, want updated", change, err)
	}
	if got := definitionOf(t, e, arn); got != pass("two") {
		t.Errorf("definition after the update = %s", got)
	}
	_, _, err = Deploy(ctx, e, Definition{Name: "greet", Text: []byte(`{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"}}}`)}, role)
	var apiErr *sfnlocal.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != sfnlocal.CodeInvalidDefinition {
		t.Errorf("invalid definition = %v, want InvalidDefinition", err)
	}
	if got := definitionOf(t, e, arn); got != pass("two") {
		t.Errorf("an invalid definition replaced the good one: %s", got)
	}
}

func TestWatcherFollowsTheFolder(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	dir := t.TempDir()
	ctx := t.Context()
	w := NewWatcher(e, dir, map[string]string{"Greeting": "hello"}, role)
	sync := func() []Result {
		t.Helper()
		rs, err := w.Sync(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	if rs := sync(); len(rs) != 0 {
		t.Errorf("empty folder: %+v", rs)
	}

	greet := filepath.Join(dir, "greet.asl.json")
	write(t, greet, pass("${Greeting}"))
	write(t, filepath.Join(dir, "notes.json"), "not a definition")
	rs := sync()
	if len(rs) != 1 || rs[0].Name != "greet" || rs[0].Change != Created || rs[0].Err != nil {
		t.Fatalf("new file: %+v", rs)
	}
	arn := rs[0].ARN
	if got := definitionOf(t, e, arn); got != pass("hello") {
		t.Errorf("the placeholder was not filled: %s", got)
	}
	if rs := sync(); len(rs) != 0 {
		t.Errorf("nothing changed, yet: %+v", rs)
	}

	write(t, greet, pass("${Greeting}, again"))
	if rs := sync(); len(rs) != 1 || rs[0].Change != Updated {
		t.Errorf("changed file: %+v", rs)
	}

	write(t, greet, `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"Nowhere"}}}`)
	rs = sync()
	var apiErr *sfnlocal.APIError
	if len(rs) != 1 || !errors.As(rs[0].Err, &apiErr) || apiErr.Code != sfnlocal.CodeInvalidDefinition || !strings.Contains(rs[0].Err.Error(), "Nowhere") {
		t.Fatalf("invalid file: %+v", rs)
	}
	if got := definitionOf(t, e, arn); got != pass("hello, again") {
		t.Errorf("the state machine lost its last good definition: %s", got)
	}
	if rs := sync(); len(rs) != 0 {
		t.Errorf("an invalid file is reported once until it changes: %+v", rs)
	}

	write(t, greet, pass("${Farewell}"))
	rs = sync()
	var unfilled *UnfilledError
	if len(rs) != 1 || !errors.As(rs[0].Err, &unfilled) || strings.Join(unfilled.Names, ",") != "Farewell" {
		t.Fatalf("unknown placeholder: %+v", rs)
	}

	if err := os.Remove(greet); err != nil {
		t.Fatal(err)
	}
	if rs := sync(); len(rs) != 1 || !rs[0].Removed || rs[0].Name != "greet" {
		t.Errorf("removed file: %+v", rs)
	}
	if _, err := e.DescribeStateMachine(ctx, arn); err != nil {
		t.Errorf("a removed file's state machine is kept: %v", err)
	}
}

func TestWatchReportsChanges(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	results := make(chan Result, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewWatcher(e, dir, nil, role).Watch(ctx, 5*time.Millisecond, func(r Result) { results <- r })
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	write(t, filepath.Join(dir, "late.asl.json"), pass("late"))
	select {
	case r := <-results:
		if r.Name != "late" || r.Change != Created {
			t.Errorf("result = %+v", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the new file was never deployed")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case r := <-results:
			if r.Removed {
				continue
			}
			if r.Err == nil || !strings.Contains(r.Err.Error(), "definitions directory") {
				t.Errorf("result = %+v, want the folder's error", r)
			}
			return
		case <-time.After(30 * time.Second):
			t.Fatal("the missing folder was never reported")
		}
	}
}
