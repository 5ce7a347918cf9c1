package server_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// ack is a vote the server acknowledged.
type ack struct {
	judge, battle, winner string
}

// TestAcknowledgedVotesSurviveSIGKILL: judges vote as fast as they can on a
// server process that is killed with SIGKILL mid-stream; every vote it had
// acknowledged is in the database after a restart.
func TestAcknowledgedVotesSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	const judges = 16
	dbPath, tokens := prepareDB(t, judges)
	srv := startChild(t, dbPath, "fake")

	var (
		mu    sync.Mutex
		acked = map[string][]ack{} // by token
		total atomic.Int64
		wg    sync.WaitGroup
	)
	for _, token := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, _, err := websocket.DefaultDialer.Dial(srv.wsURL(token), nil)
			if err != nil {
				return
			}
			defer ws.Close()
			winners := []string{"a", "b", "tie", "bothbad"}
			for i := 0; ; i++ {
				if err := ws.WriteJSON(map[string]string{"type": "next"}); err != nil {
					return
				}
				id, ok := readUntil(ws, "open")
				if !ok {
					return
				}
				w := winners[i%len(winners)]
				if err := ws.WriteJSON(map[string]string{"type": "vote", "battle_id": id, "winner": w}); err != nil {
					return
				}
				if _, ok := readUntil(ws, "voted"); !ok {
					return // killed before the acknowledgement: no promise made
				}
				mu.Lock()
				acked[token] = append(acked[token], ack{token, id, w})
				mu.Unlock()
				total.Add(1)
			}
		}()
	}
	// Kill while votes are in flight, once a fair number were acknowledged.
	deadline := time.Now().Add(30 * time.Second)
	for total.Load() < 300 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	srv.kill(t)
	wg.Wait()
	if total.Load() == 0 {
		t.Fatalf("no vote was acknowledged: %s", srv.errs)
	}

	// A restarted server reports each judge's progress from the database.
	again := startChild(t, dbPath, "fake")
	for _, token := range tokens {
		ws, _, err := websocket.DefaultDialer.Dial(again.wsURL(token), nil)
		if err != nil {
			t.Fatal(err)
		}
		var hello struct{ Progress struct{ Done int } }
		ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		if err := ws.ReadJSON(&hello); err != nil {
			t.Fatal(err)
		}
		ws.Close()
		if hello.Progress.Done < len(acked[token]) {
			t.Errorf("after restart a judge has %d votes, %d were acknowledged", hello.Progress.Done, len(acked[token]))
		}
	}
	again.stop(t)

	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	judgesByName := map[string]string{}
	for _, token := range tokens {
		j, err := db.JudgeByToken(context.Background(), ringside.HashToken(token))
		if err != nil {
			t.Fatal(err)
		}
		judgesByName[token] = j.ID
	}
	for token, list := range acked {
		for _, a := range list {
			v, err := db.VoteBy(context.Background(), a.battle, judgesByName[token])
			if err != nil || string(v.Winner) != a.winner {
				t.Fatalf("acknowledged vote %+v: stored %+v, %v", a, v, err)
			}
		}
	}
	t.Logf("%d acknowledged votes, all stored", total.Load())
}

// readUntil reads frames until one of type typ and returns its battle id;
// false when the connection ends first.
func readUntil(ws *websocket.Conn, typ string) (string, bool) {
	for {
		ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, data, err := ws.ReadMessage()
		if err != nil {
			return "", false
		}
		var f struct {
			Type     string `json:"type"`
			BattleID string `json:"battle_id"`
		}
		if json.Unmarshal(data, &f) == nil && f.Type == typ {
			return f.BattleID, true
		}
	}
}
