package provider_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/anthropic"
	"github.com/ringside-eval/ringside/provider/openai"
	"github.com/ringside-eval/ringside/provider/sim"
)

func TestNewChoosesByProvider(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a"}
	opts := provider.Options{Getenv: func(k string) string { return env[k] }}
	for _, m := range []ringside.Model{
		{Name: "gpt", Provider: "openai", ModelID: "gpt-4o-mini"},
		{Name: "claude", Provider: "anthropic", ModelID: "claude-x"},
		{Name: "sim-1", Provider: "sim"},
	} {
		s, err := provider.New(m, opts)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		var got string
		switch s.(type) {
		case *openai.Client:
			got = "openai"
		case *anthropic.Client:
			got = "anthropic"
		case *sim.Model:
			got = "sim"
		}
		if got != m.Provider {
			t.Errorf("%s: got a %T", m.Name, s)
		}
	}
}

func TestNewErrors(t *testing.T) {
	opts := provider.Options{Getenv: func(string) string { return "" }}
	tests := []struct {
		m    ringside.Model
		want string
	}{
		{ringside.Model{Name: "x", Provider: "gemini", ModelID: "g"}, "provider"},
		{ringside.Model{Name: "", Provider: "sim"}, "name"},
		{ringside.Model{Name: "gpt", Provider: "openai", ModelID: "gpt-4o"}, "OPENAI_API_KEY"},
		{ringside.Model{Name: "claude", Provider: "anthropic", ModelID: "c"}, "ANTHROPIC_API_KEY"},
		{ringside.Model{Name: "r", Provider: "replay"}, "options.file"},
	}
	for _, tt := range tests {
		s, err := provider.New(tt.m, opts)
		if err == nil || s != nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: streamer %v, err %v; want nil and an error about %s", tt.m, s, err, tt.want)
		}
		if ringside.ErrorCode(err) != ringside.EINVALID {
			t.Errorf("%+v: code %s", tt.m, ringside.ErrorCode(err))
		}
	}
}

// TestZeroOptions checks that Options needs no field set: a sim stream
// with the real clock and sleep, played fast.
func TestZeroOptions(t *testing.T) {
	s, err := provider.New(ringside.Model{Name: "sim-fast", Provider: "sim", Options: map[string]any{"speed": 1e6}}, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := s.Stream(ctx, ringside.Request{PromptID: "p", Messages: []ringside.Message{{Role: "user", Content: "Say hi."}}}, func(ringside.Delta) {})
	if err != nil || res.Text == "" {
		t.Fatalf("%+v, %v", res, err)
	}
}
