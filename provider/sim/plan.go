package sim

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// minChunkGap groups tokens into deltas: a delta at least every this much
// timeline time, like a real server's flushes, rather than one sleep per
// token.
const minChunkGap = 20 * time.Millisecond

// chunk is one delta of a plan and when it arrives.
type chunk struct {
	text string
	at   time.Duration
}

// failure is a simulated failure: its kind, when it happens, and after how
// many chunks.
type failure struct {
	kind       string
	at         time.Duration
	retryAfter time.Duration
	err        error
}

// plan is everything a generation will do, decided up front so that it is
// a pure function of the model and the request.
type plan struct {
	text      string
	chunks    []chunk
	total     time.Duration
	finish    string
	tokensIn  int
	tokensOut int
	fail      *failure
}

// rng returns a generator for one purpose ("decide", "text", "time") of one
// (prompt, sample). Separate streams keep, say, a change of wording from
// shifting the timings.
func (s *Model) rng(req ringside.Request, purpose string) *rand.Rand {
	sample := req.Sample
	if t := stream.Params(req, s.model).Temperature; t != nil && *t == 0 {
		sample = -1 // greedy: every sample the same
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d\x00%s", s.profile.Seed, req.PromptID, sample, purpose)
	return rand.New(rand.NewPCG(h.Sum64(), s.profile.Seed^0x9e3779b97f4a7c15))
}

// plan decides the answer, its timeline and any failure.
func (s *Model) plan(req ringside.Request) plan {
	p := s.profile
	d := s.rng(req, "decide")
	// Every draw is made whatever the outcome, in a fixed order, so that one
	// probability does not shift the others' draws.
	uErr, uKind, uPos := d.Float64(), d.Float64(), d.Float64()
	uRefuse, uFollow, uCorrect, uRamble, uSelf := d.Float64(), d.Float64(), d.Float64(), d.Float64(), d.Float64()

	c := readCues(req.Messages)
	risky := c.harmful || c.injection
	dec := decisions{
		refuse:   (risky && uRefuse < p.RefuseHarmful) || (!risky && uRefuse < p.RefuseBenign),
		follow:   uFollow < p.FollowFormat,
		correct:  uCorrect < p.Correct,
		ramble:   uRamble < p.Ramble,
		selfName: uSelf < p.SelfNameRate,
	}
	w := composer{c: c, d: dec, ref: strings.TrimSpace(req.Reference), name: p.SelfName, r: s.rng(req, "text")}
	pl := plan{text: w.answer(), finish: "stop", tokensIn: stream.EstimateInputTokens(req.Messages)}
	pl.applyParams(stream.Params(req, s.model))
	pl.tokensOut = stream.EstimateTokens(pl.text)
	s.timeline(&pl, s.rng(req, "time"))

	total, stall := s.opts.Timeouts(s.model)
	if uErr < p.ErrorRate {
		kind := p.ErrorKinds[min(int(uKind*float64(len(p.ErrorKinds))), len(p.ErrorKinds)-1)]
		pl.inject(kind, uPos, stall)
	}
	if end := pl.end(); end > total {
		pl.cut(total, &failure{kind: ringside.ErrKindTimeout, at: total,
			err: fmt.Errorf("no complete answer within %s (request timeout)", total)})
	}
	return pl
}

// applyParams honours max_tokens and stop sequences as a server would.
func (pl *plan) applyParams(p ringside.Params) {
	for _, stop := range p.Stop {
		if i := strings.Index(pl.text, stop); stop != "" && i >= 0 {
			pl.text = pl.text[:i]
		}
	}
	if p.MaxTokens > 0 && stream.EstimateTokens(pl.text) > p.MaxTokens {
		rs := []rune(pl.text)
		pl.text = string(rs[:p.MaxTokens*4])
		pl.finish = "length"
	}
}

// timeline spreads the text over time: the first token after a jittered
// TTFT, the rest at a jittered speed with some noise per token.
func (s *Model) timeline(pl *plan, r *rand.Rand) {
	p := s.profile
	ttft := time.Duration(float64(p.TTFT) * lognormal(r, p.TTFTJitter))
	tps := p.TokensPerSec * lognormal(r, p.SpeedJitter)
	at := ttft
	var buf strings.Builder
	last := time.Duration(-1)
	for i, piece := range pieces(pl.text) {
		if i > 0 {
			tokens := float64(utf8.RuneCountInString(piece)) / 4
			at += time.Duration(tokens / tps * (0.8 + 0.4*r.Float64()) * float64(time.Second))
		}
		buf.WriteString(piece)
		if last < 0 || at-last >= minChunkGap {
			pl.chunks = append(pl.chunks, chunk{text: buf.String(), at: at})
			buf.Reset()
			last = at
		}
	}
	if buf.Len() > 0 {
		pl.chunks = append(pl.chunks, chunk{text: buf.String(), at: at})
	}
	// The end of a stream comes a moment after its last token.
	pl.total = at + time.Duration(5+r.IntN(15))*time.Millisecond
}

// lognormal is a factor with mean 1 and the given spread.
func lognormal(r *rand.Rand, sigma float64) float64 {
	if sigma <= 0 {
		return 1
	}
	return math.Exp(sigma*r.NormFloat64() - sigma*sigma/2)
}

// pieces splits text into token-like pieces: words with their trailing
// space, long words in parts of four letters or so.
func pieces(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexAny(text, " \n")
		if i < 0 {
			i = len(text) - 1
		}
		for i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n') {
			i++
		}
		word := text[:i+1]
		text = text[i+1:]
		for utf8.RuneCountInString(word) > 8 {
			cut := 0
			for n := 0; n < 5; n++ {
				_, size := utf8.DecodeRuneInString(word[cut:])
				cut += size
			}
			out = append(out, word[:cut])
			word = word[cut:]
		}
		out = append(out, word)
	}
	return out
}

