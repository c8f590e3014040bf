package sfnapi

import (
	"strconv"
	"time"
)

// epoch is a timestamp on the wire: epoch seconds with a millisecond
// fraction, e.g. 1712345678.123. The zero time is omitted with omitzero.
type epoch time.Time

// IsZero reports the zero time, for omitzero.
func (t epoch) IsZero() bool { return time.Time(t).IsZero() }

// MarshalJSON writes the epoch-seconds number.
func (t epoch) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(time.Time(t).UnixMilli())/1000, 'f', -1, 64), nil
}

// includedDetails is CloudWatchEventsExecutionDataDetails, which says the
// execution input or output is in the response.
type includedDetails struct {
	Included bool `json:"included"`
}

// empty is the response of operations that return nothing.
type empty struct{}

// includedData values of the Describe* operations.
const (
	allData      = "ALL_DATA"
	metadataOnly = "METADATA_ONLY"
)
