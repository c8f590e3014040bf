package sfnlocal

import (
	"encoding/json"
	"math"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// decodeJSON parses one JSON text into the package's value convention;
// objects keep the text's member order.
func decodeJSON(text []byte) (any, error) { return jsonvalue.Decode(text) }

func rawJSON(v any) json.RawMessage { return json.RawMessage(jsonvalue.Encode(v)) }

// integer converts a JSON number with no fractional part to int64.
func integer(v any) (int64, bool) {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i, true
		}
	}
	f, ok := jsonvalue.Float(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}
