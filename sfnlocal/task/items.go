package task

import (
	"context"
	"encoding/json"
)

// Errors a distributed Map's Map Run fails with when its items cannot be
// read or its results cannot be written.
const (
	ErrItemReaderFailed   = "States.ItemReaderFailed"
	ErrResultWriterFailed = "States.ResultWriterFailed"
)

// ItemRead is a distributed Map's ItemReader, evaluated for one run of the
// state.
type ItemRead struct {
	// Resource is the reader's Resource as written:
	// arn:<partition>:states:::s3:getObject or …:s3:listObjectsV2.
	Resource string
	// Parameters is Parameters (JSONPath) or Arguments (JSONata) after
	// evaluation: {"Bucket", "Key", "VersionId"} or {"Bucket", "Prefix"}.
	Parameters json.RawMessage
	Config     ReaderConfig

	StateMachineARN string
	ExecutionARN    string
	StateName       string
}

// ReaderConfig is an ItemReader's ReaderConfig.
type ReaderConfig struct {
	// InputType is CSV, JSON, JSONL or MANIFEST (an S3 inventory
	// manifest.json); empty for listObjectsV2.
	InputType string
	// CSVHeaderLocation is FIRST_ROW (the default) or GIVEN, with the
	// names in CSVHeaders.
	CSVHeaderLocation string
	CSVHeaders        []string
	// CSVDelimiter is COMMA (the default), PIPE, SEMICOLON, SPACE or TAB.
	CSVDelimiter string
	// MaxItems, when positive, stops reading after that many items.
	MaxItems int
}

// ItemReader is an Integration that reads a distributed Map's items. The
// engine asks each configured integration that implements it.
type ItemReader interface {
	// ReadsItems reports whether it reads from the ItemReader resource.
	ReadsItems(resource string) bool
	// ReadItems returns the items, a JSON array. A *Failure (usually
	// States.ItemReaderFailed) fails the Map Run with its name and cause;
	// any other error fails it with States.ItemReaderFailed and the
	// error's text.
	ReadItems(ctx context.Context, r ItemRead) (json.RawMessage, error)
}

// ResultExport is what a distributed Map's ResultWriter writes once its
// Map Run has ended.
type ResultExport struct {
	// Resource is the writer's Resource: arn:<partition>:states:::s3:putObject.
	Resource string
	// Parameters is Parameters or Arguments after evaluation: {"Bucket",
	// "Prefix"}.
	Parameters json.RawMessage
	MapRunARN  string
	// OutputType is JSON (each file a JSON array) or JSONL.
	OutputType string
	// The child runs' results, in item order, by status: SUCCEEDED,
	// FAILED (failed, timed out or aborted) and PENDING (never started,
	// because the Map Run failed first). Each is one JSON value, shaped by
	// the WriterConfig's Transformation.
	Succeeded, Failed, Pending []json.RawMessage
}

// ResultLocation is where a ResultWriter put the Map Run's manifest.json.
type ResultLocation struct {
	Bucket string
	Key    string
}

// ResultWriter is an Integration that writes a distributed Map's results.
// The engine asks each configured integration that implements it.
type ResultWriter interface {
	// WritesResults reports whether it writes to the ResultWriter resource.
	WritesResults(resource string) bool
	// WriteResults writes the results and their manifest and returns the
	// manifest's location. A *Failure fails the Map Run with its name and
	// cause; any other error with States.ResultWriterFailed.
	WriteResults(ctx context.Context, w ResultExport) (ResultLocation, error)
}
