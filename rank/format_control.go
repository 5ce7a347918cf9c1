package rank

import (
	"fmt"
	"strconv"
	"strings"
)

// controlColumns are the table's columns of a controlled board: the plain
// rating and rank, and the rank's change (up is positive, as Chatbot
// Arena shows it).
func (lb *Leaderboard) controlColumns() ([]string, []bool) {
	if len(lb.Method.Controls) == 0 {
		return nil, nil
	}
	return []string{"Plain rating", "Plain rank", "Rank change"}, []bool{true, true, true}
}

func controlCells(m *ModelRating, on bool) []string {
	if !on {
		return nil
	}
	if m.UncontrolledRating == nil || m.UncontrolledRank == nil {
		return []string{"-", "-", "-"}
	}
	return []string{num(*m.UncontrolledRating, 1), strconv.Itoa(*m.UncontrolledRank), rankChange(*m.UncontrolledRank - m.Rank)}
}

// rankChange shows a move in rank: +2 for two places up, 0 for none.
func rankChange(d int) string {
	if d > 0 {
		return "+" + strconv.Itoa(d)
	}
	return strconv.Itoa(d)
}

func csvControlCells(m *ModelRating) []string {
	if m.UncontrolledRating == nil || m.UncontrolledRank == nil {
		return []string{"", ""}
	}
	return []string{num(*m.UncontrolledRating, 4), strconv.Itoa(*m.UncontrolledRank)}
}

// anyControlled reports whether the board or one of its slices is
// controlled (the CSV then has the plain columns).
func (lb *Leaderboard) anyControlled() bool {
	if len(lb.Method.Controls) > 0 {
		return true
	}
	for _, sl := range lb.Slices {
		if len(sl.Method.Controls) > 0 {
			return true
		}
	}
	return false
}

// renderCoefficients writes the control features' fitted effects.
func (lb *Leaderboard) renderCoefficients(b *strings.Builder, md bool) {
	if len(lb.Coefficients) == 0 {
		return
	}
	if md {
		b.WriteString("\n**Control coefficients** (log-odds per standard deviation of the feature's difference)\n\n")
	} else {
		b.WriteString("\nControl coefficients (log-odds per standard deviation of the feature's difference):\n")
	}
	var rows [][]string
	for _, c := range lb.Coefficients {
		rows = append(rows, []string{c.Name, fmt.Sprintf("%.4f", c.Value), coefCI(c.CILow, c.CIHigh, lb.Method.Interval)})
	}
	writeTable(b, []string{"Feature", "Coefficient", "95% CI"}, []bool{false, true, false}, rows, md)
}

func coefCI(lo, hi *float64, interval string) string {
	if interval != IntervalBootstrap {
		return "-"
	}
	l, h := "-inf", "+inf"
	if lo != nil {
		l = fmt.Sprintf("%.4f", *lo)
	}
	if hi != nil {
		h = fmt.Sprintf("%.4f", *hi)
	}
	return "[" + l + ", " + h + "]"
}
