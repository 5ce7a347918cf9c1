package battlefile

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// A record imported into a real database and exported back is the line it
// was, apart from the judge and battle_id the import gives it; the fields
// without a column (tstamp, turn, anony, a numeric question_id, the
// measured values) travel in the battle's extra fields.
func TestImportExportRows(t *testing.T) {
	input := `{"model_a":"m1","model_b":"m2","winner":"tie (bothbad)","judge":"human:alice","question_id":7,"tstamp":1733150000.5,"turn":2,"anony":false,"battle_id":"b-1","language":"German","Latency_ms_a":3}
{"model_a":"m2","model_b":"m3","winner":"model_a","judge":"llm:gj","question_id":"q-9","battle_id":"b-2","category":"refunds","kind":"edge","tags":["billing"],"dimensions":{"format_compliance":"model_b"},"sample":1,"identity_leak":true,"latency_ms_a":1200.5,"ttft_ms_a":300,"cost_usd_a":0.0021,"cost_usd_b":0,"tokens_out_a":180,"error_b":"time<out>","vote_weight":3}
`
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	imp, err := db.BeginBattleImport(ctx, "in.jsonl", "sha")
	if err != nil {
		t.Fatal(err)
	}
	err = Read(strings.NewReader(input), "in.jsonl", func(line int, rec *Record) error {
		l, err := ImportLine(rec, line, "import:in.jsonl")
		if err != nil {
			return err
		}
		return imp.Add(ctx, l)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := imp.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var out []byte
	err = db.EachExportVote(ctx, "", func(e *store.ExportVote) error {
		rec, err := FromExportVote(e)
		if err != nil {
			return err
		}
		out, err = Append(out, rec)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Unknown fields come back in key order; a differently cased
	// Latency_ms_a stays an unknown field and sets no latency.
	want := `{"model_a":"m1","model_b":"m2","winner":"tie (bothbad)","judge":"human:alice","question_id":7,"tstamp":1733150000.5,"turn":2,"anony":false,"battle_id":"b-1","Latency_ms_a":3,"language":"German"}
{"model_a":"m2","model_b":"m3","winner":"model_a","judge":"llm:gj","question_id":"q-9","battle_id":"b-2","category":"refunds","kind":"edge","tags":["billing"],"dimensions":{"format_compliance":"model_b"},"sample":1,"identity_leak":true,"latency_ms_a":1200.5,"ttft_ms_a":300,"cost_usd_a":0.0021,"cost_usd_b":0,"tokens_out_a":180,"error_b":"time<out>","vote_weight":3}
`
	if string(out) != want {
		t.Errorf("export\n got %s\nwant %s", out, want)
	}

	var perf []*Record
	err = db.EachImportedMeasures(ctx, "", MeasuredFields(), func(im *store.ImportedMeasures) error {
		rec, err := FromImportedMeasures(im)
		perf = append(perf, rec)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(perf) != 1 {
		t.Fatalf("%d measured battles, want 1", len(perf))
	}
	if r := perf[0]; r.ModelA != "m2" || r.LatencyMsA == nil || *r.LatencyMsA != 1200.5 || *r.TokensOutA != 180 ||
		r.ErrorB != "time<out>" || r.LatencyMsB != nil || r.CostUSDB == nil || *r.CostUSDB != 0 {
		t.Errorf("measures %+v", r)
	}
}

// A battle of ringside's own exports FastChat's conv_metadata: token sums
// and the Markdown counts per level, which read back as the same features.
func TestExportWritesConvMetadata(t *testing.T) {
	e := &store.ExportVote{}
	e.Battle = ringside.Battle{ID: "b1", ModelA: "m1", ModelB: "m2", Source: ringside.SourceLive}
	e.Vote = ringside.Vote{Winner: ringside.WinnerA}
	e.Weight = 1
	e.GenA = &store.Measures{TokensOut: 40, LatencyMs: 10,
		Markdown: store.CountMarkdown("# Title\n\n- one\n- two\n1. three\n\n**bold** and __bold__")}
	e.GenB = &store.Measures{TokensOut: 12, LatencyMs: 10, Markdown: store.CountMarkdown("plain words")}
	rec, err := FromExportVote(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sum_assistant_a_tokens":40,"sum_assistant_b_tokens":12,` +
		`"header_count_a":{"h1":1,"h2":0,"h3":0,"h4":0,"h5":0,"h6":0},"header_count_b":{"h1":0,"h2":0,"h3":0,"h4":0,"h5":0,"h6":0},` +
		`"list_count_a":{"ordered":1,"unordered":2},"list_count_b":{"ordered":0,"unordered":0},` +
		`"bold_count_a":{"**":1,"__":1},"bold_count_b":{"**":0,"__":0}}`
	if got := string(rec.Extra["conv_metadata"]); got != want {
		t.Fatalf("conv_metadata\n got %s\nwant %s", got, want)
	}
	tokens, headers, lists, bold, err := rec.StyleCounts()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]StyleCount{"tokens": tokens, "headers": headers, "lists": lists, "bold": bold} {
		if !c.Known {
			t.Errorf("%s not read back", name)
		}
	}
	if tokens.A != 40 || headers.A != 1 || lists.A != 3 || bold.A != 2 || bold.B != 0 {
		t.Errorf("read back tokens %+v headers %+v lists %+v bold %+v", tokens, headers, lists, bold)
	}
}
