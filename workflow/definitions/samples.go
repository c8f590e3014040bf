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
// its README documents, asking as Requester. The batch workflows' samples
// read their items from SampleItemsKey in the bucket (SampleObjects). An
// unknown name is an error wrapping fs.ErrNotExist.
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

// SampleItemsKey is the key, in the batch workflows' bucket, of the items
// their samples process.
const SampleItemsKey = "samples/batch-items.json"

// SampleObjects are the S3 objects the samples read, by key, to put into
// the batch workflows' bucket (${BatchBucket}) before running them: four
// items, one with "fail": true and one with "flaky": true, for a worker
// that rejects the first (a business failure, whose retry people
// approve) and breaks on the second (a technical failure, which Retry
// retries), each once.
func SampleObjects() map[string][]byte {
	b, _ := samples.ReadFile("samples/batch-items.json") // embedded
	return map[string][]byte{SampleItemsKey: b}
}
