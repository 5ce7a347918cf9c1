package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
)

// chatConfig serves chat battles between two simulated models, shown at
// once (no blind pacing: the test reads frames, it does not watch).
const chatConfig = `
[[models]]
name = "kestrel-sim"
provider = "sim"
options = { speed = 1e9 }

[[models]]
name = "osprey-sim"
provider = "sim"
options = { speed = 1e9 }

[judging]
source = "chat"
display_delay = "0s"
display_rate = 1e9
`

// chatJudge is a scripted judge on the real websocket of `ringside serve`.
type chatJudge struct {
	t      *testing.T
	ws     *websocket.Conn
	frames []string
}

// chatWire is what the test reads of a server frame.
type chatWire struct {
	Type     string `json:"type"`
	BattleID string `json:"battle_id"`
	Side     string `json:"side"`
	Void     bool   `json:"void"`
	Turn     int    `json:"turn"`
	Question string `json:"question"`
	Reveal   *struct{ A, B string }
}

func (j *chatJudge) send(v any) {
	j.t.Helper()
	if err := j.ws.WriteJSON(v); err != nil {
		j.t.Fatalf("send: %v", err)
	}
}

// read returns the next frame, failing the test if none comes within 10 s
// or if a side failed.
func (j *chatJudge) read() chatWire {
	j.t.Helper()
	j.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, data, err := j.ws.ReadMessage()
	if err != nil {
		j.t.Fatalf("read: %v (frames so far:\n%s)", err, strings.Join(j.frames, "\n"))
	}
	j.frames = append(j.frames, string(data))
	var f chatWire
	if err := json.Unmarshal(data, &f); err != nil {
		j.t.Fatalf("frame %s: %v", data, err)
	}
	if f.Type == "error" || f.Type == "end" && f.Void {
		j.t.Fatalf("%s (frames so far:\n%s)", data, strings.Join(j.frames, "\n"))
	}
	return f
}

// until reads frames up to and including the first of type typ.
func (j *chatJudge) until(typ string) chatWire {
	j.t.Helper()
	for {
		if f := j.read(); f.Type == typ {
			return f
		}
	}
}

// answered reads until both sides of the current turn ended and voting is
// open (the order of the end and open frames is the server's).
func (j *chatJudge) answered() {
	j.t.Helper()
	ended, open := map[string]bool{}, false
	for !(ended["a"] && ended["b"] && open) {
		switch f := j.read(); f.Type {
		case "end":
			ended[f.Side] = true
		case "open":
			open = true
		}
	}
}

// A judge asks a question on `ringside serve`, follows up, votes at turn
// two; after the server stops, `ringside export battles` holds the
// conversation with both turns on both sides, and `ringside export
// prompts` writes the question as a prompt set that import and run take.
func TestChatBattleInTheExportCommands(t *testing.T) {
	dir := t.TempDir()
	cfgPath, db := filepath.Join(dir, "ringside.toml"), filepath.Join(dir, "arena.db")
	if err := os.WriteFile(cfgPath, []byte(chatConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	inv := mustRun(t, "invite", "--name", "ana", "--config", cfgPath, "--db", db)
	token := regexp.MustCompile(`token=([A-Za-z0-9_-]{43})`).FindStringSubmatch(inv.stdout.String())
	if token == nil {
		t.Fatalf("no judge link in %q", inv.stdout)
	}

	tm := newTestMain()
	base, stop := startServe(t, tm, "--config", cfgPath, "--db", db)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws/judge?token="+token[1], nil)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	j := &chatJudge{t: t, ws: ws}
	const question, followUp = "How do I reset my router?", "And if that fails?"
	j.until("hello")
	j.send(map[string]string{"type": "next"})
	j.until("chat")
	j.send(map[string]string{"type": "ask", "text": question})
	b := j.until("battle")
	j.answered()
	j.send(map[string]string{"type": "follow_up", "battle_id": b.BattleID, "text": followUp})
	if turn := j.until("turn"); turn.Turn != 2 || turn.Question != followUp {
		t.Fatalf("turn frame %+v", turn)
	}
	j.answered()
	j.send(map[string]string{"type": "vote", "battle_id": b.BattleID, "winner": "a"})
	if v := j.until("voted"); v.Turn != 2 || v.Reveal == nil || v.Reveal.A == "" {
		t.Fatalf("voted %+v", v)
	}
	ws.Close()
	if code := stop(); code != exitOK {
		t.Fatalf("serve exited %d: %s", code, tm.stderr)
	}

	battles := filepath.Join(dir, "battles.jsonl")
	mustRun(t, "export", "battles", "--config", cfgPath, "--db", db, "-o", battles)
	rec := onlyLine(t, battles)
	var got struct {
		BattleID       string             `json:"battle_id"`
		Turn           int                `json:"turn"`
		Winner         string             `json:"winner"`
		ConversationA  []ringside.Message `json:"conversation_a"`
		ConversationB  []ringside.Message `json:"conversation_b"`
		ModelA, ModelB string
	}
	if err := json.Unmarshal([]byte(rec), &got); err != nil {
		t.Fatal(err)
	}
	if got.BattleID != b.BattleID || got.Turn != 2 {
		t.Fatalf("exported battle %s at turn %d, want %s at turn 2:\n%s", got.BattleID, got.Turn, b.BattleID, rec)
	}
	for side, conv := range map[string][]ringside.Message{"a": got.ConversationA, "b": got.ConversationB} {
		if len(conv) != 4 || conv[0].Role != "user" || conv[0].Content != question || conv[1].Role != "assistant" || conv[1].Content == "" ||
			conv[2].Content != followUp || conv[3].Role != "assistant" || conv[3].Content == "" {
			t.Fatalf("conversation_%s = %+v, want both turns:\n%s", side, conv, rec)
		}
	}

	// The harvested question: a prompt set import and run take unchanged.
	set := filepath.Join(dir, "arena.jsonl")
	mustRun(t, "export", "prompts", "--set", "arena", "--config", cfgPath, "--db", db, "-o", set)
	if line := onlyLine(t, set); !strings.Contains(line, question) || strings.Contains(line, followUp) {
		t.Fatalf("exported prompt %s, want the opening question only", line)
	}
	fresh := filepath.Join(dir, "fresh.db")
	if imp := mustRun(t, "import", "prompts", set, "--db", fresh); !strings.Contains(imp.stdout.String(), "1 added") {
		t.Fatalf("import printed %q", imp.stdout)
	}
	runCfg := filepath.Join(dir, "run.toml")
	if err := os.WriteFile(runCfg, []byte(chatConfig+"\n[[prompt_sets]]\nname = \"arena\"\nfile = \"arena.jsonl\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "run", "--config", runCfg, "--db", filepath.Join(dir, "run.db"), "--sim-speed", fast)
}

// onlyLine is the one line of a file, failing the test if it holds other.
func onlyLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 1 {
		t.Fatalf("%s holds %d lines, want 1:\n%s", path, len(lines), strings.Join(lines, "\n"))
	}
	return lines[0]
}
