package picture

import (
	"math"
	"strings"
	"sync"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// ISO8601 is the picture $fromMillis and $now use when given none.
const ISO8601 = "[Y0001]-[M01]-[D01]T[H01]:[m01]:[s01].[f001][Z01:01t]"

var iso8601Parts = sync.OnceValue(func() []*dtPart {
	parts, err := analyseDatePicture(ISO8601)
	if err != nil {
		panic(err)
	}
	return parts
})

// Offset is a timezone offset; the zero Offset is UTC.
type Offset struct{ Hours, Minutes float64 }

// ParseOffset reads a timezone as jsonata-js does: parseInt of "±HHMM",
// hours floor(n/100) and minutes n%100, so "-0530" is -6 hours and -30
// minutes. Text parseInt cannot read gives NaN fields, and NaN times.
func ParseOffset(timezone string) Offset {
	n := js.ParseInt(timezone)
	return Offset{math.Floor(n / 100), math.Mod(n, 100)}
}

// FormatDateTime is $fromMillis(millis, picture, timezone): the instant
// millis (since the epoch) written to a date/time picture (F&O 3.1 §9.8)
// such as ISO8601 or "[D1o] [MNn] [Y]", in timezone zone. A bad picture
// is an *Error D3130 to D3135.
func FormatDateTime(millis float64, picture string, zone Offset) (string, error) {
	parts := iso8601Parts()
	if picture != ISO8601 {
		var err error
		if parts, err = analyseDatePicture(picture); err != nil {
			return "", err
		}
	}
	t := js.Date(js.TimeClip(millis + (60*zone.Hours+zone.Minutes)*60*1000))
	var b strings.Builder
	for _, p := range parts {
		if !p.marker {
			b.WriteString(p.literal)
			continue
		}
		s, err := p.format(t, zone)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// format writes one marker's component of t (jsonata-js's formatComponent).
func (p *dtPart) format(t js.Date, off Offset) (string, error) {
	v := dtComponentValue(t, p.component)
	switch {
	case strings.Contains("YMDdFWwXxHhms", p.component) && p.component != "":
		if p.component == "Y" && p.yearWidth != -1 {
			v.num = math.Mod(v.num, math.Pow(10, p.yearWidth))
		}
		if p.hasNames {
			return p.formatName(v.num)
		}
		return p.intFmt.format(v.num)
	case p.component == "f":
		if p.intFmt == nil {
			return "", &Error{Code: "D3133", Value: "f",
				Message: "The 'name' modifier can only be applied to months and days in the date/time picture string, not \"f\""}
		}
		return p.intFmt.format(v.num)
	case p.component == "Z" || p.component == "z":
		return p.formatZone(off)
	case p.component == "P":
		if p.hasNames && p.names == upperCase {
			return strings.ToUpper(v.str), nil
		}
		return v.str, nil
	}
	if v.undefined {
		return "undefined", nil
	}
	return v.str, nil
}

func (p *dtPart) formatName(v float64) (string, error) {
	var name string
	switch p.component {
	case "M", "x":
		name = dtLookupName(dtMonthNames, v-1)
	case "F":
		name = dtLookupName(dtDayNames, v)
	default:
		return "", dtNameError(p.component)
	}
	switch p.names {
	case upperCase:
		name = strings.ToUpper(name)
	case lowerCase:
		name = strings.ToLower(name)
	}
	if p.hasMax && float64(len([]rune(name))) > p.maxWidth {
		name = string([]rune(name)[:max(0, int(p.maxWidth))])
	}
	return name, nil
}

// dtLookupName indexes names as JavaScript would: out of range is
// "undefined".
func dtLookupName(names []string, i float64) string {
	if i >= 0 && i < float64(len(names)) && i == math.Trunc(i) {
		return names[int(i)]
	}
	return "undefined"
}

func dtNameError(component string) error {
	return &Error{Code: "D3133", Value: component,
		Message: "The 'name' modifier can only be applied to months and days in the date/time picture string, not " + js.Quote(component)}
}

// formatZone writes the offset: [Z01:01] is "+05:30", [Z0101] "+0530",
// [Z01] "+05" or "+05:30", [z] adds "GMT", and the "t" modifier writes
// "Z" for UTC.
func (p *dtPart) formatZone(off Offset) (string, error) {
	offset := off.Hours*100 + off.Minutes
	f := p.intFmt
	var s string
	var err error
	switch {
	case f.kind == intDecimal && f.regular:
		s, err = f.format(offset)
	case f.kind == intDecimal && (f.mandatory == 1 || f.mandatory == 2):
		s, err = f.format(off.Hours)
		if err == nil && off.Minutes != 0 {
			minutes, _ := analyseIntPicture("00")
			var m string
			m, err = minutes.format(math.Floor(off.Minutes))
			s += ":" + m
		}
	case f.kind == intDecimal && (f.mandatory == 3 || f.mandatory == 4):
		s, err = f.format(offset)
	default:
		e := &Error{Code: "D3134", Message: "The timezone integer format specifier cannot have more than four digits"}
		if f.kind == intDecimal {
			e.Value = float64(f.mandatory) // undefined in jsonata-js for other formats
		}
		return "", e
	}
	if err != nil {
		return "", err
	}
	if offset >= 0 {
		s = "+" + s
	}
	if p.component == "z" {
		s = "GMT" + s
	}
	if offset == 0 && p.pres2 == "t" {
		s = "Z"
	}
	return s, nil
}
