package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func startSlack(t *testing.T) *fakeslack.Server {
	t.Helper()
	s, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// The saver writes each change of the fake's messages to the file, whole
// (never a half-written file, no temporary file left), and a fake restored
// from it holds the same messages.
func TestSlackStateIsSavedOnChangeAndRestored(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	dir := t.TempDir()
	path := filepath.Join(dir, slackFile)
	s := startSlack(t)
	saver := saveSlack(s, path, zap.NewNop())
	defer saver.close()

	saved := func() fakeslack.Snapshot {
		raw, err := os.ReadFile(path)
		if err != nil {
			return fakeslack.Snapshot{}
		}
		var snap fakeslack.Snapshot
		if err := json.Unmarshal(raw, &snap); err != nil {
			t.Fatalf("the file is not a snapshot: %v\n%s", err, raw)
		}
		return snap
	}
	s.PostMessage(standInChannel, "first")
	waitFor(ctx, t, "the first message saved", func() bool { return len(saved().Messages) == 1 })
	s.PostMessage(standInChannel, "second")
	waitFor(ctx, t, "the second message saved", func() bool { return len(saved().Messages) == 2 })
	saver.close()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only %s: %v", len(entries), slackFile, entries)
	}

	restored := startSlack(t)
	n, err := restoreSlack(restored, path)
	if err != nil || n != 2 {
		t.Fatalf("restore = %d, %v", n, err)
	}
	if got := restored.Messages(standInChannel); len(got) != 2 || got[0].Text != "first" || got[1].Text != "second" {
		t.Errorf("restored %+v", got)
	}
}

func TestRestoreSlack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if n, err := restoreSlack(startSlack(t), filepath.Join(dir, "none.json")); n != 0 || err != nil {
		t.Errorf("no file: %d, %v; want a fresh start", n, err)
	}
	for name, content := range map[string]string{
		"garbled.json": "{not json",
		"future.json":  `{"version":9,"messages":[]}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := restoreSlack(startSlack(t), path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "move it away to start with none") {
			t.Errorf("%s: %v, want an error naming the file and what to do", name, err)
		}
	}
}

func TestWriteAtomicallyFailsClearly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing", slackFile)
	if err := writeAtomically(path, []byte("{}")); err == nil || !strings.Contains(err.Error(), "write "+path) {
		t.Errorf("write into a missing folder = %v", err)
	}
}
