package definitions

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

// Requester is the requestedBy of the sample inputs: the requester of the
// local Slack stand-in's default workspace. Replace it with a real user ID
// (U…) to run a sample elsewhere.
const Requester = "U0BOB"

//go:embed samples/*.json
var samples embed.FS

// Sample returns an execution input for the definition with the file
// name, e.g. PublishWithApproval: a small, valid input with every field
// its README documents, asking as Requester. In the batch workflow's
// sample one item has "fail": true, for a process-item function that
// fails such items, so that the run asks whether to retry it. An unknown
// name is an error wrapping fs.ErrNotExist.
func Sample(name string) ([]byte, error) {
	base, ok := strings.CutSuffix(name, ".asl.json")
	if !ok || strings.Contains(name, "/") {
		return nil, fmt.Errorf("load the sample input of %q: %w", name, fs.ErrNotExist)
	}
	b, err := samples.ReadFile("samples/" + base + ".json")
	if err != nil {
		return nil, fmt.Errorf("load the sample input of %q: %w", name, err)
	}
	return b, nil
}
