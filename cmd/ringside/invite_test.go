package main

import (
	"context"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

func TestInviteCreatesListsAndRevokes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	tm := newTestMain()
	if code := tm.run(t, "invite", "--name", "Rita", "--quota", "20", "--db", db); code != exitOK {
		t.Fatalf("invite exited %d: %s", code, tm.stderr)
	}
	link := regexp.MustCompile(`http://127\.0\.0\.1:8080/judge\?token=([A-Za-z0-9_-]{43})`).FindStringSubmatch(tm.stdout.String())
	if link == nil {
		t.Fatalf("no judge link in %q", tm.stdout)
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	j, err := sdb.JudgeByToken(context.Background(), ringside.HashToken(link[1]))
	sdb.Close()
	if err != nil || j.Name != "Rita" || j.Quota != 20 {
		t.Fatalf("stored judge %+v, %v", j, err)
	}

	list := newTestMain()
	if code := list.run(t, "invite", "--list", "--db", db); code != exitOK || !strings.Contains(list.stdout.String(), "Rita") ||
		strings.Contains(list.stdout.String(), link[1]) {
		t.Fatalf("invite --list exited %d: %q", code, list.stdout)
	}
	rev := newTestMain()
	if code := rev.run(t, "invite", "--revoke", j.ID, "--db", db); code != exitOK {
		t.Fatalf("invite --revoke exited %d: %s", code, rev.stderr)
	}
	list2 := newTestMain()
	list2.run(t, "invite", "--list", "--db", db)
	if !strings.Contains(list2.stdout.String(), "revoked") {
		t.Fatalf("revoked invite listed as %q", list2.stdout)
	}
	for _, bad := range [][]string{{"invite"}, {"invite", "--list", "--name", "x"}, {"invite", "--name", "x", "--quota", "-1", "--db", db}} {
		if code := newTestMain().run(t, bad...); code != exitUsage {
			t.Errorf("%v exited %d, want %d", bad, code, exitUsage)
		}
	}
}

func TestServeDemoLetsAnyoneJudge(t *testing.T) {
	t.Chdir(t.TempDir())
	tm := newTestMain()
	base, stop := startServe(t, tm)
	defer stop()
	if !strings.Contains(tm.stdout.String(), "open judging is on") {
		t.Fatalf("the demo does not say how to judge: %q", tm.stdout)
	}
	resp, err := http.Get(base + "/judge")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == "ringside_judge" {
			cookie = c.String()
		}
	}
	if cookie == "" {
		t.Fatal("the demo's judge page gave no identity")
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws/judge", http.Header{"Cookie": {cookie}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var hello, battle map[string]any
	if err := ws.ReadJSON(&hello); err != nil || hello["type"] != "hello" {
		t.Fatalf("hello %v, %v", hello, err)
	}
	ws.WriteJSON(map[string]string{"type": "next"})
	if err := ws.ReadJSON(&battle); err != nil || battle["type"] != "battle" {
		t.Fatalf("battle %v, %v", battle, err)
	}
}
