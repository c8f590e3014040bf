package host

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// Result is what a sync did with one definition file.
type Result struct {
	Path, Name string
	// ARN is the state machine's, when Err is nil.
	ARN    string
	Change Change
	// Err is why the file's state machine was not created or updated:
	// the file cannot be read, a placeholder has no value
	// (*UnfilledError) or the engine refused the definition
	// (*sfnlocal.APIError, InvalidDefinition or InvalidName). The state
	// machine, if it existed, keeps its definition.
	Err error
	// Removed is set when the file is gone. Its state machine stays, so
	// executions running it are not cut short.
	Removed bool
}

// Watcher keeps the state machines of a folder of definition files in
// step with the files. It is not safe for concurrent use.
type Watcher struct {
	engine  *sfnlocal.Engine
	dir     string
	subs    map[string]string
	roleArn string
	seen    map[string][32]byte // path → content of the last sync
	dirErr  string
}

// NewWatcher returns a Watcher of dir's *.asl.json files that fills their
// placeholders from subs and deploys them on engine with roleArn.
func NewWatcher(engine *sfnlocal.Engine, dir string, subs map[string]string, roleArn string) *Watcher {
	return &Watcher{engine: engine, dir: dir, subs: subs, roleArn: roleArn, seen: map[string][32]byte{}}
}

// Sync reads the folder once and deploys each file that is new or whose
// content changed since the last Sync (Deploy), returning one Result for
// each such file, and for each file gone since, in name order. A file
// whose content did not change is not reported again, even if it was
// invalid. The error is the folder's: it cannot be listed.
func (w *Watcher) Sync(ctx context.Context) ([]Result, error) {
	paths, err := Files(w.dir)
	if err != nil {
		return nil, err
	}
	var out []Result
	present := map[string]bool{}
	for _, path := range paths {
		present[path] = true
		raw, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue // removed since it was listed: the next sync reports it
		}
		sum := sha256.Sum256(raw) // of nothing when unreadable: reported once, like any content
		if prev, ok := w.seen[path]; ok && prev == sum {
			continue
		}
		w.seen[path] = sum
		r := Result{Path: path, Name: nameOf(path)}
		var d Definition
		if err == nil {
			d, err = Fill(r.Name, path, raw, w.subs)
		}
		if err == nil {
			r.ARN, r.Change, err = Deploy(ctx, w.engine, d, w.roleArn)
		}
		r.Err = err
		out = append(out, r)
	}
	for path := range w.seen {
		if !present[path] {
			delete(w.seen, path)
			out = append(out, Result{Path: path, Name: nameOf(path), Removed: true})
		}
	}
	sortResults(out)
	return out, nil
}

// Watch calls Sync every interval until ctx ends and hands each result to
// report; a folder that cannot be listed is reported once (a Result with
// only Err) until that changes.
func (w *Watcher) Watch(ctx context.Context, interval time.Duration, report func(Result)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		results, err := w.Sync(ctx)
		switch {
		case err != nil && err.Error() != w.dirErr:
			w.dirErr = err.Error()
			report(Result{Path: w.dir, Err: err})
		case err == nil:
			w.dirErr = ""
		}
		for _, r := range results {
			report(r)
		}
	}
}

func nameOf(path string) string { return strings.TrimSuffix(filepath.Base(path), Suffix) }

func sortResults(rs []Result) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Path < rs[j].Path })
}
