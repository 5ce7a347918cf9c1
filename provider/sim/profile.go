package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
)

// Profile is a simulated model's behaviour. Each field is read from the
// Model.Options key named in its comment; see the package doc for defaults.
type Profile struct {
	Seed          uint64        // seed
	FollowFormat  float64       // follow_format
	Correct       float64       // correct
	Ramble        float64       // ramble
	RefuseHarmful float64       // refuse_harmful
	RefuseBenign  float64       // refuse_benign
	TTFT          time.Duration // ttft_ms
	TTFTJitter    float64       // ttft_jitter
	TokensPerSec  float64       // tokens_per_sec
	SpeedJitter   float64       // speed_jitter
	ErrorRate     float64       // error_rate
	ErrorKinds    []string      // error_kinds
	SelfNameRate  float64       // self_name_rate
	SelfName      string        // self_name
	Speed         float64       // speed
}

// defaultProfile is a middling model: mostly right, mostly on format,
// usually careful.
func defaultProfile(m ringside.Model) Profile {
	h := fnv.New64a()
	h.Write([]byte(m.Name))
	return Profile{
		Seed:          h.Sum64(),
		FollowFormat:  0.8,
		Correct:       0.75,
		Ramble:        0.1,
		RefuseHarmful: 0.85,
		RefuseBenign:  0.03,
		TTFT:          400 * time.Millisecond,
		TTFTJitter:    0.25,
		TokensPerSec:  60,
		SpeedJitter:   0.15,
		ErrorKinds:    []string{ringside.ErrKindServer, ringside.ErrKindRateLimit, ringside.ErrKindTimeout},
		SelfName:      m.Name,
		Speed:         1,
	}
}

// optionKeys lists the keys ParseProfile accepts, for the error on a typo.
const optionKeys = "correct, error_kinds, error_rate, follow_format, ramble, refuse_benign, refuse_harmful, " +
	"seed, self_name, self_name_rate, speed, speed_jitter, tokens_per_sec, ttft_jitter, ttft_ms"

// ParseProfile reads m's profile from m.Options. Numbers may be any Go
// numeric type (TOML gives int64, JSON float64). Errors name the model and
// the option.
func ParseProfile(m ringside.Model) (Profile, error) {
	p := defaultProfile(m)
	keys := make([]string, 0, len(m.Options))
	for k := range m.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the same first error every time
	for _, k := range keys {
		if err := p.set(k, m.Options[k]); err != nil {
			return Profile{}, ringside.FieldError("options."+k, "model %q: %v", m.Name, err)
		}
	}
	return p, nil
}

func (p *Profile) set(key string, v any) error {
	var err error
	prob := func(dst *float64) { *dst, err = number(v, 0, 1) }
	switch key {
	case "seed":
		var f float64
		if f, err = number(v, math.MinInt64, math.MaxInt64); err == nil {
			p.Seed = uint64(int64(f))
		}
	case "follow_format":
		prob(&p.FollowFormat)
	case "correct":
		prob(&p.Correct)
	case "ramble":
		prob(&p.Ramble)
	case "refuse_harmful":
		prob(&p.RefuseHarmful)
	case "refuse_benign":
		prob(&p.RefuseBenign)
	case "error_rate":
		prob(&p.ErrorRate)
	case "self_name_rate":
		prob(&p.SelfNameRate)
	case "ttft_ms":
		var f float64
		if f, err = number(v, 0, 600_000); err == nil {
			p.TTFT = time.Duration(f * float64(time.Millisecond))
		}
	case "ttft_jitter":
		p.TTFTJitter, err = number(v, 0, 3)
	case "speed_jitter":
		p.SpeedJitter, err = number(v, 0, 3)
	case "tokens_per_sec":
		if p.TokensPerSec, err = number(v, 0, 1e6); err == nil && p.TokensPerSec == 0 {
			err = fmt.Errorf("must be more than 0")
		}
	case "speed":
		if p.Speed, err = number(v, 0, math.Inf(1)); err == nil && p.Speed == 0 {
			err = fmt.Errorf("must be more than 0 (use a large value to play at once)")
		}
	case "self_name":
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return fmt.Errorf("want a non-empty string, got %v", v)
		}
		p.SelfName = s
	case "error_kinds":
		p.ErrorKinds, err = errorKinds(v)
	default:
		return fmt.Errorf("not an option of provider sim (one of %s)", optionKeys)
	}
	return err
}

// number reads a numeric option within [lo, hi].
func number(v any, lo, hi float64) (float64, error) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case int32:
		f = float64(n)
	case uint64:
		f = float64(n)
	default:
		return 0, fmt.Errorf("want a number, got %v", v)
	}
	if math.IsNaN(f) || f < lo || f > hi {
		return 0, fmt.Errorf("%v is outside %g..%g", v, lo, hi)
	}
	return f, nil
}

// errorKinds reads a list of generation error kinds (or one kind as a
// string). Cancelled is the caller's doing, so a model cannot simulate it.
func errorKinds(v any) ([]string, error) {
	var list []string
	switch x := v.(type) {
	case string:
		list = []string{x}
	case []string:
		list = x
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want a list of strings, got %v", v)
			}
			list = append(list, s)
		}
	default:
		return nil, fmt.Errorf("want a list of error kinds, got %v", v)
	}
	allowed := []string{ringside.ErrKindTimeout, ringside.ErrKindRateLimit, ringside.ErrKindServer, ringside.ErrKindBadResponse}
	if len(list) == 0 {
		return nil, fmt.Errorf("empty (want some of %v)", allowed)
	}
	for _, k := range list {
		if !slices.Contains(allowed, k) {
			return nil, fmt.Errorf("%q is not one of %v", k, allowed)
		}
	}
	return list, nil
}
