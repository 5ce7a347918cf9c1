package config

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/ringside-eval/ringside"
)

// Load reads and validates the file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "config: %v", err)
	}
	cfg, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// typeErrRE reads the library's type errors, which are plain errors that
// carry the line and key only in their text.
var typeErrRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)

// Parse decodes and validates a config file's contents; name is used in
// errors and relative paths in the file are resolved against its directory.
func Parse(data []byte, name string) (*Config, error) {
	src := strings.TrimPrefix(string(data), "\ufeff") // a BOM some editors write
	// The file is read once as plain tables first, to see what was written
	// where the typed decode would silently convert (durations).
	var raw map[string]any
	if _, err := toml.Decode(src, &raw); err != nil {
		return nil, tomlError(err, name)
	}
	cfg := Defaults()
	cfg.Path, cfg.src = name, src
	if err := checkDurations(raw); err != nil {
		return nil, cfg.Locate(err, "")
	}
	md, err := toml.Decode(src, cfg)
	if err != nil {
		return nil, tomlError(err, name)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		k := firstUnknown(undecoded)
		return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %s: unknown key", name, keyLine(src, k), k.String())
	}
	dir := filepath.Dir(name)
	for i := range cfg.Judges {
		if f := cfg.Judges[i].PromptFile; f != "" && !filepath.IsAbs(f) {
			cfg.Judges[i].PromptFile = filepath.Join(dir, f)
		}
	}
	for i := range cfg.PromptSets {
		if f := cfg.PromptSets[i].File; f != "" && !filepath.IsAbs(f) {
			cfg.PromptSets[i].File = filepath.Join(dir, f)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, cfg.Locate(err, "")
	}
	return cfg, nil
}

// Locate turns an error about the config into one that names the file, the
// line and the key: a FieldError's field, under prefix (like "models[2]")
// when the error came from checking a part of the config, is placed on its
// line; any other error on the line of prefix.
func (c *Config) Locate(err error, prefix string) error {
	if c.Path == "" {
		return err // the built-in demo has no file to point into
	}
	field, msg := prefix, ringside.ErrorMessage(err)
	var fe *ringside.Error
	if errors.As(err, &fe) && fe.Field != "" {
		field, msg = fe.Field, fe.Message
		if prefix != "" {
			field = prefix + "." + fe.Field
		}
	}
	if field == "" {
		return ringside.Errorf(ringside.EINVALID, "%s: %s", c.Path, msg)
	}
	return ringside.Errorf(ringside.EINVALID, "%s:%d: %s: %s", c.Path, fieldLine(c.src, field), field, msg)
}

// tomlError reports the library's syntax and type errors with file, line
// and key, in words rather than the Go types the library names.
func tomlError(err error, name string) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := plainTOMLMessage(pe.Message)
		if pe.LastKey != "" {
			msg = pe.LastKey + ": " + msg
		}
		return ringside.Errorf(ringside.EINVALID, "%s:%d: %s", name, pe.Position.Line, msg)
	}
	if m := typeErrRE.FindStringSubmatch(err.Error()); m != nil {
		return ringside.Errorf(ringside.EINVALID, "%s:%s: %s: %s", name, m[1], m[2], plainTOMLMessage(m[3]))
	}
	return ringside.Errorf(ringside.EINVALID, "%s: %s", name, plainTOMLMessage(err.Error()))
}

var (
	badTypeRE = regexp.MustCompile(`incompatible types: TOML value has type (\S+); destination has type (.+)$`)
	tableRE   = regexp.MustCompile(`type mismatch for \S+: expected table but found (.+)$`)
	rangeRE   = regexp.MustCompile(` is out of range for \w+$`)
	// The library names TOML values by their Go types, and destinations by
	// Go kinds.
	tomlTypeWords = map[string]string{
		"string": "a string", "int64": "an integer", "float64": "a number", "bool": "a boolean",
		"[]any": "an array", "[]map[string]any": "an array of tables", "map[string]any": "a table",
		"time.Time": "a date", "toml.LocalDate": "a date", "toml.LocalTime": "a time", "toml.LocalDatetime": "a date",
		"integer": "an integer", "float": "a number", "boolean": "true or false", "slice": "an array",
		"map": "a table", "primitive (string-like)": "a string",
	}
)

func plainTOMLMessage(msg string) string {
	if m := badTypeRE.FindStringSubmatchIndex(msg); m != nil {
		return msg[:m[0]] + "want " + typeWord(msg[m[4]:m[5]]) + ", got " + typeWord(msg[m[2]:m[3]])
	}
	if m := tableRE.FindStringSubmatchIndex(msg); m != nil {
		return msg[:m[0]] + "want a table, got " + typeWord(msg[m[2]:m[3]])
	}
	return rangeRE.ReplaceAllString(msg, " is out of range")
}

// firstUnknown picks the unknown key to report: a key inside a provider's
// free-form options table is the provider's to check, not ours.
func firstUnknown(keys []toml.Key) toml.Key {
	for _, k := range keys {
		if !(len(k) >= 2 && k[0] == "models" && k[1] == "options") {
			return k
		}
	}
	return keys[0]
}

func typeWord(goType string) string {
	if w, ok := tomlTypeWords[goType]; ok {
		return w
	}
	return "another type"
}
