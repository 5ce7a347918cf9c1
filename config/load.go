package config

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"

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
	cfg := Defaults()
	md, err := toml.Decode(string(data), cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := pe.Message
			if pe.LastKey != "" {
				msg = pe.LastKey + ": " + msg
			}
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %s", name, pe.Position.Line, msg)
		}
		if m := typeErrRE.FindStringSubmatch(err.Error()); m != nil {
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%s: %s: %s", name, m[1], m[2], m[3])
		}
		return nil, ringside.Errorf(ringside.EINVALID, "%s: %v", name, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		k := firstUnknown(undecoded)
		return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %s: unknown key", name, keyLine(string(data), k), k.String())
	}
	cfg.Path = name
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
		var fe *ringside.Error
		if errors.As(err, &fe) && fe.Field != "" {
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %s: %s", name, fieldLine(string(data), fe.Field), fe.Field, fe.Message)
		}
		return nil, ringside.Errorf(ringside.EINVALID, "%s: %v", name, ringside.ErrorMessage(err))
	}
	return cfg, nil
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
