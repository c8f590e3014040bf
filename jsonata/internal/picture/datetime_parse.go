package picture

import (
	"math"
	"regexp"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// Parsing a timestamp with a date/time picture, as jsonata-js does: the
// picture becomes one case-insensitive regular expression, each marker's
// match is read, missing components before the first given one come from
// the evaluation's clock and those after the last given one are zero (or
// 1 for month and day), and a gap between given components is D3136.

// dtReader reads one part of a timestamp.
type dtReader struct {
	regex     string
	component string
	parse     func(string) (float64, bool) // nil for literals; false: undefined
}

func (p *dtPart) reader() (dtReader, error) {
	r := dtReader{component: p.component}
	switch {
	case !p.marker:
		r.regex = regexp.QuoteMeta(p.literal)
	case p.component == "Z" || p.component == "z":
		r.regex, r.parse = p.zoneReader()
	case p.intFmt != nil:
		if strings.Contains("YMD", p.component) && p.yearWidth > 0 {
			p.intFmt.width = int(p.yearWidth)
		}
		m, err := p.intFmt.matcher()
		if err != nil {
			return r, err
		}
		r.regex = m.regex
		r.parse = func(s string) (float64, bool) { return m.parse(s), true }
	default:
		lookup := map[string]float64{}
		name := func(n string) string {
			if p.hasMax && p.maxWidth > 0 && float64(len(n)) > p.maxWidth {
				return n[:int(p.maxWidth)]
			}
			return n
		}
		switch p.component {
		case "M", "x":
			for i, n := range dtMonthNames {
				lookup[name(n)] = float64(i + 1)
			}
		case "F":
			for i, n := range dtDayNames[1:] {
				lookup[name(n)] = float64(i + 1)
			}
		case "P":
			lookup = map[string]float64{"am": 0, "AM": 0, "pm": 1, "PM": 1}
		default:
			return r, dtNameError(p.component)
		}
		r.regex = "[a-zA-Z]+"
		r.parse = func(s string) (float64, bool) { v, ok := lookup[s]; return v, ok }
	}
	return r, nil
}

// zoneReader reads "±HH:MM" (with the picture's separator), "±HH" or
// "±HHMM", after "GMT" for z, as minutes; jsonata-js gives the minutes
// the sign of nothing, so "-05:30" is -270.
func (p *dtPart) zoneReader() (string, func(string) (float64, bool)) {
	sep := ""
	if p.intFmt.kind == intDecimal && p.intFmt.regular {
		sep = p.intFmt.every.char
	}
	re := "[-+][0-9]+"
	if p.component == "z" {
		re = "GMT" + re
	}
	if sep != "" {
		re += sep + "[0-9]+"
	}
	return re, func(v string) (float64, bool) {
		if p.component == "z" {
			v = string([]rune(v)[3:])
		}
		var hours, minutes float64
		if sep != "" {
			i := strings.Index(v, sep)
			hours, minutes = js.ParseInt(v[:max(i, 0)]), js.ParseInt(v[i+len(sep):])
		} else if len(v)-1 <= 2 {
			hours = js.ParseInt(v)
		} else {
			hours, minutes = js.ParseInt(v[:3]), js.ParseInt(v[3:])
		}
		return hours*60 + minutes, true
	}
}

// dtComponents are the parsed components: a key with a nil value was
// matched but unreadable (JavaScript undefined).
type dtComponents map[string]*float64

// truthy is JavaScript truthiness of a component: given, not 0, not NaN.
func (c dtComponents) truthy(k string) bool {
	v := c[k]
	return v != nil && *v != 0 && !math.IsNaN(*v)
}

func (c dtComponents) get(k string) float64 {
	if v := c[k]; v != nil {
		return *v
	}
	return math.NaN()
}

func (c dtComponents) set(k string, v float64) { c[k] = &v }

// ParseDateTime is $toMillis(timestamp, picture): the instant (in
// milliseconds since the epoch) that timestamp, written to a date/time
// picture, stands for. Components the picture leaves out before the
// first it gives come from now (milliseconds since the epoch). ok is
// false when the timestamp does not match the picture. A bad picture is
// an *Error D3130 to D3136.
func ParseDateTime(timestamp, picture string, now float64) (millis float64, ok bool, err error) {
	parts, err := analyseDatePicture(picture)
	if err != nil {
		return 0, false, err
	}
	readers := make([]dtReader, len(parts))
	var re strings.Builder
	re.WriteString("(?i)^")
	for i, p := range parts {
		if readers[i], err = p.reader(); err != nil {
			return 0, false, err
		}
		re.WriteString("(" + readers[i].regex + ")")
	}
	re.WriteString("$")
	matcher, err := regexp.Compile(re.String())
	if err != nil {
		return 0, false, missingSpecifiers()
	}
	info := matcher.FindStringSubmatch(timestamp)
	if info == nil {
		return 0, false, nil
	}
	comps := dtComponents{}
	for i, r := range readers {
		if r.parse == nil {
			continue
		}
		if v, defined := r.parse(info[i+1]); defined {
			comps.set(r.component, v)
		} else {
			comps[r.component] = nil
		}
	}
	if len(comps) == 0 {
		return 0, false, nil
	}
	millis, err = comps.resolve(js.Date(now))
	return millis, err == nil, err
}

// Masks of the component combinations that fix a date or a time; bits
// are YXMxWwdD and PHhmsf from the most significant.
const (
	dateYMD = 0b10100001
	dateYd  = 0b10000010
	dateXxw = 0b01010100
	dateXW  = 0b01001000
	timeHms = 0b010111
	timePhm = 0b101111
)

func (c dtComponents) mask(order string) int {
	m := 0
	for _, k := range order {
		m <<= 1
		if c.truthy(string(k)) {
			m++
		}
	}
	return m
}

// dtIsType: the mask sets no bit outside typ and at least one inside.
func dtIsType(typ, mask int) bool { return ^typ&mask == 0 && typ&mask != 0 }

// missingSpecifiers is D3136, for a picture that cannot fix an instant.
func missingSpecifiers() error {
	return &Error{Code: "D3136", Message: "The date/time picture string is missing specifiers required to parse the timestamp"}
}

func (c dtComponents) resolve(now js.Date) (float64, error) {
	dm := c.mask("YXMxWwdD")
	dateA := dtIsType(dateYMD, dm)
	dateB := !dateA && dtIsType(dateYd, dm)
	dateC := dtIsType(dateXxw, dm)
	dateD := !dateC && dtIsType(dateXW, dm)
	tm := c.mask("PHhmsf")
	timeA := dtIsType(timeHms, tm)
	timeB := !timeA && dtIsType(timePhm, tm)

	comps := "YMD" // jsonata-js fills Y, D (not d) for a day-of-year date
	switch {
	case dateB:
		comps = "YD"
	case dateC:
		comps = "XxwF"
	case dateD:
		comps = "XWF"
	}
	if timeB {
		comps += "Phmsf"
	} else {
		comps += "Hmsf"
	}
	started, ended := false, false
	for _, r := range comps {
		k := string(r)
		if _, given := c[k]; given && c[k] != nil {
			started = true
			if ended {
				return 0, missingSpecifiers()
			}
			continue
		}
		switch {
		case started && strings.Contains("MDd", k):
			c.set(k, 1)
			ended = true
		case started:
			c.set(k, 0)
			ended = true
		default:
			c.set(k, dtNowComponent(now, k))
		}
	}
	if m := c.get("M"); m > 0 {
		c.set("M", m-1)
	} else {
		c.set("M", 0)
	}
	if dateB {
		firstJan := js.DateUTC(c.get("Y"), 0, 1, 0, 0, 0, 0)
		derived := js.Date(js.TimeClip(firstJan + (c.get("d")-1)*js.MsPerDay))
		c.set("M", derived.Month())
		c.set("D", derived.Date())
	}
	if dateC || dateD {
		return 0, missingSpecifiers()
	}
	if timeB {
		h := c.get("h")
		if h == 12 {
			h = 0
		}
		if c.get("P") == 1 {
			h += 12
		}
		c.set("H", h)
	}
	millis := js.DateUTC(c.get("Y"), c.get("M"), c.get("D"), c.get("H"), c.get("m"), c.get("s"), c.get("f"))
	if c.truthy("Z") {
		millis -= c.get("Z") * 60 * 1000
	} else if c.truthy("z") {
		millis -= c.get("z") * 60 * 1000
	}
	return millis, nil
}

// dtNowComponent is a component of the clock's instant; the am/pm marker,
// a string in jsonata-js, never equals 1.
func dtNowComponent(now js.Date, k string) float64 {
	v := dtComponentValue(now, k)
	if v.isStr || v.undefined {
		return math.NaN()
	}
	return v.num
}
