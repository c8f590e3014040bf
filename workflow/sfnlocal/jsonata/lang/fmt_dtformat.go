package lang

import (
	"math"
	"strings"
	"sync"
)

// dtISOPicture is the picture $fromMillis and $now use when given none.
const dtISOPicture = "[Y0001]-[M01]-[D01]T[H01]:[m01]:[s01].[f001][Z01:01t]"

var dtISOParts = sync.OnceValue(func() []*dtPart {
	parts, err := analyseDatePicture(dtISOPicture)
	if err != nil {
		panic(err)
	}
	return parts
})

// dtOffset is a timezone offset as jsonata-js reads "±HHMM": hours are
// floor(n/100) and minutes n%100, so "-0530" is -6 hours and -30 minutes.
type dtOffset struct{ hours, minutes float64 }

func dtParseOffset(timezone string) dtOffset {
	n := fmtParseInt(timezone)
	return dtOffset{math.Floor(n / 100), math.Mod(n, 100)}
}

// fmtFormatDateTime formats millis (since the epoch) to picture (the
// ISO 8601 picture when hasPicture is false) in timezone ("±HHMM", UTC
// when hasZone is false).
func fmtFormatDateTime(millis float64, picture string, hasPicture bool, timezone string, hasZone bool) (string, error) {
	var off dtOffset
	if hasZone {
		off = dtParseOffset(timezone)
	}
	parts := dtISOParts()
	if hasPicture {
		var err error
		if parts, err = analyseDatePicture(picture); err != nil {
			return "", err
		}
	}
	t := fmtDate(fmtTimeClip(millis + (60*off.hours+off.minutes)*60*1000))
	var b strings.Builder
	for _, p := range parts {
		if !p.marker {
			b.WriteString(p.literal)
			continue
		}
		s, err := p.format(t, off)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// format writes one marker's component of t (jsonata-js's formatComponent).
func (p *dtPart) format(t fmtDate, off dtOffset) (string, error) {
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
		if p.hasNames && p.names == fmtUpper {
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
	case fmtUpper:
		name = strings.ToUpper(name)
	case fmtLower:
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
		Message: "The 'name' modifier can only be applied to months and days in the date/time picture string, not " + quoteJSON(component)}
}

// formatZone writes the offset: [Z01:01] is "+05:30", [Z0101] "+0530",
// [Z01] "+05" or "+05:30", [z] adds "GMT", and the "t" modifier writes
// "Z" for UTC.
func (p *dtPart) formatZone(off dtOffset) (string, error) {
	offset := off.hours*100 + off.minutes
	f := p.intFmt
	var s string
	var err error
	switch {
	case f.kind == intDecimal && f.regular:
		s, err = f.format(offset)
	case f.kind == intDecimal && (f.mandatory == 1 || f.mandatory == 2):
		s, err = f.format(off.hours)
		if err == nil && off.minutes != 0 {
			minutes, _ := analyseIntPicture("00")
			var m string
			m, err = minutes.format(math.Floor(off.minutes))
			s += ":" + m
		}
	case f.kind == intDecimal && (f.mandatory == 3 || f.mandatory == 4):
		s, err = f.format(offset)
	default:
		msg := "The timezone integer format specifier cannot have more than four digits"
		var digits any = Undefined
		if f.kind == intDecimal {
			digits = float64(f.mandatory)
		}
		return "", &Error{Code: "D3134", Value: digits, Message: msg}
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
