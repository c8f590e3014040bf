package picture

import (
	"math"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// The values of date/time components, computed as jsonata-js computes
// them from a JavaScript Date in UTC. Week numbers follow ISO 8601 (weeks
// start on Monday; week 1 holds the first Thursday), and jsonata-js
// extends the rule to weeks of a month.

var (
	dtDayNames   = []string{"", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	dtMonthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December"}
)

// dtYearMonth is a month of a year, month counted from 0.
type dtYearMonth struct{ year, month float64 }

func (ym dtYearMonth) next() dtYearMonth {
	if ym.month == 11 {
		return dtYearMonth{ym.year + 1, 0}
	}
	return dtYearMonth{ym.year, ym.month + 1}
}

func (ym dtYearMonth) previous() dtYearMonth {
	if ym.month == 0 {
		return dtYearMonth{ym.year - 1, 11}
	}
	return dtYearMonth{ym.year, ym.month - 1}
}

// dtStartOfFirstWeek is the time value of the Monday that starts week 1 of
// the month (or year, for January).
func dtStartOfFirstWeek(ym dtYearMonth) float64 {
	first := js.DateUTC(ym.year, ym.month, 1, 0, 0, 0, 0)
	dow := js.Date(first).Day()
	if dow == 0 {
		dow = 7
	}
	if dow > 4 {
		return first + (8-dow)*js.MsPerDay
	}
	return first - (dow-1)*js.MsPerDay
}

func dtDeltaWeeks(start, end float64) float64 {
	return (end-start)/(js.MsPerDay*7) + 1
}

// dtValue is a component's value: a number, or a string for P, C and E;
// undefined for an unknown component.
type dtValue struct {
	num       float64
	str       string
	isStr     bool
	undefined bool
}

// dtComponentValue is jsonata-js's getDateTimeFragment.
func dtComponentValue(t js.Date, component string) dtValue {
	num := func(f float64) dtValue { return dtValue{num: f} }
	switch component {
	case "Y":
		return num(t.FullYear())
	case "M":
		return num(t.Month() + 1)
	case "D":
		return num(t.Date())
	case "d":
		today := js.DateUTC(t.FullYear(), t.Month(), t.Date(), 0, 0, 0, 0)
		firstJan := js.DateUTC(t.FullYear(), 0, 1, 0, 0, 0, 0)
		return num((today-firstJan)/js.MsPerDay + 1)
	case "F":
		dow := t.Day()
		if dow == 0 {
			dow = 7
		}
		return num(dow)
	case "W":
		return num(dtWeekOfYear(t))
	case "w":
		return num(dtWeekOfMonth(t))
	case "X":
		this := dtYearMonth{t.FullYear(), 0}
		now := float64(t)
		switch {
		case now < dtStartOfFirstWeek(this):
			return num(this.year - 1)
		case now >= dtStartOfFirstWeek(dtYearMonth{this.year + 1, 0}):
			return num(this.year + 1)
		}
		return num(this.year)
	case "x":
		this := dtYearMonth{t.FullYear(), t.Month()}
		now := float64(t)
		switch {
		case now < dtStartOfFirstWeek(this):
			return num(this.previous().month + 1)
		case now >= dtStartOfFirstWeek(this.next()):
			return num(this.next().month + 1)
		}
		return num(this.month + 1)
	case "H":
		return num(t.Hours())
	case "h":
		h := math.Mod(t.Hours(), 12)
		if h == 0 {
			h = 12
		}
		return num(h)
	case "P":
		if t.Hours() >= 12 {
			return dtValue{str: "pm", isStr: true}
		}
		return dtValue{str: "am", isStr: true}
	case "m":
		return num(t.Minutes())
	case "s":
		return num(t.Seconds())
	case "f":
		return num(t.Milliseconds())
	case "C", "E":
		return dtValue{str: "ISO", isStr: true}
	}
	return dtValue{undefined: true}
}

func dtWeekOfYear(t js.Date) float64 {
	this := dtYearMonth{t.FullYear(), 0}
	start := dtStartOfFirstWeek(this)
	today := js.DateUTC(this.year, t.Month(), t.Date(), 0, 0, 0, 0)
	week := dtDeltaWeeks(start, today)
	if week > 52 {
		if today >= dtStartOfFirstWeek(dtYearMonth{this.year + 1, 0}) {
			week = 1
		}
	} else if week < 1 {
		week = dtDeltaWeeks(dtStartOfFirstWeek(dtYearMonth{this.year - 1, 0}), today)
	}
	return math.Floor(week)
}

func dtWeekOfMonth(t js.Date) float64 {
	this := dtYearMonth{t.FullYear(), t.Month()}
	start := dtStartOfFirstWeek(this)
	today := js.DateUTC(this.year, this.month, t.Date(), 0, 0, 0, 0)
	week := dtDeltaWeeks(start, today)
	if week > 4 {
		if today >= dtStartOfFirstWeek(this.next()) {
			week = 1
		}
	} else if week < 1 {
		week = dtDeltaWeeks(dtStartOfFirstWeek(this.previous()), today)
	}
	return math.Floor(week)
}
