package config_test

import (
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/config"
)

func TestPacingKeys(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// The old switch is refused, not ignored: false asked for the
		// leak that the blind pacing closes.
		{"[judging]\n\npace_to_slower = false\n", "c.toml:3: judging.pace_to_slower: was removed"},
		{"[judging]\npace_to_slower = true\n", "c.toml:2: judging.pace_to_slower: was removed"},
		{"[judging]\ndisplay_rate = 5.0\n", "c.toml:2: judging.display_rate: must be a number of characters a second, at least 20"},
		{"[judging]\ndisplay_rate = inf\n", "judging.display_rate: must be"},
		{"[judging]\ndisplay_rate = nan\n", "judging.display_rate: must be"},
		{"[judging]\ndisplay_delay = \"-1s\"\n", `c.toml:2: judging.display_delay: "-1s" must not be negative`},
		{"[judging]\ndisplay_delay = 2\n", "c.toml:2: judging.display_delay: 2 is not a duration"},
	} {
		_, err := config.Parse([]byte(tc.src), "c.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
	d := config.DefaultJudging()
	if d.DisplayDelay.Seconds() != 2 || d.DisplayRate != 100 {
		t.Fatalf("default pacing %s at %g a second", d.DisplayDelay, d.DisplayRate)
	}
}