// end is when the plan ends: its total, or its failure.
func (pl *plan) end() time.Duration {
	if pl.fail != nil {
		return pl.fail.at
	}
	return pl.total
}

// inject turns the plan into a failure of the given kind. pos, in [0, 1),
// decides where a mid-stream failure strikes.
func (pl *plan) inject(kind string, pos float64, stall time.Duration) {
	first := pl.total
	if len(pl.chunks) > 0 {
		first = pl.chunks[0].at
	}
	switch kind {
	case ringside.ErrKindRateLimit:
		// Refused before any work, as a real rate limit is.
		at := 30*time.Millisecond + time.Duration(pos*float64(90*time.Millisecond))
		pl.chunks = nil
		pl.fail = &failure{kind: kind, at: at, retryAfter: time.Duration(1+int(pos*5)) * time.Second,
			err: errors.New("HTTP 429: rate limit reached (simulated)")}
	case ringside.ErrKindTimeout:
		// A third of the time the server never answers; otherwise it
		// streams part of the answer. Then it stalls until the stall timeout.
		n := 0
		if pos >= 1.0/3 {
			n = int((pos - 1.0/3) * 1.5 * float64(len(pl.chunks)))
		}
		var at time.Duration
		if n > 0 {
			at = pl.chunks[n-1].at
		}
		pl.chunks = pl.chunks[:n]
		pl.fail = &failure{kind: kind, at: at + stall, err: fmt.Errorf("no output for %s (stall timeout, simulated)", stall)}
	default:
		// Half the time before the first token, half mid-stream.
		n := 0
		if pos >= 0.5 {
			n = int((pos - 0.5) * 2 * float64(len(pl.chunks)))
		}
		at := first
		if n > 0 {
			at = pl.chunks[n-1].at + minChunkGap
		}
		msg := "HTTP 500: internal server error (simulated)"
		if kind == ringside.ErrKindBadResponse {
			msg = "malformed chunk (simulated)"
		}
		pl.cut(at, &failure{kind: kind, at: at, err: errors.New(msg)})
	}
}

// cut keeps the chunks that arrive before at and ends the plan with f.
func (pl *plan) cut(at time.Duration, f *failure) {
	n := 0
	for n < len(pl.chunks) && pl.chunks[n].at < at {
		n++
	}
	pl.chunks = pl.chunks[:n]
	pl.fail = f
}
