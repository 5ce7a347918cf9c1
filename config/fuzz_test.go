package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// FuzzParse: any file is read or refused naming the file (and the line when
// there is one); what is read validates, with no negative duration.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "config.example.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(example))
	for _, s := range []string{
		"[judging]\nwrite_timeout = 10\n",
		"[[models]]\nname = \"a\"\nprovider = \"sim\"\ntimeout = \"2m\"\noptions = { speed = 3 }\n",
		"models = [{name = \"a\", provider = \"sim\", stall_timeout = \"-1s\"}]\n",
		"\ufeffdimensions = [\"tone\", \"tone\"]\n",
		"[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"json_schema\"\nschema = { type = \"object\" }\n",
		"[run]\nweights = { a = 1.5 }\nsamples = 1.5\n",
	} {
		f.Add(s)
	}
	placed := regexp.MustCompile(`^c\.toml(:\d+)?: `)
	f.Fuzz(func(t *testing.T, src string) {
		cfg, err := config.Parse([]byte(src), "c.toml")
		if err != nil {
			var re *ringside.Error
			if !errors.As(err, &re) || re.Code != ringside.EINVALID || !placed.MatchString(re.Message) {
				t.Fatalf("error %#v does not name the file", err)
			}
			for _, goType := range []string{"int64", "float64", "map[", "[]", "interface", "config."} {
				if strings.Contains(re.Message, goType) {
					t.Fatalf("error names the Go type %s: %v", goType, err)
				}
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("parsed config does not validate: %v", err)
		}
		j := cfg.Judging
		for _, m := range cfg.Models {
			if m.Timeout < 0 || m.StallTimeout < 0 {
				t.Fatalf("model %q has a negative duration", m.Name)
			}
		}
		if cfg.Server.ShutdownTimeout < 0 || j.PingInterval <= 0 || j.WriteTimeout <= 0 || j.ResumeWindow <= 0 {
			t.Fatalf("bad durations passed: %+v %+v", cfg.Server, j)
		}
	})
}
