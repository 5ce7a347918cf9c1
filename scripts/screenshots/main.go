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
	demo, err := servertest.Fill(ctx, db, servertest.Options{Humans: 4, HumanVotes: 90, Seed: 3})
	if err != nil {
		return fmt.Errorf("fill the demo: %w", err)
	}

	cfg := config.Defaults()
	cfg.Models = demo.Models
	cfg.PromptSets = []config.PromptSet{{Name: servertest.PromptSet, File: "builtin"}}
	// Stored battles shown at once: the judge page is photographed with
	// both answers complete.
	cfg.Judging.Source = config.SourceStored
	cfg.Judging.Pace = config.PaceInstant
	if err := cfg.Validate(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	srv := server.New(db, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	defer func() {
		stop()
		<-served
	}()
	inv, err := server.CreateInvite(ctx, db, "reviewer", 10, base)
	if err != nil {
		return err
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.WindowSize(1280, 900))
	defer cancelAlloc()
	bctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil {
		return fmt.Errorf("start chromium: %w", err)
	}

	shots := []struct {
		file, url, ready string
		full             bool
	}{
		{"leaderboard.png", base + "/leaderboard", `document.body.dataset.state === "ready"`, true},
		{"judge.png", inv.URL, `document.body.dataset.state === "open"`, false},
	}
	for _, s := range shots {
		tctx, cancel := context.WithTimeout(bctx, time.Minute)
		var shot chromedp.Action[[]byte] = chromedp.CaptureScreenshot()
		if s.full {
			shot = chromedp.FullScreenshot(100) // 100 is PNG; less would be JPEG
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
			png, err = chromedp.Run(tctx, shot)
		}
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", s.file, err)
		}
		path := filepath.Join(out, s.file)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", path)
	}
	return nil
}
