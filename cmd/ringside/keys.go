package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/provider"
)

// buildModels builds the clients of the named configured models (every
// model when names is empty). All the models whose API key variable is not
// set are reported in one error, so that a user sets them all before the
// next try rather than meeting them one try at a time; any other error
// stops at once. Each is placed on the config line that names it.
func (m *Main) buildModels(cfg *config.Config, names []string) (map[string]ringside.Streamer, error) {
	if len(names) == 0 {
		for _, mod := range cfg.Models {
			names = append(names, mod.Name)
		}
	}
	out := make(map[string]ringside.Streamer, len(names))
	var missing []string
	for _, name := range names {
		i := modelIndex(cfg, name)
		if i < 0 {
			return nil, ringside.FieldError("models", "no model is named %q", name)
		}
		s, err := provider.New(cfg.Models[i], provider.Options{Getenv: m.Getenv})
		var fe *ringside.Error
		switch {
		case errors.As(err, &fe) && fe.Field == "api_key_env":
			missing = append(missing, ringside.ErrorMessage(cfg.Locate(err, fmt.Sprintf("models[%d]", i))))
		case err != nil:
			return nil, cfg.Locate(err, fmt.Sprintf("models[%d]", i))
		default:
			out[name] = s
		}
	}
	switch len(missing) {
	case 0:
		return out, nil
	case 1:
		return nil, ringside.Errorf(ringside.EINVALID, "%s", missing[0])
	}
	return nil, ringside.Errorf(ringside.EINVALID, "%d API keys are not set:\n  %s", len(missing), strings.Join(missing, "\n  "))
}

// modelIndex is the index of a configured model, or -1.
func modelIndex(cfg *config.Config, name string) int {
	for i, mod := range cfg.Models {
		if mod.Name == name {
			return i
		}
	}
	return -1
}
