package main

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
)

func (m *Main) serve(ctx context.Context, args []string) error {
	fs := m.newFlagSet("serve", "[--config F] [--addr A] [--db F]", `
Starts the web server: the judge page, the leaderboard, the admin page and the
JSON API. With no config file it starts the built-in demo: simulated models and
the bundled example prompts, in a demo.db file in the working directory (a
config of your own keeps its data apart, in database.path).
Stops gracefully on SIGINT or SIGTERM.`)
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	addr := fs.String("addr", "", "address to listen on (default: server.addr, 127.0.0.1:8080)")
	dbPath := fs.String("db", "", dbFlagHelp)
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := m.loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	if *addr != "" {
		cfg.Server.Addr = *addr
	}
	demo := cfg.Path == ""
	if demo {
		// The demo is for trying ringside at once: anyone who opens the
		// judge page judges, under a cookie identity. It listens on
		// 127.0.0.1 unless told otherwise.
		cfg.Judging.Open.Enabled = true
	}
	streamers, err := m.liveStreamers(cfg)
	if err != nil {
		return err
	}
	db, err := openSyncedDB(ctx, cfg, *dbPath, m.Stdout)
	if err != nil {
		return err
	}
	defer db.Close()
	token, err := server.EnsureAdminToken(ctx, db, m.Getenv(cfg.Server.AdminTokenEnv))
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Server.Addr)
	if err != nil {
		return ringside.Errorf(ringside.EINVALID, "listen on %s: %v", cfg.Server.Addr, err)
	}
	base := publicURL(cfg.Server.PublicURL, ln.Addr().String())
	if demo {
		fmt.Fprintf(m.Stdout, "ringside demo: %d simulated models, database %s\n", len(cfg.Models), db.Path)
	}
	fmt.Fprintf(m.Stdout, "ringside listening on %s\n", base)
	fmt.Fprintf(m.Stdout, "  leaderboard: %s/leaderboard\n  judge:       %s/judge\n", base, base)
	if cfg.Judging.Open.Enabled {
		fmt.Fprintf(m.Stdout, "  open judging is on: anyone who opens the judge page may vote (no invite needed)\n")
	} else {
		fmt.Fprintf(m.Stdout, "  judges need an invite: ringside invite --name NAME\n")
	}
	if token != "" {
		fmt.Fprintf(m.Stdout, "  admin token (shown once; set %s to choose your own): %s\n", cfg.Server.AdminTokenEnv, token)
	}
	if m.Listening != nil {
		m.Listening(ln.Addr().String())
	}
	srv := server.New(db, cfg, m.logger(), server.WithStreamers(streamers))
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	return db.Close()
}

// liveStreamers builds the configured models' clients for live and chat
// judging (either alone or in judging.sources); models that cannot be
// built (missing API keys, all named at once) stop the start. Stored
// judging alone needs none.
func (m *Main) liveStreamers(cfg *config.Config) (map[string]ringside.Streamer, error) {
	if !cfg.Judging.UsesSource(config.SourceLive) && !cfg.Judging.UsesSource(config.SourceChat) {
		return nil, nil
	}
	// Keys come through the injected environment, as for run and judge.
	return m.buildModels(cfg, nil)
}

// publicURL is the configured public address, or one made from the listener.
func publicURL(configured, listenAddr string) string {
	if configured != "" {
		return strings.TrimRight(configured, "/")
	}
	host, port, _ := net.SplitHostPort(listenAddr)
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
