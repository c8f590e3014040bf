package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// slackFile is where the stand-in's messages are kept, in the data folder.
const slackFile = "slack.json"

// restoreSlack restores the fake Slack from path, if the file exists. A
// file that is not a snapshot is an error saying how to start afresh.
func restoreSlack(s *fakeslack.Server, path string) (restored int, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the stand-in's messages: %w", err)
	}
	var snap fakeslack.Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		return 0, fmt.Errorf("%s is not the stand-in's saved messages (%v); move it away to start with none", path, err)
	}
	if err := s.Restore(snap); err != nil {
		return 0, fmt.Errorf("%s cannot be restored (%v); move it away to start with none", path, err)
	}
	return len(snap.Messages), nil
}

// slackSaver writes the fake Slack's snapshot to its file each time the
// fake's state changes and the snapshot differs from the last one written.
type slackSaver struct {
	slack *fakeslack.Server
	path  string
	log   *zap.Logger
	last  []byte
	stop  context.CancelFunc
	done  chan struct{}
}

// saveSlack starts saving s to path on every change, until close.
func saveSlack(s *fakeslack.Server, path string, log *zap.Logger) *slackSaver {
	ctx, cancel := context.WithCancel(context.Background())
	w := &slackSaver{slack: s, path: path, log: log, stop: cancel, done: make(chan struct{})}
	go w.loop(ctx)
	return w
}

func (w *slackSaver) loop(ctx context.Context) {
	defer close(w.done)
	for {
		changed := w.slack.Changed()
		w.save()
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// save writes the snapshot if it changed. A failed write is logged and
// tried again at the next change.
func (w *slackSaver) save() {
	raw, err := json.Marshal(w.slack.Snapshot())
	if err != nil {
		w.log.Error("encode the stand-in's messages", zap.Error(err))
		return
	}
	if bytes.Equal(raw, w.last) {
		return
	}
	if err := writeAtomically(w.path, raw); err != nil {
		w.log.Error("save the stand-in's messages", zap.Error(err))
		return
	}
	w.last = raw
}

// close stops saving after one last save.
func (w *slackSaver) close() {
	w.stop()
	<-w.done
	w.save()
}

// writeAtomically replaces path with data, so a reader (or a crash) never
// sees half a file: it writes a temporary file beside it, syncs it and
// renames it over path.
func writeAtomically(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
