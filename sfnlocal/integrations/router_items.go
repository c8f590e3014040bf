package integrations

import (
	"context"
	"encoding/json"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

var (
	_ task.ItemReader   = (*Router)(nil)
	_ task.ResultWriter = (*Router)(nil)
)

// ReadsItems reports whether one of the router's integrations reads
// items from the ItemReader resource.
func (r *Router) ReadsItems(resource string) bool { return r.reader(resource) != nil }

// ReadItems reads a distributed Map's items with the first integration
// that reads from the resource.
func (r *Router) ReadItems(ctx context.Context, req task.ItemRead) (json.RawMessage, error) {
	in := r.reader(req.Resource)
	if in == nil {
		return nil, &task.Failure{Name: task.ErrItemReaderFailed, Cause: "No integration reads items from " + req.Resource}
	}
	return in.ReadItems(ctx, req)
}

// WritesResults reports whether one of the router's integrations writes
// results to the ResultWriter resource.
func (r *Router) WritesResults(resource string) bool { return r.writer(resource) != nil }

// WriteResults writes a Map Run's results with the first integration that
// writes to the resource.
func (r *Router) WriteResults(ctx context.Context, w task.ResultExport) (task.ResultLocation, error) {
	in := r.writer(w.Resource)
	if in == nil {
		return task.ResultLocation{}, &task.Failure{Name: task.ErrResultWriterFailed, Cause: "No integration writes results to " + w.Resource}
	}
	return in.WriteResults(ctx, w)
}

func (r *Router) reader(resource string) task.ItemReader {
	for _, in := range r.integrations {
		if rd, ok := in.(task.ItemReader); ok && rd.ReadsItems(resource) {
			return rd
		}
	}
	return nil
}

func (r *Router) writer(resource string) task.ResultWriter {
	for _, in := range r.integrations {
		if w, ok := in.(task.ResultWriter); ok && w.WritesResults(resource) {
			return w
		}
	}
	return nil
}
