package jsonata

import "github.com/sfnapprovals/approvals/jsonata/internal/picture"

// nowMillis is the evaluation's instant in milliseconds since the epoch.
func nowMillis(c *Call) float64 { return float64(c.Now().UnixMilli()) }

// fnNow is $now(picture, timezone): the evaluation's instant, written as
// $fromMillis writes it.
func fnNow(c *Call, args []any) (any, error) {
	return formatDateTime(nowMillis(c), args[0], args[1])
}

// fnMillis is $millis(): the evaluation's instant in milliseconds.
func fnMillis(c *Call, _ []any) (any, error) { return nowMillis(c), nil }

// fnFromMillis is $fromMillis(millis, picture, timezone).
func fnFromMillis(_ *Call, args []any) (any, error) {
	millis, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	return formatDateTime(millis, args[1], args[2])
}

// formatDateTime writes millis to the picture argument (ISO 8601 when
// undefined) in the timezone argument (UTC when undefined).
func formatDateTime(millis float64, pictureArg, zoneArg any) (any, error) {
	pic, ok := pictureArg.(string)
	if !ok {
		pic = picture.ISO8601
	}
	var zone picture.Offset
	if tz, ok := zoneArg.(string); ok {
		zone = picture.ParseOffset(tz)
	}
	return pictureResult(picture.FormatDateTime(millis, pic, zone))
}

// fnToMillis is $toMillis(timestamp, picture): undefined when the
// timestamp does not match the picture; without a picture the timestamp
// must be ISO 8601.
func fnToMillis(c *Call, args []any) (any, error) {
	timestamp, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	pic, ok := args[1].(string)
	if !ok {
		return pictureResult(picture.ParseISO(timestamp))
	}
	millis, matched, err := picture.ParseDateTime(timestamp, pic, nowMillis(c))
	if err != nil {
		return Undefined, pictureError(err)
	}
	if !matched {
		return Undefined, nil
	}
	return millis, nil
}
