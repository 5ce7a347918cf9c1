// Package server is ringside's HTTP server: the judges' websocket, the JSON
// API and the embedded pages, on echo.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judging"
	"github.com/ringside-eval/ringside/store"
)

// Server wires the routes to the store. Create it with New, then Serve.
type Server struct {
	Echo   *echo.Echo
	DB     *store.DB
	Config *config.Config
	Logger *slog.Logger
	// Now is the clock; tests replace it.
	Now func() time.Time

	judging *judging.Engine
	sockets *judgeSockets
	// events tells the leaderboard and admin pages that votes changed;
	// boards caches leaderboards until they do.
	events *events
	boards leaderboardCache
	plans  planCache
	// adminFailures limits wrong admin tokens per client address.
	adminFailures *addrAllowance
}

// New builds a server with every route registered. Close it (Serve does)
// before closing db.
func New(db *store.DB, cfg *config.Config, logger *slog.Logger, opts ...Option) *Server {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	o := buildOptions(opts)
	s := &Server{Echo: e, DB: db, Config: cfg, Logger: logger, Now: o.now, adminFailures: newAdminFailures(o.now)}
	s.events = newEvents(db.DataStamp, realEventTimers(o.eventPoll, eventDebounce))
	s.judging = judging.New(db, cfg, judging.Deps{Streamers: o.streamers, Now: o.now, Rand: o.rand,
		Logger: logger, OnVote: s.events.publish})
	s.sockets = newJudgeSockets(s.judging, db, cfg.Judging, logger)
	e.HTTPErrorHandler = s.handleError
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			logger.Error("panic", "path", c.Request().URL.Path, "err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(s.requestLogger())
	e.Use(securityHeaders)

	s.registerHealthRoutes(e)
	s.registerPageRoutes(e)
	s.registerJudgeRoutes(e)
	s.registerAPIRoutes(e.Group("/api"))
	return s
}

// Close disconnects the judges and finishes the judging writes. Serve calls
// it on the way out; a server used without Serve (httptest) is closed by
// its owner.
func (s *Server) Close() {
	s.events.close()
	// The connections' handlers end before the engine they use closes.
	s.sockets.close()
	s.judging.Close()
}

// Serve answers requests on ln until ctx is done, then shuts down
// gracefully: it stops accepting, lets in-flight requests finish within the
// configured timeout, and returns. The caller closes the database after.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Echo,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.Logger.Handler(), slog.LevelWarn),
	}
	s.Echo.Server = srv
	// Event streams end when shutdown starts: Shutdown waits for them.
	srv.RegisterOnShutdown(s.events.close)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	// Websockets are hijacked connections, which Shutdown does not wait
	// for: the judges are closed after it, before the caller closes the
	// database.
	defer s.Close()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	timeout := s.Config.Server.ShutdownTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.Logger.Info("shutting down", "timeout", timeout)
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// requestLogger logs one line per request with slog. Query strings are left
// out: invite tokens travel in them.
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURIPath: true, LogMethod: true, LogLatency: true, LogError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			s.Logger.LogAttrs(c.Request().Context(), level, "request",
				slog.String("method", v.Method), slog.String("path", v.URIPath),
				slog.Int("status", v.Status), slog.Duration("latency", v.Latency))
			return nil
		},
	})
}

// securityHeaders sets a strict Content-Security-Policy: pages load scripts
// only from this server, and nothing inline, so model output that slips
// through as HTML cannot run.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; object-src 'none'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		return next(c)
	}
}
