package sfnlocal

import (
	"encoding/json"
	"strings"
)

// isSync reports whether a Task resource is a Run a Job integration
// (".sync", ".sync:2"): Step Functions records the request that starts
// the job as TaskSubmitted, then the job's result as TaskSucceeded.
func isSync(resource string) bool {
	return strings.HasSuffix(resource, ".sync") || strings.HasSuffix(resource, ".sync:2")
}

// submitJob records a .sync task's TaskSubmitted with the service's
// answer, once, unless the attempt already ended.
func (r *taskRun) submitJob(out json.RawMessage) {
	x := r.t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if r.settled || r.submitted {
		return
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	v, err := decodeJSON(out)
	if err != nil {
		x.e.log.Info("a .sync integration submitted invalid JSON; TaskSubmitted not recorded")
		return
	}
	text, serr := r.resultText(v)
	if serr != nil {
		return
	}
	r.submitted = true
	r.t.recordLocked(EventTaskSubmitted, &TaskOutputEventDetails{ResourceType: r.resType, Resource: r.resName, Output: text, OutputDetails: notTruncated})
}
