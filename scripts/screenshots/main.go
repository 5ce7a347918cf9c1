// Command screenshots makes the README's pictures from the demo: it fills a
// fresh database (a run of the simulated models on the example prompts, the
// rules judge's votes and some simulated human votes), serves it on
// loopback, and photographs the leaderboard and the judge page with
// headless Chromium.
//
//	go run ./scripts/screenshots            # writes docs/img/leaderboard.png and docs/img/judge.png
//	go run ./scripts/screenshots -out /tmp  # somewhere else
//
// It needs Chromium (apt-get install -y --no-install-recommends chromium).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/server/servertest"
	"github.com/ringside-eval/ringside/store"
)

func main() {
	out := flag.String("out", "docs/img", "directory to write the PNG files to")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium binary")
	flag.Parse()
	if err := run(context.Background(), *out, *chromium); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, chromium string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ringside-screenshots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, filepath.Join(dir, "ringside.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	base, inviteURL, stop, err := serveDemo(ctx, db)
	if err != nil {
		return err
	}
	defer stop()
	bctx, closeBrowser, err := startBrowser(ctx, chromium, filepath.Join(dir, "chromium"))
	if err != nil {
		return err
	}
	defer closeBrowser()
	for _, s := range []shot{
		{"leaderboard.png", base + "/leaderboard", `document.body.dataset.state === "ready"`, true},
		{"judge.png", inviteURL, `document.body.dataset.state === "open"`, false},
	} {
		if err := s.take(bctx, out); err != nil {
			return err
		}
	}
	return nil
}

// serveDemo fills db with the demo and serves it on loopback; it returns
// the server's base URL, a judge's invite link, and stop, which shuts the
// server down.
func serveDemo(ctx context.Context, db *store.DB) (base, inviteURL string, stop func(), err error) {
	demo, err := servertest.Fill(ctx, db, servertest.Options{Humans: 4, HumanVotes: 90, Seed: 3})
	if err != nil {
		return "", "", nil, fmt.Errorf("fill the demo: %w", err)
	}
	cfg := config.Defaults()
	cfg.Models = demo.Models
	cfg.PromptSets = []config.PromptSet{{Name: servertest.PromptSet, File: "builtin"}}
	// Stored battles shown at once: the judge page is photographed with
	// both answers complete.
	cfg.Judging.Source = config.SourceStored
	cfg.Judging.Pace = config.PaceInstant
	if err := cfg.Validate(); err != nil {
		return "", "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, err
	}
	base = "http://" + ln.Addr().String()
	srv := server.New(db, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	stop = func() {
		cancel()
		<-served
	}
	inv, err := server.CreateInvite(ctx, db, "reviewer", 10, base)
	if err != nil {
		stop()
		return "", "", nil, err
	}
	return base, inv.URL, stop, nil
}

// startBrowser starts headless Chromium with its profile in userDir; stop
// ends it.
func startBrowser(ctx context.Context, chromium, userDir string) (bctx context.Context, stop func(), err error) {
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(userDir), chromedp.WindowSize(1280, 900))
	bctx, cancel := chromedp.NewContext(alloc)
	stop = func() {
		cancel()
		cancelAlloc()
	}
	if err := chromedp.Do(bctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start chromium: %w", err)
	}
	return bctx, stop, nil
}

// shot is a page to photograph once the JavaScript expression ready holds;
// full takes the whole page rather than the window.
type shot struct {
	file, url, ready string
	full             bool
}

// take photographs the page into the file of that name in dir.
func (s shot) take(bctx context.Context, dir string) error {
	tctx, cancel := context.WithTimeout(bctx, time.Minute)
	defer cancel()
	var capture chromedp.Action[[]byte] = chromedp.CaptureScreenshot()
	if s.full {
		capture = chromedp.FullScreenshot(100) // 100 is PNG; less would be JPEG
	}
	err := chromedp.Do(tctx, chromedp.Navigate(s.url), chromedp.WaitReady("body"))
	// A poll started while the new document replaces the old one can
	// lose its JavaScript context; it is simply started again.
	for try := 0; err == nil && try < 5; try++ {
		err = chromedp.Do(tctx, chromedp.Poll[chromedp.Void](s.ready, chromedp.WithPollingTimeout(30*time.Second)))
		if err == nil || !strings.Contains(err.Error(), "context") || tctx.Err() != nil {
			break
		}
		err = nil
		time.Sleep(200 * time.Millisecond)
	}
	if err == nil {
		// Let the charts settle after their last redraw.
		err = chromedp.Do(tctx, chromedp.Sleep(500*time.Millisecond))
	}
	var png []byte
	if err == nil {
		png, err = chromedp.Run(tctx, capture)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", s.file, err)
	}
	path := filepath.Join(dir, s.file)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}
