// Package sfnlocal is a local AWS Step Functions engine: it runs Amazon
// States Language definitions with AWS's semantics (data flow, Retry and
// Catch, callbacks with task tokens, execution history), in process or
// behind the Step Functions API (cmd/sfn-local), so the approvals bot, the
// notifier and users' own tests talk to it through the real aws-sdk-go-v2
// client.
//
// Conventions shared by its subpackages: a JSON value is represented as
// decoded by encoding/json with UseNumber — map[string]any, []any, string,
// json.Number, bool or nil — so numbers keep their exact text.
package sfnlocal
